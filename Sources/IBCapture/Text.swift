// Small string helpers (no Foundation): trimming, searching, fuzzy keywords.

enum Text {
    static func isSpace(_ c: Character) -> Bool {
        c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\u{3000}" || c == "\u{00A0}"
    }

    static func trim(_ s: some StringProtocol) -> String {
        var start = s.startIndex, end = s.endIndex
        while start < end, isSpace(s[start]) { start = s.index(after: start) }
        while end > start, isSpace(s[s.index(before: end)]) { end = s.index(before: end) }
        return String(s[start..<end])
    }

    /// Trims spaces and the given punctuation from both ends.
    static func strip(_ s: some StringProtocol, _ punctuation: Set<Character> = Text.edgePunctuation) -> String {
        let chars = Array(s)
        var a = 0, b = chars.count
        while a < b, isSpace(chars[a]) || punctuation.contains(chars[a]) { a += 1 }
        while b > a, isSpace(chars[b - 1]) || punctuation.contains(chars[b - 1]) { b -= 1 }
        return String(chars[a..<b])
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

    static func isCJK(_ c: Character) -> Bool {
        guard let s = c.unicodeScalars.first else { return false }
        switch s.value {
        case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x2FA1F: return true
        default: return false
        }
    }

    static func hasCJK(_ s: some StringProtocol) -> Bool { s.contains(where: isCJK) }

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
        s.split(whereSeparator: { (c: Character) in isSpace(c) }).map(String.init)
    }
}

enum Fuzzy {
    /// Damerau-Levenshtein (optimal string alignment) distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        let n = x.count, m = y.count
        if n == 0 { return m }
        if m == 0 { return n }
        var d = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in 0...n { d[i][0] = i }
        for j in 0...m { d[0][j] = j }
        for i in 1...n {
            for j in 1...m {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[n][m]
    }

    /// Whether a word is one of the keywords, allowing one typo in words of 4+ letters
    /// (two in words of 8+) and never changing the first letter.
    static func isKeyword(_ word: String, _ keywords: [String]) -> Bool {
        let w = word.lowercased()
        if keywords.contains(w) { return true }
        guard w.count >= 4 else { return false }
        for k in keywords where k.count >= 4 && k.first == w.first {
            let allowed = k.count >= 8 ? 2 : 1
            if abs(k.count - w.count) <= allowed && distance(w, k) <= allowed { return true }
        }
        return false
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
