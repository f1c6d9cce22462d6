// Balanced line breaking for quote cards: the text is cut into pieces that may
// not be split (a word; one CJK character with the punctuation that must stay
// beside it), and lines are chosen to be as even as possible (least squared
// slack over every line, the last included), never leaving one word alone on
// the last line when there is another way. Widths are estimated per character
// in ems, so the SVG and the PNG break at the same places.

public enum LineBreaking {
    public struct Piece: Equatable, Sendable {
        public var text: String
        /// Width in ems.
        public var width: Double
        /// A space separates it from the piece before (Latin words); CJK pieces join directly.
        public var spaceBefore: Bool
    }

    /// Punctuation that may not start a line (it stays with the character before).
    static let noLineStart: Set<Character> = Set("，。、；：！？）」』”’》〉】…·,.;:!?)]}%—")
    /// Punctuation that may not end a line (it stays with the character after).
    static let noLineEnd: Set<Character> = Set("（「『“‘《〈【([{")

    static func isWide(_ c: Character) -> Bool {
        guard let v = c.unicodeScalars.first?.value else { return false }
        return (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
            || (0xFFE0...0xFFE6).contains(v) || (0x20000...0x3FFFD).contains(v)
    }

    /// Whether the text is mostly CJK (it then takes the CJK face first, for its punctuation).
    public static func isMostlyCJK(_ s: String) -> Bool {
        var wide = 0, other = 0
        for c in s where !c.isWhitespace { if isWide(c) { wide += 1 } else { other += 1 } }
        return wide > other
    }

    /// An estimate of a character's advance in ems, close to DejaVu's and Noto's.
    public static func advance(_ c: Character) -> Double {
        if isWide(c) { return 1.0 }
        switch c {
        case " ": return 0.32
        case "i", "l", "j", "'", "|", ".", ",", ":", ";", "!", "I": return 0.3
        case "f", "t", "r", "(", ")", "[", "]", "-", "‘", "’", "\"": return 0.42
        case "“", "”": return 0.45
        case "m", "w": return 0.92
        case "M", "W": return 0.98
        case "—": return 1.0
        default:
            if c.isUppercase { return 0.74 }
            if c.isNumber { return 0.64 }
            return 0.61
        }
    }

    public static func width(_ s: String) -> Double { s.reduce(0) { $0 + advance($1) } }

    /// The text cut into pieces that stay whole: words, and single CJK characters with the
    /// punctuation that may not be parted from them.
    public static func pieces(_ text: String) -> [Piece] {
        var units: [Piece] = []
        var word = ""
        var space = false
        func add(_ s: String) {
            units.append(Piece(text: s, width: width(s), spaceBefore: space && !units.isEmpty))
            space = false
        }
        for c in text {
            if c.isWhitespace {
                if !word.isEmpty { add(word); word = "" }
                space = true
            } else if isWide(c) {
                if !word.isEmpty { add(word); word = "" }
                add(String(c))
            } else {
                word.append(c)
            }
        }
        if !word.isEmpty { add(word) }
        var out: [Piece] = []
        for u in units {
            if var last = out.last, !u.spaceBefore,
               u.text.allSatisfy({ noLineStart.contains($0) }) || last.text.allSatisfy({ noLineEnd.contains($0) }) {
                last.text += u.text
                last.width += u.width
                out[out.count - 1] = last
            } else {
                out.append(u)
            }
        }
        return out
    }

    /// The widths of a line of pieces `range`, in ems.
    static func lineWidth(_ pieces: [Piece], _ range: Range<Int>) -> Double {
        var w = 0.0
        for i in range {
            w += pieces[i].width
            if i > range.lowerBound && pieces[i].spaceBefore { w += advance(" ") }
        }
        return w
    }

    /// The text of a line of pieces.
    static func lineText(_ pieces: [Piece], _ range: Range<Int>) -> String {
        var s = ""
        for i in range {
            if i > range.lowerBound && pieces[i].spaceBefore { s += " " }
            s += pieces[i].text
        }
        return s
    }

    /// Balanced lines no wider than `measure` ems (a piece wider than it gets a line of its own).
    public static func balanced(_ pieces: [Piece], measure: Double) -> [String] {
        let n = pieces.count
        guard n > 0 else { return [] }
        let infinity = Double.greatestFiniteMagnitude / 4
        // best[i]: the least cost of setting pieces i..<n; next[i]: where the first line ends.
        var best = [Double](repeating: infinity, count: n + 1)
        var next = [Int](repeating: n, count: n + 1)
        best[n] = 0
        for i in stride(from: n - 1, through: 0, by: -1) {
            var width = 0.0
            for j in (i + 1)...n {
                let k = j - 1
                width += pieces[k].width + (k > i && pieces[k].spaceBefore ? advance(" ") : 0)
                if width > measure && j > i + 1 { break }
                let slack = max(0, measure - width)
                var cost = slack * slack + (width > measure ? 1e6 : 0)
                if j == n && j == i + 1 && n > 1 { cost += measure * measure * 4 }  // a lone last word
                if best[j] + cost < best[i] { best[i] = best[j] + cost; next[i] = j }
            }
        }
        var lines: [String] = []
        var i = 0
        while i < n { lines.append(lineText(pieces, i..<next[i])); i = next[i] }
        return lines
    }

    /// The widest line's estimated width, in ems.
    public static func widest(_ lines: [String]) -> Double { lines.map(width).max() ?? 0 }
}
