// Snippets: a short window of a chunk's text around the query's terms, with
// each matched term marked «like this» (U+00AB and U+00BB). Whitespace is
// collapsed to single spaces; a cut at either end is shown with "…".
// Words match a term when they equal it, or start with it for a stemmed
// (prefix) term; in CJK text every occurrence of a query bigram is marked.
import IBCore

public enum Snippet {
    public static let open = "«"
    public static let close = "»"

    struct Token {
        var scalars: ArraySlice<Unicode.Scalar>
        var matched: Bool
        var term: Int
    }

    /// The snippet of `text` for `terms`, about `words` words long.
    public static func make(_ text: String, terms: [QueryTerm], words maxWords: Int = 36,
                            open: String = Snippet.open, close: String = Snippet.close) -> String {
        // Normalise whitespace first (newlines, NBSP, hair spaces, word joiners).
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(text.unicodeScalars.count)
        var lastSpace = true
        for s in text.unicodeScalars {
            if s.value == 0x2060 || s.value == 0x200B || s.value == 0xFEFF { continue }
            if TextClasses.isWhitespaceScalar(s) {
                if !lastSpace { scalars.append(" "); lastSpace = true }
            } else {
                scalars.append(s); lastSpace = false
            }
        }
        while scalars.last == " " { scalars.removeLast() }

        // Split into tokens: words, CJK characters, and the separators between them.
        // Each token records whether (and which term) it matches.
        var tokens: [Token] = []
        var i = 0
        let plainTerms = terms.enumerated().filter { !$0.element.isCJK }
        let cjkTerms = terms.enumerated().filter { $0.element.isCJK }
        while i < scalars.count {
            let s = scalars[i]
            if TextClasses.isCJK(s.value) {
                var j = i
                while j < scalars.count && TextClasses.isCJK(scalars[j].value) { j += 1 }
                // Mark characters covered by a query bigram (or single character).
                var marks = [Int](repeating: -1, count: j - i)
                for (index, term) in cjkTerms {
                    let t = Array(term.text.unicodeScalars)
                    guard !t.isEmpty, t.count <= j - i else { continue }
                    for start in i...(j - t.count) where Array(scalars[start..<(start + t.count)]) == t {
                        for k in start..<(start + t.count) where marks[k - i] < 0 { marks[k - i] = index }
                    }
                }
                for k in i..<j {
                    tokens.append(Token(scalars: scalars[k...k], matched: marks[k - i] >= 0, term: marks[k - i]))
                }
                i = j
            } else if TextClasses.isWordScalar(s) {
                var j = i
                while j < scalars.count, !TextClasses.isCJK(scalars[j].value),
                      TextClasses.isWordScalar(scalars[j]) { j += 1 }
                let word = lowercasedWord(scalars[i..<j])
                var term = -1
                for (index, t) in plainTerms where t.prefix ? word.hasPrefix(t.text) : word == t.text {
                    term = index; break
                }
                tokens.append(Token(scalars: scalars[i..<j], matched: term >= 0, term: term))
                i = j
            } else {
                var j = i
                while j < scalars.count, !TextClasses.isCJK(scalars[j].value),
                      !(TextClasses.isWordScalar(scalars[j])) { j += 1 }
                tokens.append(Token(scalars: scalars[i..<j], matched: false, term: -1))
                i = j
            }
        }

        // Word tokens (not separators) define the window; count CJK characters as half a word.
        let wordIndices = tokens.indices.filter { tokens[$0].term >= 0 || isWordToken(tokens[$0]) }
        var start = 0, end = tokens.count
        if wordIndices.count > maxWords {
            // The window of maxWords words with the most distinct terms (then the most matches).
            var best = (distinct: -1, total: -1, first: 0)
            var counts: [Int: Int] = [:]
            var total = 0
            let window = maxWords
            for w in 0..<wordIndices.count {
                let token = tokens[wordIndices[w]]
                if token.matched { counts[token.term, default: 0] += 1; total += 1 }
                if w >= window {
                    let old = tokens[wordIndices[w - window]]
                    if old.matched {
                        counts[old.term]! -= 1; total -= 1
                        if counts[old.term] == 0 { counts[old.term] = nil }
                    }
                }
                if w >= window - 1 {
                    let first = w - window + 1
                    if counts.count > best.distinct || (counts.count == best.distinct && total > best.total) {
                        best = (counts.count, total, first)
                    }
                }
            }
            // Start a few words before the first match inside the window, when the window allows.
            var first = best.first
            if let firstMatch = (first..<min(first + window, wordIndices.count)).first(where: { tokens[wordIndices[$0]].matched }) {
                first = max(0, min(firstMatch - 4, wordIndices.count - window))
            }
            start = wordIndices[first]
            end = wordIndices[min(first + window, wordIndices.count) - 1] + 1
        }
        // Built as scalars (a String per token cost most of a snippet's time).
        var out = String.UnicodeScalarView()
        if start > 0 { out.append("…") }
        for t in tokens[start..<end] {
            if t.matched { out.append(contentsOf: open.unicodeScalars) }
            for s in t.scalars { out.append(s) }
            if t.matched { out.append(contentsOf: close.unicodeScalars) }
        }
        var text = String(out)
        if end < tokens.count {
            while text.hasSuffix(" ") { text.removeLast() }
            text += "…"
        }
        // Join adjacent marks inside CJK runs: «福»«尔» -> «福尔».
        return text.replacingAll(close + open, with: "")
    }

    /// A word's scalars as a lowercased String; ASCII (most words) without the
    /// generic scalar-by-scalar String building, which was most of a snippet's time.
    static func lowercasedWord(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count)
        for s in scalars {
            guard s.isASCII else { return String(String.UnicodeScalarView(scalars)).lowercased() }
            let v = UInt8(s.value)
            bytes.append(v >= 0x41 && v <= 0x5A ? v | 0x20 : v)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func isWordToken(_ t: Token) -> Bool {
        guard let s = t.scalars.first else { return false }
        return TextClasses.isCJK(s.value) || TextClasses.isWordScalar(s)
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        // Most snippets hold no joined marks: a byte search answers first.
        guard !target.isEmpty, ByteSearch.contains(Array(target.utf8), in: Array(utf8)), contains(target) else { return self }
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        out += rest
        return out
    }
}
