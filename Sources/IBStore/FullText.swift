// Full-text helpers for chunks_fts (unicode61 tokenizer). unicode61 keeps a
// run of CJK characters as one token, so "東京都庁" would only match itself;
// the indexed copy and the query are both segmented into overlapping CJK
// bigrams instead ("東京 京都 都庁"), which makes CJK words findable.

import IBCore

public enum FullText {
    /// The text as it is indexed: CJK runs become space-separated overlapping
    /// bigrams (a single CJK character stays itself); everything else is unchanged.
    public static func segment(_ text: String) -> String {
        // Fast path: every CJK range starts at U+1100, whose UTF-8 lead byte is 0xE1.
        var mayHaveCJK = false
        for byte in text.utf8 where byte >= 0xE1 { mayHaveCJK = true; break }
        guard mayHaveCJK else { return text }
        var hasCJK = false
        for s in text.unicodeScalars where TextClasses.isCJK(s.value) { hasCJK = true; break }
        guard hasCJK else { return text }
        var out = String.UnicodeScalarView()
        var run: [Unicode.Scalar] = []
        func flush() {
            guard !run.isEmpty else { return }
            out.append(" ")
            if run.count == 1 {
                out.append(run[0])
            } else {
                for i in 0..<(run.count - 1) {
                    if i > 0 { out.append(" ") }
                    out.append(run[i]); out.append(run[i + 1])
                }
            }
            out.append(" ")
            run.removeAll(keepingCapacity: true)
        }
        for s in text.unicodeScalars {
            if TextClasses.isCJK(s.value) { run.append(s) } else { flush(); out.append(s) }
        }
        flush()
        return String(out)
    }

    /// `text` as one FTS5 string (a phrase of its tokens): in double quotes, its
    /// own double quotes doubled, so that nothing in it is FTS5 syntax.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for c in text { if c == "\"" { out += "\"\"" } else { out.append(c) } }
        return out + "\""
    }

    /// An FTS5 MATCH expression for a plain user query: every word must occur
    /// (implicit AND); a CJK word becomes the phrase of its bigrams. Words are
    /// quoted, so FTS5 syntax characters in the query cannot cause errors.
    public static func matchExpression(_ query: String) -> String {
        var terms: [String] = []
        for word in segmentWords(query) {
            let segmented = segment(word).split(separator: " ").joined(separator: " ")
            if segmented.isEmpty { continue }
            terms.append(quoted(segmented))
        }
        return terms.joined(separator: " ")
    }

    /// Splits on anything that is not a letter, digit or CJK character.
    static func segmentWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if TextClasses.isWordScalar(s) || TextClasses.isCJK(s.value) {
                current.append(s)
            } else if !current.isEmpty {
                words.append(String(current)); current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
