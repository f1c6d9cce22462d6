// Character classes every stage agrees on: what is a space, what is Chinese,
// what is CJK, and trimming by a class. One definition each, so a title, a
// query and a captured line are read the same way everywhere.

public enum TextClasses {
    // MARK: spaces and trimming

    /// A space a person types or pastes: ASCII blanks and line breaks (a CR LF
    /// pair is one Character), the no-break space and the ideographic space.
    @inlinable
    public static func isSpace(_ c: Character) -> Bool {
        c.unicodeScalars.allSatisfy { s in
            switch s.value {
            case 0x20, 0x09, 0x0A, 0x0D, 0xA0, 0x3000: return true
            default: return false
            }
        }
    }

    /// ASCII blanks and line breaks only: for machine text (headers, URLs, file contents).
    @inlinable
    public static func isASCIISpace(_ c: Character) -> Bool {
        c.unicodeScalars.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    }

    /// A letter or digit of a word (Unicode Alphabetic, or any numeric type).
    /// ASCII is answered without the Unicode property tables: search reads every
    /// candidate chunk's words, and those lookups were a tenth of a search's time.
    @inlinable
    public static func isWordScalar(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if v < 0x80 { return (0x61...0x7A).contains(v | 0x20) || (0x30...0x39).contains(v) }
        return s.properties.isAlphabetic || s.properties.numericType != nil
    }

    /// Unicode White_Space, with the same ASCII shortcut.
    @inlinable
    public static func isWhitespaceScalar(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if v < 0x80 { return v == 0x20 || (0x09...0x0D).contains(v) }
        return s.properties.isWhitespace
    }

    /// A space or a tab (POSIX "blank"): what separates a key from its value on one line.
    @inlinable
    public static func isBlank(_ c: Character) -> Bool { c == " " || c == "\t" }

    /// The text without the characters at either end for which `isEdge` holds.
    @inlinable
    public static func trim(_ s: some StringProtocol, where isEdge: (Character) -> Bool = isSpace) -> String {
        var start = s.startIndex, end = s.endIndex
        while start < end, isEdge(s[start]) { start = s.index(after: start) }
        while end > start, isEdge(s[s.index(before: end)]) { end = s.index(before: end) }
        return String(s[start..<end])
    }

    // MARK: scripts

    /// A Han ideograph: the unified blocks (A through H), and the compatibility ideographs.
    /// What "written in Chinese" means to the capture grammar.
    @inlinable
    public static func isHan(_ v: UInt32) -> Bool {
        switch v {
        case 0x3400...0x4DBF, 0x4E00...0x9FFF,  // Ext. A, the main block
             0xF900...0xFAFF,                   // compatibility ideographs
             0x20000...0x2FA1F,                 // Ext. B-F and I, compatibility supplement
             0x30000...0x323AF:                 // Ext. G, H
            return true
        default:
            return false
        }
    }

    /// Han, kana or Hangul: the scripts written without spaces between words,
    /// matched character by character (titles, full-text search).
    @inlinable
    public static func isCJK(_ v: UInt32) -> Bool {
        switch v {
        case 0x3040...0x30FF, 0x31F0...0x31FF,  // Hiragana, Katakana (+ phonetic extensions)
             0xAC00...0xD7AF, 0x1100...0x11FF:  // Hangul syllables, Jamo
            return true
        default:
            return isHan(v)
        }
    }

    /// Takes two columns on a terminal (East Asian wide and full-width): CJK,
    /// kana, Hangul, CJK punctuation and symbols, full-width forms. Also where
    /// text may be cut between two characters without a space.
    @inlinable
    public static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2E80...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0xFE30...0xFE4F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFF:
            return true
        default:
            return false
        }
    }

    /// The first scalar of a character is Han.
    @inlinable
    public static func isHan(_ c: Character) -> Bool { c.unicodeScalars.first.map { isHan($0.value) } ?? false }

    /// Whether any character of the text is Han.
    @inlinable
    public static func containsHan(_ s: some StringProtocol) -> Bool { s.contains(where: isHan) }

    /// BERT's "Chinese character" table, exactly (BasicTokenizer._is_chinese_char):
    /// the tokenizer splits these into words of their own. It is part of the
    /// model's definition, not a script test: it leaves out Ext. F, G, H and I,
    /// and must stay as it is for the token ids to match the reference.
    @inlinable
    public static func isBERTChineseCharacter(_ v: UInt32) -> Bool {
        (0x4E00...0x9FFF).contains(v) || (0x3400...0x4DBF).contains(v) || (0x20000...0x2A6DF).contains(v)
            || (0x2A700...0x2B73F).contains(v) || (0x2B740...0x2B81F).contains(v) || (0x2B820...0x2CEAF).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0x2F800...0x2FA1F).contains(v)
    }
}

extension StringProtocol {
    /// Without any of `characters` at either end (compared as Characters).
    public func trimmingCharacters(in characters: String) -> String { TextClasses.trim(self, where: { characters.contains($0) }) }
    /// Without spaces at either end (TextClasses.isSpace, so a lone CR or LF too).
    public var trimmed: String { TextClasses.trim(self) }
}
