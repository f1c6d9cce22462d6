// Book names as the reader writes them: cleaned of prepositions and edge
// punctuation, titles in 《》, "TITLE by AUTHOR", page counts and lists of books.

extension CaptureParser {
    // MARK: book names

    static let bookPrepositions = ["from", "in", "on", "of", "for", "about", "re", "regarding", "to", "at", "with", "into", "the book", "book", "reading"]

    /// Cleans what remains of a header into a book name, or nil.
    static func bookName(_ s: String, allowNumeric: Bool = false) -> String? {
        if let t = bracketTitles(s).first { return t }
        var t = strip(s)
        var changed = true
        while changed {
            changed = false
            let lower = t.lowercased()
            for p in bookPrepositions where lower.hasPrefix(p + " ") || lower == p {
                t = strip(String(t.dropFirst(p.count)))
                changed = true
                break
            }
            for p in [" on", " of", " in", " from", " at", " for"] where lower.hasSuffix(p) {
                t = strip(String(t.dropLast(p.count)))
                changed = true
                break
            }
        }
        if t.isEmpty { return nil }
        let lower = t.lowercased()
        // Words that are not books.
        let notBooks: Set<String> = ["it", "this", "that", "this book", "the book", "book", "today", "now", "here", "page", "again",
                                     "this one", "current", "current book", "a", "an", "the", "me", "my book", "so far", "yesterday",
                                     "tonight", "this morning", "this evening", "just now", "more", "total", "in total", "的",
                                     "self", "myself", "me", "future me", "later", "you"]
        if notBooks.contains(lower) { return nil }
        if lower.hasPrefix("page ") || lower.hasPrefix("p. ") || lower.hasPrefix("pages ") { return nil }
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
            if c == "《" || c == "〈" { current = "" }
            else if c == "》" || c == "〉" { if let t = current, !Text.trim(t).isEmpty { out.append(Text.trim(t)) }; current = nil }
            else if current != nil { current!.append(c) }
        }
        return out
    }

    /// Splits "Sapiens by Yuval Noah Harari" at the last " by ".
    static func splitAuthor(_ s: String) -> (String, String?) {
        let chars = Array(s)
        let lower = Text.lowerChars(chars)
        if let i = Text.findLast(Array(" by "), in: lower), i > 0 {
            let title = strip(String(chars[..<i]))
            let author = strip(String(chars[(i + 4)...]))
            if !title.isEmpty && !author.isEmpty && author.first!.isLetter { return (title, author) }
        }
        // "Sapiens, Harari" is too ambiguous; "作者：X" / "X 著".
        for marker in ["作者：", "作者:", "作者"] {
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
        for kw in [" pages", " pp", " pgs", "页", " page"] {
            if let i = Text.find(Array(kw), in: lower) {
                var j = i
                while j > 0, Text.isDigit(lower[j - 1]) { j -= 1 }
                if j < i, let n = Text.int(String(chars[j..<i])) {
                    var a = j
                    if a > 0, chars[a - 1] == "共" { a -= 1 }
                    let after = i + kw.count
                    if after < lower.count && lower[after].isLetter && kw != "页" { continue }
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
        for sep in [", and ", " and ", ", ", " & ", " + ", "、", "和", "与", "及", ";", "，"] {
            parts = parts.flatMap { $0.splitting(sep) }
        }
        return parts.map { strip($0) }.compactMap { p in
            var t = p
            for v in ["finish ", "read ", "complete ", "finishing ", "reading "] where t.lowercased().hasPrefix(v) { t = String(t.dropFirst(v.count)) }
            return bookName(t)
        }
    }

    static func removeBrackets(_ s: String) -> String {
        var out = ""
        var depth = 0
        for c in s {
            if c == "《" || c == "〈" { depth += 1; continue }
            if c == "》" || c == "〉" { depth = max(0, depth - 1); continue }
            if depth == 0 { out.append(c) }
        }
        return out
    }
}
