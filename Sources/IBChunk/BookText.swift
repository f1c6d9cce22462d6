// A book's text as it is read: its pages' UTF-8 joined by "\n" in one
// growable buffer, with where each page starts. The buffer always has
// `padding` readable bytes past its end, so word-at-a-time loads
// (TokenCountCache, Bytes) may read a whole 8-byte word at any offset.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

final class BookText {
    static let padding = 16
    private var memory: LargeMemory
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// Byte offset of each page's first byte, and its page number.
    var pageStarts: [Int] = []
    var pageNumbers: [Int] = []

    /// A book's text stays under 2 GiB (ChunkStream stops there), plus the page that crosses it.
    static let reservation = Int(Int32.max) + LineReader.defaultMaxLineBytes + (1 << 20)

    init(capacity: Int = 1 << 16) {
        memory = LargeMemory(capacity + BookText.padding, reserve: BookText.reservation)
        self.capacity = memory.size - BookText.padding
        base = memory.base.assumingMemoryBound(to: UInt8.self)
    }

    deinit { memory.deallocate() }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Whether the text stays where it is as it grows.
    var isStable: Bool { memory.isReserved }

    /// Makes room for `n` more bytes.
    @inline(__always)
    func reserve(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    private func grow(_ needed: Int) {
        memory.ensure(needed + BookText.padding, keeping: count)
        capacity = memory.size - BookText.padding
        base = memory.base.assumingMemoryBound(to: UInt8.self)
    }

    /// Starts a new page: a "\n" after the previous one.
    func beginPage(_ number: Int) {
        if !pageStarts.isEmpty { append(0x0A) }
        pageStarts.append(count)
        pageNumbers.append(number)
    }

    /// Drops a page begun by `beginPage` whose text could not be read.
    func abandonPage() {
        count = pageStarts.removeLast()
        pageNumbers.removeLast()
        if !pageStarts.isEmpty { count -= 1 }
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: bytes.baseAddress!, count: bytes.count)
        count += bytes.count
    }

    /// Where the next byte goes; write up to the reserved room, then `commit`.
    var end: UnsafeMutablePointer<UInt8> { base + count }
    func commit(_ n: Int) { count += n }

    func removeAll() {
        count = 0
        pageStarts.removeAll(keepingCapacity: true)
        pageNumbers.removeAll(keepingCapacity: true)
    }
}

/// Word-at-a-time helpers over bytes.
enum Bytes {
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// High bit set in each byte of `x` that is zero (exact, no false positives).
    @inline(__always)
    static func zeroBytes(_ x: UInt64) -> UInt64 {
        ~(((x & ~highs) &+ ~highs) | x | ~highs)
    }

    /// The lowest byte flagged is the first byte below 0x20, '"' or '\' (bytes
    /// above it may be flagged wrongly, by borrows): cheaper than jsonSpecials.
    @inline(__always)
    static func jsonSpecialsFirst(_ x: UInt64) -> UInt64 {
        let quote = x ^ 0x2222_2222_2222_2222, backslash = x ^ 0x5C5C_5C5C_5C5C_5C5C
        return ((x &- 0x2020_2020_2020_2020) & ~x
            | (quote &- ones) & ~quote
            | (backslash &- ones) & ~backslash) & highs
    }

    /// Copies bytes from p[r] to out[w] up to the first one JSON escapes (below
    /// 0x20, '"', '\') or up to `n`, advancing both; returns the high bits of the
    /// bytes copied (non-zero: the run holds non-ASCII). Whole 8-byte words are
    /// stored as read, so `out` needs 8 bytes to spare.
    @inline(__always)
    static func copyPlainRun(_ p: UnsafePointer<UInt8>, _ n: Int, _ r: inout Int,
                             _ out: UnsafeMutablePointer<UInt8>, _ w: inout Int) -> UInt64 {
        var high: UInt64 = 0
        while r + 8 <= n {
            let x = load(p + r)
            UnsafeMutableRawPointer(out + w).storeBytes(of: x.littleEndian, as: UInt64.self)
            let special = jsonSpecialsFirst(x)
            if special != 0 {
                let k = special.trailingZeroBitCount >> 3
                high |= x & highs & ((1 &<< (UInt64(k) &* 8)) &- 1)
                r += k
                w += k
                return high
            }
            high |= x & highs
            r += 8
            w += 8
        }
        while r < n {
            let c = p[r]
            if c < 0x20 || c == 0x22 || c == 0x5C { break }
            high |= UInt64(c & 0x80)
            out[w] = c
            r += 1
            w += 1
        }
        return high
    }

    /// How many UTF-8 continuation bytes are in [from, to).
    static func continuationBytes(_ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var n = 0
        var i = from
        while i + 8 <= to {
            let x = load(p + i)
            if x & highs != 0 { n += (x & ~(x << 1) & highs).nonzeroBitCount }
            i += 8
        }
        while i < to { if p[i] & 0xC0 == 0x80 { n += 1 }; i += 1 }
        return n
    }

    /// Unicode scalars in [from, to) of valid UTF-8.
    @inline(__always)
    static func scalarCount(_ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        to - from - continuationBytes(p, from: from, to: to)
    }

    /// Whether bytes[0..<n] are well-formed UTF-8 (what String(validating:) accepts).
    static func isValidUTF8(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        while i < n {
            if i + 8 <= n && load(p + i) & highs == 0 { i += 8; continue }
            let b0 = p[i]
            if b0 < 0x80 { i += 1; continue }
            if b0 < 0xC2 { return false }
            if b0 < 0xE0 {
                guard i + 1 < n, p[i + 1] & 0xC0 == 0x80 else { return false }
                i += 2
            } else if b0 < 0xF0 {
                guard i + 2 < n else { return false }
                let b1 = p[i + 1]
                let lo: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80, hi: UInt8 = b0 == 0xED ? 0x9F : 0xBF
                guard b1 >= lo && b1 <= hi, p[i + 2] & 0xC0 == 0x80 else { return false }
                i += 3
            } else if b0 < 0xF5 {
                guard i + 3 < n else { return false }
                let b1 = p[i + 1]
                let lo: UInt8 = b0 == 0xF0 ? 0x90 : 0x80, hi: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
                guard b1 >= lo && b1 <= hi, p[i + 2] & 0xC0 == 0x80, p[i + 3] & 0xC0 == 0x80 else { return false }
                i += 4
            } else {
                return false
            }
        }
        return true
    }
}
