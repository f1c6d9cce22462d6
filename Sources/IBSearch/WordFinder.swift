// Whether a text holds a word, or a word starting with a stem, without
// splitting the text into words: hybrid search asks this of every candidate
// chunk for each of the query's terms (how much of the query a passage holds,
// Fusion.swift), and building a set of a chunk's words cost more than the
// rest of the fusion. A word is what QueryText.words reads as one: a run of
// letters and digits, CJK characters apart.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

struct WordFinder {
    /// The text lowercased, as UTF-8.
    private let bytes: [UInt8]
    /// For each byte of `bytes`: whether the scalar it belongs to came from a
    /// letter or digit of a non-CJK word in the original text (a lowercase
    /// mapping may add a combining mark, "İ" to "i̇": the word is not split there).
    private let inWord: [Bool]

    /// ASCII is lowercased byte by byte, other scalars by their Unicode mapping
    /// (as String.lowercased() does, which builds its result a scalar at a time).
    init(_ text: String) {
        var out: [UInt8] = [], word: [Bool] = []
        out.reserveCapacity(text.utf8.count); word.reserveCapacity(text.utf8.count)
        for s in text.unicodeScalars {
            let isWord = TextClasses.isWordScalar(s) && !TextClasses.isCJK(s.value)
            if s.isASCII {
                let v = UInt8(s.value)
                out.append(v >= 0x41 && v <= 0x5A ? v | 0x20 : v)
                word.append(isWord)
            } else {
                let lowered = s.properties.lowercaseMapping.utf8
                out.append(contentsOf: lowered)
                word.append(contentsOf: repeatElement(isWord, count: lowered.count))
            }
        }
        bytes = out
        inWord = word
    }

    /// Whether `word` (lowercased, not CJK) occurs as a whole word, or as the
    /// start of one when `prefix`.
    func contains(word: String, prefix: Bool) -> Bool {
        let needle = Array(word.utf8)
        guard !needle.isEmpty, needle.count <= bytes.count else { return false }
        return bytes.withUnsafeBufferPointer { text in
            needle.withUnsafeBufferPointer { n in
                var from = 0
                while let at = ByteSearch.firstIndex(of: n, in: text, from: from) {
                    let startsWord = at == 0 || !inWord[at - 1]
                    let endsWord = at + n.count == text.count || !inWord[at + n.count]
                    if startsWord && (prefix || endsWord) { return true }
                    from = at + 1
                }
                return false
            }
        }
    }

    /// Whether `phrase` occurs anywhere (a multi-word synonym: a plain substring).
    func contains(phrase: String) -> Bool {
        let needle = Array(phrase.utf8)
        guard !needle.isEmpty else { return true }
        return bytes.withUnsafeBufferPointer { text in
            needle.withUnsafeBufferPointer { n in ByteSearch.firstIndex(of: n, in: text) != nil }
        }
    }
}
