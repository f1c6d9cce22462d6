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

struct Units {
    var start: [Int32] = []      // byte offset in the book text
    var end: [Int32] = []        // byte offset, exclusive
    var tokens: [Int32] = []     // pieces the unit makes on its own
    var before: [BoundaryStrength] = []  // the boundary in front of the unit
    var count: Int { start.count }

    mutating func append(_ s: Int, _ e: Int, _ t: Int, _ b: BoundaryStrength) {
        start.append(Int32(s)); end.append(Int32(e)); tokens.append(Int32(t)); before.append(b)
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

    static let asciiWhitespace: [Bool] = (0..<128).map { $0 == 0x20 || (0x09...0x0D).contains($0) }

    /// Unicode's White_Space property, which is what BERT splits words on.
    @inline(__always)
    static func isWhitespace(_ v: UInt32) -> Bool {
        if v < 0x80 { return asciiWhitespace[Int(v)] }
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
