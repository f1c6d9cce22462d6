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
    /// The text is read as UTF-8 bytes: a chunk is mostly ASCII, and decoding every
    /// scalar was most of the cost (hybrid search reads ~50 chunks per question).
    init(_ text: String) {
        var text = text   // withUTF8 makes a bridged string contiguous first
        (bytes, inWord) = text.withUTF8 { utf8 -> ([UInt8], [Bool]) in
            // A scalar's lowercase mapping is at most three times its UTF-8 bytes.
            let room = utf8.count * 3
            var written = 0
            var word: [Bool] = []
            let out = [UInt8](unsafeUninitializedCapacity: room) { out, outCount in
                word = [Bool](unsafeUninitializedCapacity: room) { isWord, wordCount in
                    var i = 0
                    while i < utf8.count {
                        let b = utf8[i]
                        if b < 0x80 {
                            let lower = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
                            out[written] = lower
                            isWord[written] = (lower >= 0x61 && lower <= 0x7A) || (b >= 0x30 && b <= 0x39)
                            written += 1
                            i += 1
                            continue
                        }
                        // A String's UTF-8 is valid: a lead byte and its continuation bytes.
                        let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
                        var value = UInt32(b) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                        for k in 1..<length { value = value << 6 | UInt32(utf8[i + k] & 0x3F) }
                        i += length
                        let s = Unicode.Scalar(value) ?? "\u{FFFD}"
                        let letter = TextClasses.isWordScalar(s) && !TextClasses.isCJK(s.value)
                        for byte in s.properties.lowercaseMapping.utf8 where written < room {
                            out[written] = byte
                            isWord[written] = letter
                            written += 1
                        }
                    }
                    wordCount = written
                }
                outCount = written
            }
            return (out, word)
        }
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
