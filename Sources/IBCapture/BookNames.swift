// Book names as the reader writes them: cleaned of prepositions and edge
// punctuation, titles in 《》, "TITLE by AUTHOR", page counts and lists of books.
import IBCore

extension CaptureParser {
    // MARK: book names

    /// Cleans what remains of a header into a book name, or nil.
    static func bookName(_ s: String, allowNumeric: Bool = false) -> String? {
        if let t = bracketTitles(s).first { return t }
        var t = strip(s)
        var changed = true
        while changed {
            changed = false
            let lower = t.lowercased()
            for p in EnglishLexicon.bookPrepositions where lower.hasPrefix(p + " ") || lower == p {
                t = strip(String(t.dropFirst(p.count)))
                changed = true
                break
            }
            for p in EnglishLexicon.bookTrailingPrepositions where lower.hasSuffix(p) {
                t = strip(String(t.dropLast(p.count)))
                changed = true
                break
            }
        }
        if t.isEmpty { return nil }
        let lower = t.lowercased()
        if EnglishLexicon.notBookNames.contains(lower) || ChineseLexicon.notBookNames.contains(lower) { return nil }
        if Lexicon.firstPrefix(of: lower, in: EnglishLexicon.notBookPrefixes) != nil { return nil }
        if !t.contains(where: { $0.isLetter }) && !(allowNumeric && t.count >= 2 && t.allSatisfy(\.isNumber)) { return nil }
        return t
    }

    static let stripSet: Set<Character> = [",", ".", ":", ";", "-", "—", "–", "，", "。", "：", "；", "、", "~", "|", "(", ")", "（", "）",
                                           "[", "]", "\"", "“", "”", "'", "‘", "’", "«", "»", "「", "」", "『", "』", "!", "！", "?", "？", "*", "_"]

    static func strip(_ s: String) -> String { Text.strip(s, stripSet) }

    /// Titles inside 《》 (or 〈〉), in order.
    static func bracketTitles(_ s: String) -> [String] {
        var out: [String] = []
        var current: String? = nil
        for c in s {
            if ChineseLexicon.titleOpeners.contains(c) { current = "" }
            else if ChineseLexicon.titleClosers.contains(c) { if let t = current, !TextClasses.trim(t).isEmpty { out.append(TextClasses.trim(t)) }; current = nil }
            else if current != nil { current!.append(c) }
        }
        return out
    }

    /// Splits "Sapiens by Yuval Noah Harari" at the last " by ".
    static func splitAuthor(_ s: String) -> (String, String?) {
        let chars = Array(s)
        let lower = Text.lowerChars(chars)
        if let i = Text.findLast(Array(EnglishLexicon.authorMarker), in: lower), i > 0 {
            let title = strip(String(chars[..<i]))
            let author = strip(String(chars[(i + EnglishLexicon.authorMarker.count)...]))
            if !title.isEmpty && !author.isEmpty && author.first!.isLetter { return (title, author) }
        }
        // "Sapiens, Harari" is too ambiguous; "作者：X" / "X 著".
        for marker in ChineseLexicon.authorMarkers {
            if let i = Text.find(Array(marker), in: chars) {
                let title = strip(String(chars[..<i]))
                let author = strip(String(chars[(i + marker.count)...]))
                if !title.isEmpty && !author.isEmpty { return (title, author) }
            }
        }
        return (s, nil)
    }

    /// "(443 pages)", ", 443 pages", "443页", "共443页".
    static func extractPageCount(_ s: String) -> (Int?, String) {
        let chars = Array(s)
        let lower = Text.lowerChars(chars)
        for kw in SharedLexicon.pageCountSuffixes {
            if let i = Text.find(Array(kw), in: lower) {
                var j = i
                while j > 0, Text.isDigit(lower[j - 1]) { j -= 1 }
                if j < i, var n = Text.int(String(chars[j..<i])) {
                    var a = j
                    // "-5 pages": kept negative so the capture is refused, never stored as 5.
                    if a > 0, SharedLexicon.minusSigns.contains(chars[a - 1]) { n = -n; a -= 1 }
                    if a > 0, chars[a - 1] == ChineseLexicon.pageCountPrefix { a -= 1 }
                    let after = i + kw.count
                    if after < lower.count && lower[after].isLetter && kw != String(ChineseLexicon.page) { continue }
                    let rest = String(chars[..<a]) + String(chars[after...])
                    return (n, rest.replacingAll("()", "").replacingAll("（）", ""))
                }
            }
        }
        return (nil, s)
    }

    static func splitBooks(_ s: String) -> [String] {
        if !bracketTitles(s).isEmpty { return bracketTitles(s) }
        var parts: [String] = [s]
        for sep in SharedLexicon.bookListSeparators {
            parts = parts.flatMap { $0.splitting(sep) }
        }
        return parts.map { strip($0) }.compactMap { p in
            var t = p
            for v in EnglishLexicon.bookListVerbs where t.lowercased().hasPrefix(v) { t = String(t.dropFirst(v.count)) }
            return bookName(t)
        }
    }

    static func removeBrackets(_ s: String) -> String {
        var out = ""
        var depth = 0
        for c in s {
            if ChineseLexicon.titleOpeners.contains(c) { depth += 1; continue }
            if ChineseLexicon.titleClosers.contains(c) { depth = max(0, depth - 1); continue }
            if depth == 0 { out.append(c) }
        }
        return out
    }
}
