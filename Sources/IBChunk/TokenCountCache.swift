// Token counts of words seen before. Books repeat their words endlessly, so
// a lookup by bytes is cheaper than tokenising the word again. The tables are
// small enough to stay in a core's L2 cache: a word of up to 7 bytes is one
// 8-byte slot (its bytes and its count); a longer one takes a 16-byte slot
// (its first 8 bytes, length, count, and where the rest is kept).
#if canImport(Glibc)
import Glibc
#endif

struct TokenCountCache {
    /// Words longer than this are counted each time; they are rare.
    static let maxKeyBytes = 48
    /// Short slots: the word's 1...7 bytes (no NUL), then its count in the top byte (0: empty).
    private let short: UnsafeMutablePointer<UInt64>
    private let shortCapacity: Int
    private var shortUsed = 0
    /// Long slots: first 8 bytes (zero-padded), then length | count << 8 | overflow offset << 32 (0: empty).
    private var slots: UnsafeMutablePointer<UInt64>
    /// Bytes 8... of words longer than 8, back to back.
    private var overflow: UnsafeMutablePointer<UInt8>
    private var overflowCount = 0
    private var overflowCapacity: Int
    private var used = 0
    private let capacity: Int
    private let owner: Owner

    /// Frees the storage when the last copy goes.
    private final class Owner {
        let table: UnsafeMutableRawPointer
        var overflow: UnsafeMutablePointer<UInt8>
        init(_ table: UnsafeMutableRawPointer, _ overflow: UnsafeMutablePointer<UInt8>) {
            self.table = table; self.overflow = overflow
        }
        deinit { free(table); free(overflow) }
    }

    init(shortCapacity: Int = 1 << 15, capacity: Int = 1 << 15) {
        self.shortCapacity = shortCapacity
        self.capacity = capacity
        // Written once now: a table first read as the kernel's zero page costs a
        // TLB shootdown on every core at each first write.
        let bytes = shortCapacity * 8 + capacity * 16
        // Ordinary pages, not a huge one: 768 KiB to clear rather than 2 MiB.
        let table = malloc(bytes)!
        memset(table, 0, bytes)
        short = table.assumingMemoryBound(to: UInt64.self)
        slots = (table + shortCapacity * 8).assumingMemoryBound(to: UInt64.self)
        overflowCapacity = 1 << 16
        overflow = malloc(overflowCapacity + 8)!.assumingMemoryBound(to: UInt8.self)
        owner = Owner(table, overflow)
    }

    /// Becomes a copy of `other` (of the same capacities), which no thread may be changing.
    mutating func copy(_ other: TokenCountCache) {
        precondition(shortCapacity == other.shortCapacity && capacity == other.capacity)
        owner.table.copyMemory(from: other.owner.table, byteCount: shortCapacity * 8 + capacity * 16)
        if overflowCapacity < other.overflowCount {
            overflowCapacity = other.overflowCapacity
            overflow = realloc(overflow, overflowCapacity + 8)!.assumingMemoryBound(to: UInt8.self)
            owner.overflow = overflow
        }
        overflow.update(from: other.overflow, count: other.overflowCount)
        overflowCount = other.overflowCount
        used = other.used
        shortUsed = other.shortUsed
    }

    /// Bytes [0, n) of the 8-byte word at `p`, the rest zero; n in 1...8.
    @inline(__always)
    static func partial(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
        Bytes.load(p) & (UInt64.max &>> UInt64((8 - n) &* 8))  // n in 1...8: a masking shift is exact
    }

    /// The hash of a word of 1...maxKeyBytes bytes. Reads up to 7 bytes past
    /// its end: the text must be a BookText's bytes.
    @inline(__always)
    static func hash(_ word: UnsafePointer<UInt8>, _ length: Int) -> UInt64 { key(word, length).hash }

    /// A word's first 8 bytes (zero-padded) and its hash.
    @inline(__always)
    static func key(_ word: UnsafePointer<UInt8>, _ length: Int) -> (first: UInt64, hash: UInt64) {
        let first = partial(word, min(length, 8))
        var h = (first ^ UInt64(truncatingIfNeeded: length)) &* 0x9E37_79B9_7F4A_7C15
        var i = 8
        while i < length {
            h = (h ^ partial(word + i, min(length - i, 8))) &* 0xFF51_AFD7_ED55_8CCD
            i += 8
        }
        return (first, h)
    }

    /// Loads the word's first slot, so that a lookup soon after finds it in
    /// the CPU's cache; the value means nothing.
    @inline(__always)
    func touch(_ h: UInt64, _ length: Int) -> UInt64 {
        length < 8 ? short[Int(truncatingIfNeeded: h >> 40) & (shortCapacity - 1)]
            : slots[2 * (Int(truncatingIfNeeded: h >> 40) & (capacity - 1)) + 1]
    }

    /// The cached count of b[s..<e] (1 or more bytes), or the one `compute`
    /// gives (then cached). Reads up to 7 bytes past e: b must be a BookText's bytes.
    @inline(__always)
    mutating func count(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, _ compute: () -> Int) -> Int {
        let length = e - s
        guard length <= TokenCountCache.maxKeyBytes else { return compute() }
        let (first, h) = TokenCountCache.key(b.baseAddress! + s, length)
        let word = b.baseAddress! + s
        let plain = Bytes.zeroBytes(first | ~(UInt64.max &>> UInt64((8 - min(length, 8)) &* 8))) == 0
        return count(word, length, first, h, plain: plain, compute)
    }

    /// The same, for a word of 1...maxKeyBytes bytes whose key is known.
    @inline(__always)
    /// `first` and `h` from `key`; `plain` when the word has no NUL byte in its first 8 (it may then take a short slot).
    mutating func count(_ word: UnsafePointer<UInt8>, _ length: Int, _ first: UInt64, _ h: UInt64, plain: Bool,
                        _ compute: () -> Int) -> Int {
        if length < 8 && plain {
            let mask = shortCapacity - 1
            var slot = Int(truncatingIfNeeded: h >> 40) & mask
            while true {
                let entry = short[slot]
                if entry == 0 { break }
                if entry & 0x00FF_FFFF_FFFF_FFFF == first { return Int(entry >> 56) }
                slot = (slot + 1) & mask
            }
            let n = compute()
            if shortUsed * 4 < shortCapacity * 3 && n <= 0xFF {
                short[slot] = first | UInt64(n) << 56
                shortUsed += 1
            }
            return n
        }
        let mask = capacity - 1
        var slot = Int(truncatingIfNeeded: h >> 40) & mask
        while true {
            let meta = slots[2 * slot + 1]
            if meta == 0 { break }
            if slots[2 * slot] == first && Int(meta & 0xFF) == length
                && (length <= 8 || equalRest(Int(meta >> 32), word, length)) {
                return Int((meta >> 8) & 0xFFFF)
            }
            slot = (slot + 1) & mask
        }
        let n = compute()
        if used * 4 >= capacity * 3 || n > 0xFFFF { return n }  // full enough: stop caching rather than grow
        var offset = 0
        if length > 8 {
            if overflowCount + length > overflowCapacity {
                overflowCapacity *= 2
                overflow = realloc(overflow, overflowCapacity + 8)!.assumingMemoryBound(to: UInt8.self)
                owner.overflow = overflow
            }
            offset = overflowCount
            (overflow + offset).update(from: word + 8, count: length - 8)
            overflowCount += length - 8
        }
        slots[2 * slot] = first
        slots[2 * slot + 1] = UInt64(length) | UInt64(n) << 8 | UInt64(offset) << 32
        used += 1
        return n
    }

    @inline(__always)
    private func equalRest(_ offset: Int, _ word: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        var i = 8
        while i < length {
            let n = min(length - i, 8)
            if TokenCountCache.partial(overflow + offset + i - 8, n) != TokenCountCache.partial(word + i, n) { return false }
            i += 8
        }
        return true
    }
}
