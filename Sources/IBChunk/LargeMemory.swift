// Large buffers (a book's text, its units, its chunk records) straight from
// mmap. Address space is reserved up front and made usable as the buffer
// grows, so growing never copies and the buffer never moves; it is 2 MiB
// aligned and marked for transparent huge pages, so a 10 MB book costs a
// handful of page faults instead of thousands. Where the reservation is
// refused (a low `ulimit -v`), growing maps a larger buffer and copies.
#if canImport(Glibc)
import Glibc
#endif

struct LargeMemory {
    static let alignment = 2 << 20
    /// Address space reserved per buffer: far more than any book needs
    /// (ib-chunk takes books under 2 GiB), and free until used.
    static let defaultReservation = 1 << 34
    private(set) var base: UnsafeMutableRawPointer
    /// Usable bytes from `base`.
    private(set) var size = 0
    private var reserved: Int
    /// Whether growing keeps `base` (address space was reserved); else it may copy.
    private(set) var isReserved = false

    init(_ bytes: Int = 0) {
        var reservation = LargeMemory.defaultReservation
        var mapped: UnsafeMutableRawPointer? = nil
        while mapped == nil && reservation >= 64 * LargeMemory.alignment {
            mapped = LargeMemory.map(reservation, PROT_NONE)
            if mapped == nil { reservation /= 4 }
        }
        if let mapped {
            base = mapped
            reserved = reservation
            isReserved = true
        } else {
            reserved = LargeMemory.round(max(bytes, 1))
            guard let fallback = LargeMemory.map(reserved, PROT_READ | PROT_WRITE) else { LargeMemory.outOfMemory(reserved) }
            base = fallback
            size = reserved
        }
        ensure(bytes, keeping: 0)
    }

    func deallocate() { munmap(base, reserved) }

    /// Makes at least `bytes` usable, keeping the first `used`; `base` changes only when the reservation runs out.
    @inline(__always)
    mutating func ensure(_ bytes: Int, keeping used: Int) {
        if bytes > size { grow(bytes, keeping: used) }
    }

    private mutating func grow(_ bytes: Int, keeping used: Int) {
        let target = LargeMemory.round(max(bytes, size * 2))
        if isReserved && target <= reserved {
            // Never moves: a thread may be reading it.
            guard mprotect(base + size, target - size, PROT_READ | PROT_WRITE) == 0 else { LargeMemory.outOfMemory(target) }
            size = target
            return
        }
        // Out of reserved space: a new, larger buffer.
        let newReserved = max(target, reserved * 2)
        guard let newBase = LargeMemory.map(newReserved, PROT_READ | PROT_WRITE) else { LargeMemory.outOfMemory(newReserved) }
        newBase.copyMemory(from: base, byteCount: used)
        munmap(base, reserved)
        base = newBase
        reserved = newReserved
        size = newReserved
        isReserved = false
    }

    private static func round(_ n: Int) -> Int { (n + alignment - 1) & ~(alignment - 1) }

    private static func outOfMemory(_ bytes: Int) -> Never {
        printError("ib-chunk: out of memory (\(bytes) bytes)")
        exit(1)
    }

    /// A 2 MiB-aligned mapping of `size` bytes (a multiple of 2 MiB), or nil.
    private static func map(_ size: Int, _ protection: Int32) -> UnsafeMutableRawPointer? {
        let flags = MAP_PRIVATE | MAP_ANONYMOUS | (protection == PROT_NONE ? MAP_NORESERVE : 0)
        guard let raw = mmap(nil, size + alignment, protection, flags, -1, 0), raw != MAP_FAILED else { return nil }
        let address = Int(bitPattern: raw)
        let aligned = (address + alignment - 1) & ~(alignment - 1)
        if aligned > address { munmap(raw, aligned - address) }
        let base = UnsafeMutableRawPointer(bitPattern: aligned)!
        let tail = address + size + alignment - (aligned + size)
        if tail > 0 { munmap(base + size, tail) }
        _ = madvise(base, size, 14)  // MADV_HUGEPAGE; a kernel without it says EINVAL, which is fine
        return base
    }
}

import IBCore
