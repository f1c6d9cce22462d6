// Large buffers (a book's text, its units, its chunk records) straight from
// mmap. Address space for the most the buffer may ever need is reserved up
// front and made usable as the buffer grows, so growing never copies and the
// buffer never moves (a second thread may be reading it); it is 2 MiB
// aligned and marked for transparent huge pages, so a 10 MB book costs a
// handful of page faults instead of thousands. Under an address-space limit
// (`ulimit -v`), or when the reservation is refused, a buffer is an ordinary
// mapping that grows by copying, and `isReserved` is false.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

struct LargeMemory {
    static let alignment = 2 << 20
    private(set) var base: UnsafeMutableRawPointer
    /// Usable bytes from `base`.
    private(set) var size = 0
    /// Bytes mapped from `base`: reserved address space, or `size` itself.
    private var mapped: Int
    /// Whether growing keeps `base` up to `mapped` bytes.
    private(set) var isReserved = false
    private let hugePages: Bool

    /// Reserving address space is for processes without a limit on it.
    static let mayReserve: Bool = {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0 else { return false }
        return limit.rlim_cur == rlim_t.max  // RLIM_INFINITY
    }()

    /// At least `bytes` usable bytes, in room for `reserve` (0: no reservation).
    init(_ bytes: Int, reserve: Int = 0, hugePages: Bool = true) {
        self.hugePages = hugePages
        if reserve > bytes && LargeMemory.mayReserve, let reserved = LargeMemory.map(LargeMemory.round(reserve), PROT_NONE, hugePages) {
            base = reserved
            mapped = LargeMemory.round(reserve)
            isReserved = true
        } else {
            mapped = LargeMemory.round(max(bytes, 1))
            guard let plain = LargeMemory.map(mapped, PROT_READ | PROT_WRITE, hugePages) else { LargeMemory.outOfMemory(mapped) }
            base = plain
            size = mapped
        }
        ensure(bytes, keeping: 0)
    }

    func deallocate() { munmap(base, mapped) }

    /// Makes at least `bytes` usable, keeping the first `used`. Within the
    /// reservation `base` stays put; past it (or without one) the bytes are copied.
    @inline(__always)
    mutating func ensure(_ bytes: Int, keeping used: Int) {
        if bytes > size { grow(bytes, keeping: used) }
    }

    private mutating func grow(_ bytes: Int, keeping used: Int) {
        if isReserved && bytes <= mapped {
            let target = min(LargeMemory.round(max(bytes, size * 2)), mapped)
            guard mprotect(base + size, target - size, PROT_READ | PROT_WRITE) == 0 else { LargeMemory.outOfMemory(target) }
            size = target
            return
        }
        let newSize = LargeMemory.round(max(bytes, size * 2))
        guard let newBase = LargeMemory.map(newSize, PROT_READ | PROT_WRITE, hugePages) else { LargeMemory.outOfMemory(newSize) }
        newBase.copyMemory(from: base, byteCount: used)
        munmap(base, mapped)
        base = newBase
        mapped = newSize
        size = newSize
        isReserved = false
    }

    private static func round(_ n: Int) -> Int { (n + alignment - 1) & ~(alignment - 1) }

    private static func outOfMemory(_ bytes: Int) -> Never {
        printError("ib-chunk: out of memory (\(bytes) bytes)")
        exit(1)
    }

    /// A 2 MiB-aligned mapping of `size` bytes (a multiple of 2 MiB), or nil.
    private static func map(_ size: Int, _ protection: Int32, _ hugePages: Bool) -> UnsafeMutableRawPointer? {
        let flags = MAP_PRIVATE | MAP_ANONYMOUS | (protection == PROT_NONE ? MAP_NORESERVE : 0)
        guard let raw = mmap(nil, size + alignment, protection, flags, -1, 0), raw != MAP_FAILED else { return nil }
        let address = Int(bitPattern: raw)
        let aligned = (address + alignment - 1) & ~(alignment - 1)
        if aligned > address { munmap(raw, aligned - address) }
        let base = UnsafeMutableRawPointer(bitPattern: aligned)!
        let tail = address + size + alignment - (aligned + size)
        if tail > 0 { munmap(base + size, tail) }
        if hugePages { _ = madvise(base, size, 14) }  // MADV_HUGEPAGE; a kernel without it says EINVAL, which is fine
        return base
    }
}
