// Token counts of words seen before. Books repeat their words endlessly, so
// a lookup by bytes is cheaper than tokenising the word again.
#if canImport(Glibc)
import Glibc
#endif

struct TokenCountCache {
    /// Words longer than this are counted each time; they are rare.
    static let maxKeyBytes = 48
    private var hashes: [UInt64]
    private var counts: [Int32]
    private var keyStarts: [Int32]
    private var keyLengths: [UInt8]
    private var keys: [UInt8] = []
    private var used = 0
    private var mask: Int

    init(capacity: Int = 1 << 16) {
        hashes = [UInt64](repeating: 0, count: capacity)
        counts = [Int32](repeating: 0, count: capacity)
        keyStarts = [Int32](repeating: 0, count: capacity)
        keyLengths = [UInt8](repeating: 0, count: capacity)
        mask = capacity - 1
    }

    @inline(__always)
    static func hash(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for i in s..<e { h = (h ^ UInt64(b[i])) &* 0x100000001b3 }
        return h | 1  // 0 marks an empty slot
    }

    /// The cached count of b[s..<e], or the one `compute` gives (then cached).
    @inline(__always)
    mutating func count(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, _ compute: () -> Int) -> Int {
        let length = e - s
        guard length <= TokenCountCache.maxKeyBytes else { return compute() }
        let h = TokenCountCache.hash(b, s, e)
        var slot = Int(truncatingIfNeeded: h) & mask
        while hashes[slot] != 0 {
            if hashes[slot] == h && Int(keyLengths[slot]) == length
                && keys.withUnsafeBufferPointer({ memcmp($0.baseAddress! + Int(keyStarts[slot]), b.baseAddress! + s, length) == 0 }) {
                return Int(counts[slot])
            }
            slot = (slot + 1) & mask
        }
        let n = compute()
        if used * 2 >= hashes.count { return n }  // full enough: stop caching rather than grow
        hashes[slot] = h
        counts[slot] = Int32(n)
        keyStarts[slot] = Int32(keys.count)
        keyLengths[slot] = UInt8(length)
        keys.append(contentsOf: UnsafeBufferPointer(rebasing: b[s..<e]))
        used += 1
        return n
    }
}
