// Large buffers (a book's text, its units, its chunk records) straight from
// mmap, 2 MiB aligned and marked for transparent huge pages: a 10 MB book
// then costs a handful of page faults instead of thousands, which otherwise
// take a fifth of ib-chunk's time. Where huge pages are off, this is plain
// mmap.
#if canImport(Glibc)
import Glibc
#endif

struct LargeMemory {
    static let alignment = 2 << 20
    private(set) var base: UnsafeMutableRawPointer
    private(set) var size: Int

    /// At least `bytes` zeroed bytes.
    init(_ bytes: Int) {
        (base, size) = LargeMemory.map(bytes)
    }

    func deallocate() { munmap(base, size) }

    /// Grows to at least `bytes`, keeping the first `used` bytes.
    mutating func grow(to bytes: Int, keeping used: Int) {
        guard bytes > size else { return }
        let (newBase, newSize) = LargeMemory.map(bytes)
        newBase.copyMemory(from: base, byteCount: used)
        munmap(base, size)
        base = newBase
        size = newSize
    }

    private static func map(_ bytes: Int) -> (UnsafeMutableRawPointer, Int) {
        if bytes < alignment {
            // Small: ordinary pages, as many as needed.
            let size = (max(bytes, 1) + 4095) & ~4095
            guard let raw = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), raw != MAP_FAILED else {
                fatalError("ib-chunk: out of memory (\(size) bytes)")
            }
            return (raw, size)
        }
        let size = (max(bytes, 1) + alignment - 1) & ~(alignment - 1)
        guard let raw = mmap(nil, size + alignment, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              raw != MAP_FAILED else {
            fatalError("ib-chunk: out of memory (\(size) bytes)")
        }
        // Trim to a 2 MiB-aligned region.
        let address = Int(bitPattern: raw)
        let aligned = (address + alignment - 1) & ~(alignment - 1)
        if aligned > address { munmap(raw, aligned - address) }
        let tail = address + size + alignment - (aligned + size)
        let base = UnsafeMutableRawPointer(bitPattern: aligned)!
        if tail > 0 { munmap(base + size, tail) }
        _ = madvise(base, size, 14)  // MADV_HUGEPAGE; a kernel without it says EINVAL, which is fine
        return (base, size)
    }
}
