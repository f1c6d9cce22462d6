// A book's text as a sequence of units: the smallest pieces a chunk may
// start or end on. A unit is a run of non-whitespace, except that each CJK
// ideograph is a unit of its own and a run too long for one chunk is cut at
// punctuation, then between scalars. Between two units lies a boundary whose
// strength says how good a place it is to cut.
import IBCore

/// Cut preference, strongest last.
enum BoundaryStrength: UInt8, Comparable {
    case inWord = 0       // inside an over-long run
    case word = 1         // whitespace, or between ideographs
    case sentence = 2     // after . ! ? 。！？ and closing quotes
    case line = 3         // one newline
    case paragraph = 4    // a blank line

    static func < (a: BoundaryStrength, b: BoundaryStrength) -> Bool { a.rawValue < b.rawValue }
}

/// Where a book's units are kept, reused from book to book: each unit's
/// first byte, the boundary in front of it, and its tokens (one byte; 255
/// means "see the writer's `large` list"). A unit's end is not stored: it is
/// where the next piece of the same run starts, else the end of its run (see
/// `Units.end`). Six bytes a unit: fresh memory is costly to a short process.
final class UnitStorage {
    /// Room for a unit per byte of a book under 2 GiB.
    static let maxUnits = Int(Int32.max) + 8
    private var starts = LargeMemory(0, reserve: maxUnits * 4)
    private var boundaries = LargeMemory(0, reserve: maxUnits)
    private var counts = LargeMemory(0, reserve: maxUnits)
    var start: UnsafeMutablePointer<Int32> { starts.base.assumingMemoryBound(to: Int32.self) }
    var before: UnsafeMutablePointer<BoundaryStrength> { boundaries.base.assumingMemoryBound(to: BoundaryStrength.self) }
    var tokens: UnsafeMutablePointer<UInt8> { counts.base.assumingMemoryBound(to: UInt8.self) }

    /// Makes room for units at indices 0..<n, keeping the first `kept`.
    func reserve(_ n: Int, keeping kept: Int) {
        starts.ensure(n * 4, keeping: kept * 4)
        boundaries.ensure(n, keeping: kept)
        counts.ensure(n, keeping: kept)
    }

    /// Whether reserve never moves the units (see LargeMemory).
    var isStable: Bool { starts.isReserved && boundaries.isReserved && counts.isReserved }

    deinit { starts.deallocate(); boundaries.deallocate(); counts.deallocate() }
}

/// Where a pass over the text stands between runs: newlines in the current
/// gap, and whether the last run ended a sentence.
struct UnitState {
    var newlines = 0
    var prevRunEndsSentence = false
}

/// Appends one part's units to the storage from index `base`, with no
/// checks: room for one unit per byte of the part was reserved, and no
/// unit is shorter than a byte.
struct UnitWriter {
    let start: UnsafeMutablePointer<Int32>
    let before: UnsafeMutablePointer<BoundaryStrength>
    let tokens: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    /// Units of 255 tokens or more (only with very large chunk sizes): index and tokens.
    private(set) var large: [(index: Int, tokens: Int)] = []

    init(_ storage: UnitStorage, base: Int) {
        start = storage.start + base
        before = storage.before + base
        tokens = storage.tokens + base
    }

    @inline(__always)
    mutating func append(_ s: Int, _ t: Int, _ b: BoundaryStrength) {
        start[count] = Int32(truncatingIfNeeded: s)
        before[count] = b
        if t < 255 {
            tokens[count] = UInt8(truncatingIfNeeded: t)
        } else {
            tokens[count] = 255
            large.append((count, t))
        }
        count += 1
    }
}

/// A book's units, made in one or two parts: the second part's units sit
/// elsewhere in the storage (`secondBase`).
struct Units {
    let start: UnsafePointer<Int32>
    let before: UnsafePointer<BoundaryStrength>
    let counts: UnsafePointer<UInt8>
    let count: Int
    let firstCount: Int
    let secondBase: Int
    /// Tokens of the units that have 255 or more, by (logical) index.
    let large: [Int: Int]

    init(_ storage: UnitStorage, _ first: UnitWriter, _ second: UnitWriter? = nil) {
        start = UnsafePointer(storage.start); before = UnsafePointer(storage.before); counts = UnsafePointer(storage.tokens)
        firstCount = first.count
        secondBase = second.map { $0.start - storage.start } ?? 0
        count = first.count + (second?.count ?? 0)
        var large: [Int: Int] = [:]
        for (index, tokens) in first.large { large[index] = tokens }
        for (index, tokens) in second?.large ?? [] { large[first.count + index] = tokens }
        self.large = large
    }

    @inline(__always) func index(_ i: Int) -> Int { i < firstCount ? i : i &- firstCount &+ secondBase }
    @inline(__always) func start(_ i: Int) -> Int { Int(start[index(i)]) }
    @inline(__always) func before(_ i: Int) -> BoundaryStrength { before[index(i)] }
    /// Tokens of unit i.
    @inline(__always) func tokens(_ i: Int) -> Int {
        let t = counts[index(i)]
        return t < 255 ? Int(t) : large[i]!
    }

    /// Where unit i ends: where the next piece of its run starts, else where its run (or ideograph) does.
    func end(_ i: Int, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        if i + 1 < count && before(i + 1) == .inWord { return start(i + 1) }
        let s = start(i)
        let (v, length) = TextScan.scalar(b, s)
        if TextClasses.isBERTChineseCharacter(v) { return s + length }
        return TextScan.runEnd(b, from: s, to: b.count)
    }
}

enum TextScan {
    /// Decodes the scalar at `i` (valid UTF-8 assumed: it came from a Swift String).
    @inline(__always)
    static func scalar(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> (value: UInt32, length: Int) {
        let b0 = UInt32(b[i])
        if b0 < 0x80 { return (b0, 1) }
        if b0 < 0xE0 { return ((b0 & 0x1F) << 6 | UInt32(b[i + 1] & 0x3F), 2) }
        if b0 < 0xF0 { return ((b0 & 0x0F) << 12 | UInt32(b[i + 1] & 0x3F) << 6 | UInt32(b[i + 2] & 0x3F), 3) }
        return ((b0 & 0x07) << 18 | UInt32(b[i + 1] & 0x3F) << 12 | UInt32(b[i + 2] & 0x3F) << 6 | UInt32(b[i + 3] & 0x3F), 4)
    }

    /// The end of the run of anything but whitespace and ideographs that starts at i, before `limit`.
    @inline(__always)
    static func runEnd(_ b: UnsafeBufferPointer<UInt8>, from i: Int, to limit: Int) -> Int {
        var i = i
        while i < limit {
            let c = b[i]
            if c > 0x20 && c < 0x80 { i += 1; continue }
            if c < 0x80 {
                if isASCIIWhitespace(c) { break }
                i += 1
                continue
            }
            let (v, length) = scalar(b, i)
            if isWhitespace(v) || TextClasses.isBERTChineseCharacter(v) { break }
            i += length
        }
        return i
    }

    /// Space, tab, LF, VT, FF, CR.
    @inline(__always)
    static func isASCIIWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c &- 0x09 < 5 }

    /// Unicode's White_Space property, which is what BERT splits words on.
    @inline(__always)
    static func isWhitespace(_ v: UInt32) -> Bool {
        if v < 0x80 { return isASCIIWhitespace(UInt8(v)) }
        switch v {
        case 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    static func isSentenceEnd(_ v: UInt32) -> Bool {
        switch v {
        case 0x2E, 0x21, 0x3F, 0x2026, 0x3002, 0xFF01, 0xFF1F, 0xFF0E: return true  // . ! ? … 。！？．
        default: return false
        }
    }

    /// Closing quotes and brackets that may follow a sentence end.
    static func isCloser(_ v: UInt32) -> Bool {
        switch v {
        case 0x22, 0x27, 0x29, 0x5D, 0x2019, 0x201D, 0x300D, 0x300F, 0xFF09, 0x3011, 0xBB: return true
        default: return false
        }
    }

    static func isPunctuation(_ v: UInt32) -> Bool {
        if v < 0x80 {
            return (0x21...0x2F).contains(v) || (0x3A...0x40).contains(v) || (0x5B...0x60).contains(v) || (0x7B...0x7E).contains(v)
        }
        guard let s = Unicode.Scalar(v) else { return false }
        switch s.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation: return true
        default: return false
        }
    }

    /// endsSentence, with the common ASCII endings decided at once.
    @inline(__always)
    static func endsSentenceQuick(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        switch b[e - 1] {
        case 0x2E, 0x21, 0x3F: return true                                  // . ! ?
        case 0x22, 0x27, 0x29, 0x5D, 0x80...0xFF: return endsSentence(b, s, e)  // a closer, or not ASCII
        default: return false
        }
    }

    /// Whether the run [s, e) ends a sentence: a sentence mark, then only closers.
    static func endsSentence(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        var i = e
        while i > s {
            var j = i - 1
            while j > s && b[j] & 0xC0 == 0x80 { j -= 1 }
            let v = scalar(b, j).value
            if isSentenceEnd(v) { return true }
            if !isCloser(v) { return false }
            i = j
        }
        return false
    }
}
