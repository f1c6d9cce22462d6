// A book's text as a sequence of units: the smallest pieces a chunk may
// start or end on. A unit is a run of non-whitespace, except that each CJK
// ideograph is a unit of its own and a run too long for one chunk is cut at
// punctuation, then between scalars. Between two units lies a boundary whose
// strength says how good a place it is to cut.

/// Cut preference, strongest last.
enum BoundaryStrength: UInt8, Comparable {
    case inWord = 0       // inside an over-long run
    case word = 1         // whitespace, or between ideographs
    case sentence = 2     // after . ! ? 。！？ and closing quotes
    case line = 3         // one newline
    case paragraph = 4    // a blank line

    static func < (a: BoundaryStrength, b: BoundaryStrength) -> Bool { a.rawValue < b.rawValue }
}

/// Units in raw storage that grows by doubling; `prefix` holds running token
/// totals (prefix[i] is the tokens of units 0..<i), which is all cutting needs.
/// One owner frees it; copies share it.
struct Units {
    var start: UnsafeMutablePointer<Int32>    // byte offset in the book text
    var end: UnsafeMutablePointer<Int32>      // byte offset, exclusive
    var before: UnsafeMutablePointer<BoundaryStrength>  // the boundary in front of the unit
    var prefix: UnsafeMutablePointer<Int32>   // count + 1 running totals
    private(set) var count = 0
    private var capacity: Int
    private var memory: [LargeMemory]
    /// Where makeUnits leaves the values its cache prefetches loaded, so they are not optimised away.
    var touched: UInt64 = 0

    init(capacity: Int) {
        let capacity = max(capacity, 16)
        memory = [LargeMemory(capacity * 4), LargeMemory(capacity * 4), LargeMemory(capacity), LargeMemory((capacity + 1) * 4)]
        self.capacity = capacity
        start = memory[0].base.assumingMemoryBound(to: Int32.self)
        end = memory[1].base.assumingMemoryBound(to: Int32.self)
        before = memory[2].base.bindMemory(to: BoundaryStrength.self, capacity: capacity)
        prefix = memory[3].base.assumingMemoryBound(to: Int32.self)
        prefix[0] = 0
    }

    func deallocate() { memory.forEach { $0.deallocate() } }

    /// Tokens of unit i on its own.
    @inline(__always) func tokens(_ i: Int) -> Int { Int(prefix[i + 1] - prefix[i]) }

    @inline(__always)
    mutating func append(_ s: Int, _ e: Int, _ t: Int, _ b: BoundaryStrength) {
        if count == capacity { grow(count + 1) }
        start[count] = Int32(truncatingIfNeeded: s); end[count] = Int32(truncatingIfNeeded: e)
        before[count] = b
        prefix[count + 1] = prefix[count] &+ Int32(truncatingIfNeeded: t)
        count += 1
    }

    private mutating func grow(_ needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        memory[0].grow(to: newCapacity * 4, keeping: count * 4)
        memory[1].grow(to: newCapacity * 4, keeping: count * 4)
        memory[2].grow(to: newCapacity, keeping: count)
        memory[3].grow(to: (newCapacity + 1) * 4, keeping: (count + 1) * 4)
        start = memory[0].base.assumingMemoryBound(to: Int32.self)
        end = memory[1].base.assumingMemoryBound(to: Int32.self)
        before = memory[2].base.assumingMemoryBound(to: BoundaryStrength.self)
        prefix = memory[3].base.assumingMemoryBound(to: Int32.self)
        capacity = newCapacity
    }

    /// Appends `other`'s units, the first with boundary `first`.
    mutating func append(contentsOf other: Units, first: BoundaryStrength) {
        guard other.count > 0 else { return }
        if count + other.count > capacity { grow(count + other.count) }
        (start + count).update(from: other.start, count: other.count)
        (end + count).update(from: other.end, count: other.count)
        (before + count).update(from: other.before, count: other.count)
        before[count] = first
        let base = prefix[count]
        for i in 1...other.count { prefix[count + i] = base &+ other.prefix[i] }
        count += other.count
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

    static func isIdeograph(_ v: UInt32) -> Bool {
        (0x4E00...0x9FFF).contains(v) || (0x3400...0x4DBF).contains(v) || (0x20000...0x2A6DF).contains(v)
            || (0x2A700...0x2B73F).contains(v) || (0x2B740...0x2B81F).contains(v) || (0x2B820...0x2CEAF).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0x2F800...0x2FA1F).contains(v)
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
