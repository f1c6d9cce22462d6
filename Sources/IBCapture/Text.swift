// Small string helpers (no Foundation): stripping, lower-casing, searching,
// numbers and words, replacing and splitting.
import IBCore

enum Text {
    /// Trims spaces and the given punctuation from both ends.
    static func strip(_ s: some StringProtocol, _ punctuation: Set<Character> = Text.edgePunctuation) -> String {
        TextClasses.trim(s) { TextClasses.isSpace($0) || punctuation.contains($0) }
    }

    static let edgePunctuation: Set<Character> = [",", ".", ":", ";", "-", "—", "–", "，", "。", "：", "；", "、", "~", "|", "!", "！"]

    /// Lowercases one character, keeping one character (so indices line up).
    static func lower(_ c: Character) -> Character {
        if c.isASCII { return c.isUppercase ? Character(c.lowercased()) : c }
        let l = c.lowercased()
        return l.count == 1 ? Character(l) : c
    }

    static func lowerChars(_ s: [Character]) -> [Character] { s.map(lower) }

    /// The index of `needle` in `hay` at or after `from`, or nil.
    static func find(_ needle: [Character], in hay: [Character], from: Int = 0, wordBoundary: Bool = false) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count else { return nil }
        var i = max(0, from)
        while i + needle.count <= hay.count {
            if hay[i] == needle[0] {
                var ok = true
                for j in 1..<needle.count where hay[i + j] != needle[j] { ok = false; break }
                if ok && wordBoundary {
                    if i > 0 && isWordChar(hay[i - 1]) { ok = false }
                    let e = i + needle.count
                    if e < hay.count && isWordChar(hay[e]) { ok = false }
                }
                if ok { return i }
            }
            i += 1
        }
        return nil
    }

    static func findLast(_ needle: [Character], in hay: [Character], wordBoundary: Bool = false) -> Int? {
        var result: Int? = nil
        var from = 0
        while let i = find(needle, in: hay, from: from, wordBoundary: wordBoundary) { result = i; from = i + 1 }
        return result
    }

    static func isWordChar(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    /// ASCII digits (and full-width digits) as an Int.
    static func int(_ s: some StringProtocol) -> Int? {
        guard !s.isEmpty else { return nil }
        var n = 0
        for c in s {
            guard let d = c.wholeNumberValue, c.isNumber else { return nil }
            n = n * 10 + d
            if n > 10_000_000 { return nil }
        }
        return n
    }

    /// ASCII or full-width digits, one scalar each.
    static func isDigit(_ c: Character) -> Bool {
        guard c.unicodeScalars.count == 1, let v = c.unicodeScalars.first?.value else { return false }
        return (0x30...0x39).contains(v) || (0xFF10...0xFF19).contains(v)
    }

    static func words(_ s: String) -> [String] {
        s.split(whereSeparator: { (c: Character) in TextClasses.isSpace(c) }).map(String.init)
    }
}

extension String {
    func replacingAll(_ target: String, _ replacement: String) -> String {
        guard !target.isEmpty else { return self }
        let chars = Array(self), t = Array(target)
        var out: [Character] = []
        var i = 0
        while i < chars.count {
            if i + t.count <= chars.count && chars[i] == t[0] && Array(chars[i..<(i + t.count)]) == t {
                out.append(contentsOf: replacement); i += t.count
            } else {
                out.append(chars[i]); i += 1
            }
        }
        return String(out)
    }

    func splitting(_ separator: String) -> [String] {
        let chars = Array(self), t = Array(separator)
        var out: [String] = []
        var current: [Character] = []
        var i = 0
        while i < chars.count {
            if i + t.count <= chars.count && chars[i] == t[0] && Array(chars[i..<(i + t.count)]) == t {
                out.append(String(current)); current = []; i += t.count
            } else {
                current.append(chars[i]); i += 1
            }
        }
        out.append(String(current))
        return out
    }
}
