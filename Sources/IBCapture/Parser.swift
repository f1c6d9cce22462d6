// The natural-language capture parser, English and Simplified Chinese. It
// turns one line into a `Capture` (intent and fields) without touching the
// library; book names stay as the words the reader wrote, resolved later by
// TitleMatcher.

public struct Capture: Sendable, Equatable {
    public enum Intent: String, Sendable { case book, quote, note, question, progress, plan, unknown }

    public var intent: Intent
    /// book: reading | want | added.
    public var status: String? = nil
    /// The book named in the line, as written (nil: the current book).
    public var book: String? = nil
    /// plan: the books named, as written.
    public var books: [String] = []
    public var author: String? = nil
    /// quote, note, question: the text.
    public var text: String? = nil
    /// quote/note/question: the page; progress: the page reached.
    public var page: Int? = nil
    /// A page reference whose number is no page (below 1, or too large to be
    /// one), as written: "-3", "0". The capture is refused, never stored without it.
    public var badPage: String? = nil
    public var pageEnd: Int? = nil
    /// progress: pages read (a delta).
    public var pagesRead: Int? = nil
    /// The book's total pages, when the line says ("page 120 of 300", "443 pages").
    public var pageCount: Int? = nil
    public var percent: Int? = nil
    public var chapter: String? = nil
    /// progress: the book was finished.
    public var finished = false
    /// plan: the due date.
    public var due: Day? = nil
    /// plan: a daily goal ("30 pages a day").
    public var dailyPages: Int? = nil
    public var tags: [String] = []
    /// "en" or "zh": the language of the line.
    public var language = "en"
    /// unknown: why (a message key).
    public var reason: String? = nil

    public init(intent: Intent) { self.intent = intent }

    /// Takes a page reference: its first page and last page, or (`reached`,
    /// progress) the last page alone.
    mutating func setPage(_ f: CaptureParser.Found, reached: Bool = false) {
        badPage = f.bad
        if f.bad != nil { page = nil; pageEnd = nil; return }
        if reached { page = f.end ?? f.value } else { page = f.value; pageEnd = f.end }
    }

    /// A compact, stable description used by the test table:
    /// `intent key=value ...` with keys in a fixed order, nil fields left out.
    public var summary: String {
        var parts = [intent.rawValue]
        if let status { parts.append("status=\(status)") }
        if let book { parts.append("book=\(book)") }
        if !books.isEmpty { parts.append("books=\(books.joined(separator: "|"))") }
        if let author { parts.append("author=\(author)") }
        if let page { parts.append("page=\(page)") }
        if let badPage { parts.append("bad_page=\(badPage)") }
        if let pageEnd { parts.append("page_end=\(pageEnd)") }
        if let pagesRead { parts.append("pages_read=\(pagesRead)") }
        if let pageCount { parts.append("page_count=\(pageCount)") }
        if let percent { parts.append("percent=\(percent)") }
        if let chapter { parts.append("chapter=\(chapter)") }
        if finished { parts.append("finished") }
        if let due { parts.append("due=\(due)") }
        if let dailyPages { parts.append("daily=\(dailyPages)") }
        if !tags.isEmpty { parts.append("tags=\(tags.joined(separator: ","))") }
        if let text { parts.append("text=\(text)") }
        return parts.joined(separator: " ")
    }
}

public struct CaptureParser: Sendable {
    public var today: Day

    public init(today: Day) { self.today = today }

    public func parse(_ line: String) -> Capture {
        let raw = Text.trim(line)
        if raw.isEmpty { return unknown("empty", "en") }
        let (tags, rest) = CaptureParser.extractTags(raw)
        let body = Text.trim(rest)
        let zh = Text.hasCJK(CaptureParser.outsideQuotes(body)) || body.contains("《")
        var capture: Capture
        if body.isEmpty {
            capture = unknown("empty", zh ? "zh" : "en")
        } else if zh, let c = parseChinese(body) {
            capture = c
        } else if let c = parseEnglish(body) {
            capture = c
        } else if let c = parseChinese(body) {
            capture = c
        } else {
            capture = unknown("not_understood", zh ? "zh" : "en")
        }
        capture.language = zh ? "zh" : "en"
        capture.tags = capture.intent == .unknown ? [] : tags
        // A quote may be only an ellipsis ("..."); a note or question needs words.
        if capture.intent != .unknown, let text = capture.text,
           text.isEmpty || (capture.intent != .quote && !text.contains(where: { $0.isLetter || $0.isNumber })) {
            capture = unknown("empty_text:" + capture.intent.rawValue, capture.language)
        }
        return capture
    }

    func unknown(_ reason: String, _ language: String) -> Capture {
        var c = Capture(intent: .unknown)
        c.reason = reason
        c.language = language
        return c
    }

    // MARK: tags

    /// `#word` tags outside quoted text; returns the tags (lower case, in order) and the line without them.
    static func extractTags(_ s: String) -> ([String], String) {
        let chars = Array(s)
        var tags: [String] = []
        var out: [Character] = []
        var i = 0
        var quoteClose: Character? = nil
        while i < chars.count {
            let c = chars[i]
            if let close = quoteClose {
                out.append(c)
                if c == close { quoteClose = nil }
                i += 1
                continue
            }
            if let close = quotePairs[c], !(c == "'" ) {
                quoteClose = close
                out.append(c)
                i += 1
                continue
            }
            if (c == "#" || c == "＃"), i + 1 < chars.count, chars[i + 1].isLetter,
               i == 0 || Text.isSpace(chars[i - 1]) || chars[i - 1] == "," || chars[i - 1] == "，" || Text.isCJK(chars[i - 1])
                || "\"”」』»’)）。".contains(chars[i - 1]) {
                var j = i + 1
                var tag = ""
                while j < chars.count, chars[j].isLetter || chars[j].isNumber || chars[j] == "_" || chars[j] == "-" {
                    tag.append(chars[j]); j += 1
                }
                if j < chars.count, chars[j] == "#" { j += 1 }  // Weibo style #标签#
                while tag.hasSuffix("-") { tag.removeLast() }
                let t = tag.lowercased()
                if !tags.contains(t) { tags.append(t) }
                // Drop one adjoining space so the text reads naturally.
                if j < chars.count, Text.isSpace(chars[j]), out.last.map(Text.isSpace) ?? true { j += 1 }
                i = j
                continue
            }
            out.append(c)
            i += 1
        }
        var text = String(out)
        while text.contains("  ") { text = text.replacingAll("  ", " ") }
        return (tags, Text.trim(text))
    }

    static let quotePairs: [Character: Character] = [
        "\"": "\"", "“": "”", "„": "“", "«": "»", "「": "」", "『": "』", "‘": "’", "'": "'", "”": "”", "〝": "〞",
    ]

    /// The line without quoted spans (to decide the language from the reader's own words).
    static func outsideQuotes(_ s: String) -> String {
        var out = ""
        var close: Character? = nil
        for c in s {
            if let cl = close { if c == cl { close = nil }; continue }
            if let cl = quotePairs[c], c != "'" && c != "‘" { close = cl; continue }
            out.append(c)
        }
        return out
    }

    // MARK: quoted text

    /// Finds the first quoted span: (before, inside, after), or nil.
    static func quoted(_ s: String) -> (before: String, inside: String, after: String)? {
        let chars = Array(s)
        for (i, c) in chars.enumerated() {
            guard let close = quotePairs[c] else { continue }
            // A straight or curly apostrophe only opens a quote at the start or after a space/colon.
            if c == "'" || c == "‘" {
                if i > 0 && !(Text.isSpace(chars[i - 1]) || chars[i - 1] == ":") { continue }
            }
            var j: Int? = nil
            var k = chars.count - 1
            // The closing mark: the last one in the line (quotes may contain the same mark inside).
            while k > i {
                if chars[k] == close || (close == "”" && chars[k] == "\"") || (close == "\"" && chars[k] == "”") { j = k; break }
                k -= 1
            }
            if c == "'" || c == "‘" {
                guard let jj = j, jj + 1 == chars.count || !chars[jj + 1].isLetter else { continue }
            }
            let before = String(chars[..<i])
            if let j {
                return (before, String(chars[(i + 1)..<j]), String(chars[(j + 1)...]))
            }
            // Unclosed: to the end.
            return (before, String(chars[(i + 1)...]), "")
        }
        return nil
    }

    // MARK: pages and chapters

    struct Found {
        var value: Int; var end: Int?; var range: Range<Int>
        /// The number as written when it is no page: below 1 ("-3", "0") or too large.
        var bad: String? = nil
    }

    /// The largest page number taken as a page (Text.int's limit).
    static let maxPage = 10_000_000

    /// A page reference anywhere: p. 47, p47, pp. 47-48, page 47, pg 47, 第47页, 47页, P47.
    static func findPage(_ chars: [Character]) -> Found? {
        let lower = Text.lowerChars(chars)
        var i = 0
        while i < lower.count {
            let c = lower[i]
            // 第 N 页 / N 页
            if c == "第" || Text.isDigit(c) || ChineseNumber.digits[c] != nil || c == "十" || c == "百" {
                var j = c == "第" ? i + 1 : i
                while j < lower.count, lower[j] == " " { j += 1 }
                // 第-3页, 第负3页: a page below 1, refused later.
                var negative = false
                if c == "第", j + 1 < lower.count, "-−–负".contains(lower[j]), Text.isDigit(lower[j + 1]) || ChineseNumber.digits[lower[j + 1]] != nil {
                    negative = true
                    j += 1
                }
                let numStart = j
                while j < lower.count, Text.isDigit(lower[j]) || ChineseNumber.digits[lower[j]] != nil || ChineseNumber.units[lower[j]] != nil { j += 1 }
                let written = String(chars[numStart..<j])
                var value = ChineseNumber.parse(written)
                // Digits too many to be a page: kept as written, refused later.
                let tooLarge = value == nil && j > numStart && written.allSatisfy(Text.isDigit)
                if tooLarge { value = 0 }
                var end: Int? = nil
                if value != nil, j < lower.count, lower[j] == "-" || lower[j] == "–" || lower[j] == "~" || lower[j] == "至" || lower[j] == "到" {
                    var k = j + 1
                    let s2 = k
                    while k < lower.count, Text.isDigit(lower[k]) { k += 1 }
                    if k > s2, let e = Text.int(String(chars[s2..<k])) {
                        var m = k
                        while m < lower.count, lower[m] == " " { m += 1 }
                        if m < lower.count, lower[m] == "页" { end = e; j = k }
                    }
                }
                var k = j
                while k < lower.count, lower[k] == " " { k += 1 }
                if value != nil, j > numStart, k < lower.count, lower[k] == "页",
                   c == "第" || i == 0 || !Text.isDigit(lower[i - 1]) {
                    if negative || tooLarge || value! < 1 || value! > maxPage {
                        return Found(value: 0, end: nil, range: i..<(k + 1), bad: (negative ? "-" : "") + written)
                    }
                    if let e = end, e < value! { end = nil }
                    return Found(value: value!, end: end, range: i..<(k + 1))
                }
                value = nil
            }
            // Latin forms need a word boundary before.
            if (c == "p" || c == "@") && (i == 0 || !Text.isWordChar(lower[i - 1])) {
                var j = i + 1
                let word: String
                if c == "@" {
                    word = "@"
                } else {
                    var w = "p"
                    while j < lower.count, lower[j].isLetter, lower[j].isASCII { w.append(lower[j]); j += 1 }
                    word = w
                }
                let accepted = ["p", "pp", "pg", "pgs", "page", "pages", "pag", "pge", "pgae", "paeg", "pag", "@"]
                if accepted.contains(word) || (word.count >= 4 && Fuzzy.isKeyword(word, ["page", "pages"])) {
                    if j < lower.count, lower[j] == "." { j += 1 }
                    while j < lower.count, lower[j] == " " || lower[j] == "#" { j += 1 }
                    // "p. -3": a page below 1, refused later.
                    var negative = false
                    if j + 1 < lower.count, "-−–".contains(lower[j]), Text.isDigit(lower[j + 1]) { negative = true; j += 1 }
                    let numStart = j
                    while j < lower.count, Text.isDigit(lower[j]) { j += 1 }
                    if j > numStart, j == lower.count || !lower[j].isLetter || lower[j] == "f" {
                        let written = String(chars[numStart..<j])
                        let parsed = Text.int(written)
                        if negative || parsed == nil || parsed! < 1 {
                            return Found(value: 0, end: nil, range: i..<j, bad: (negative ? "-" : "") + written)
                        }
                    }
                    if j > numStart, let value = Text.int(String(chars[numStart..<j])), j == lower.count || !lower[j].isLetter || lower[j] == "f" {
                        var end: Int? = nil
                        var k = j
                        if k < lower.count, lower[k] == "f" { k += 1; if k < lower.count && lower[k] == "f" { k += 1 }; j = k }
                        else if k < lower.count, lower[k] == "-" || lower[k] == "–" {
                            k += 1
                            let s2 = k
                            while k < lower.count, Text.isDigit(lower[k]) { k += 1 }
                            if k > s2, let e = Text.int(String(chars[s2..<k])) {
                                // 47-48, 147-8
                                var full = e
                                let vs = String(value), es = String(chars[s2..<k])
                                if es.count < vs.count { full = Int(String(vs.dropLast(es.count)) + es) ?? e }
                                if full >= value { end = full == value ? nil : full }
                                j = k
                            }
                        }
                        return Found(value: value, end: end, range: i..<j)
                    }
                }
            }
            i += 1
        }
        return nil
    }

    /// chapter 3, ch. 3, chap 3, 第3章, 第三章.
    static func findChapter(_ chars: [Character]) -> (String, Range<Int>)? {
        let lower = Text.lowerChars(chars)
        for kw in ["chapter", "chap.", "chap", "ch.", "ch", "chpater", "chaper", "part", "section", "sec."] {
            var from = 0
            while let i = Text.find(Array(kw), in: lower, from: from) {
                from = i + 1
                if i > 0 && Text.isWordChar(lower[i - 1]) { continue }
                var j = i + kw.count
                if j < lower.count, lower[j].isLetter, !kw.hasSuffix(".") { continue }
                while j < lower.count, lower[j] == " " || lower[j] == "#" { j += 1 }
                let s = j
                while j < lower.count, lower[j].isLetter || lower[j].isNumber || lower[j] == "." { j += 1 }
                while j > s, lower[j - 1] == "." { j -= 1 }
                guard j > s else { continue }
                var value = String(chars[s..<j])
                let words = ["one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12"]
                if let w = words[value.lowercased()] { value = w }
                guard value.first!.isNumber || value.allSatisfy({ "ivxlcIVXLC".contains($0) }) || words.values.contains(value) else { continue }
                let name = kw.hasPrefix("part") ? "part " : (kw.hasPrefix("sec") ? "section " : "")
                return (name + value, i..<j)
            }
        }
        // 第N章 / 第N节 / 第N部分
        if let i = chars.firstIndex(of: "第") {
            var j = i + 1
            while j < chars.count, Text.isDigit(chars[j]) || ChineseNumber.digits[chars[j]] != nil || ChineseNumber.units[chars[j]] != nil { j += 1 }
            if j > i + 1, j < chars.count, chars[j] == "章" || chars[j] == "节" || chars[j] == "回" || chars[j] == "部" {
                if let n = ChineseNumber.parse(String(chars[(i + 1)..<j])) {
                    var end = j + 1
                    if chars[j] == "部", end < chars.count, chars[end] == "分" { end += 1 }
                    return (String(n), i..<end)
                }
            }
        }
        return nil
    }

    static func removing(_ chars: [Character], _ range: Range<Int>) -> [Character] {
        var out = Array(chars[..<range.lowerBound])
        out.append(" ")
        out.append(contentsOf: chars[range.upperBound...])
        return out
    }

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

    // MARK: English

    static let quoteWords = ["quote", "quotes", "q", "highlight", "hl", "excerpt", "quoting", "citation", "passage", "cite", "quotation", "line"]
    static let noteWords = ["note", "notes", "thought", "thoughts", "idea", "ideas", "reflection", "comment", "memo", "insight", "n", "observation", "remark", "takeaway", "summary", "annotation"]
    static let questionWords = ["question", "questions", "ask", "wondering", "query", "q?", "wonder"]
    static let planWords = ["plan", "goal", "target", "challenge", "planning", "schedule"]

    func parseEnglish(_ s0: String) -> Capture? {
        var s = s0
        for p in ["my ", "a ", "quick ", "new ", "another ", "random ", "side "] where s.lowercased().hasPrefix(p) {
            let rest = String(s.dropFirst(p.count))
            let w = String(rest.prefix(while: { $0.isLetter })).lowercased()
            if !w.isEmpty && (Fuzzy.isKeyword(w, CaptureParser.noteWords) || Fuzzy.isKeyword(w, CaptureParser.quoteWords) || Fuzzy.isKeyword(w, CaptureParser.questionWords))
                && w.count > 2 {
                s = rest; break
            }
        }
        let chars = Array(s)
        // The first word, without trailing punctuation.
        var firstEnd = 0
        while firstEnd < chars.count, chars[firstEnd].isLetter || chars[firstEnd] == "?" || chars[firstEnd] == "'" || chars[firstEnd] == "’" { firstEnd += 1 }
        let first = String(chars[..<firstEnd]).lowercased()
        let afterFirst = String(chars[firstEnd...])

        if !first.isEmpty {
            let next = afterFirst.first
            let keywordish = next == nil || next == ":" || next == " " || next == "(" || next == "-" || next == "," || next == "：" || next == "["
            if keywordish {
                let singleLetter = first.count <= 2
                let unquoted = Text.strip(s, ["\"", "”", "'", "’", "」", " "])
                if first == "q" && next == ":" && (unquoted.hasSuffix("?") || unquoted.hasSuffix("？")) {
                    return keywordCapture(.question, afterFirst)
                }
                if (!singleLetter || next == ":") && Fuzzy.isKeyword(first, CaptureParser.quoteWords) && !(first == "line" && next != ":") {
                    return keywordCapture(.quote, afterFirst)
                }
                if (!singleLetter || next == ":") && Fuzzy.isKeyword(first, CaptureParser.noteWords) {
                    if first == "summary" && next != ":" { return nil }
                    return keywordCapture(.note, afterFirst)
                }
                if Fuzzy.isKeyword(first, CaptureParser.questionWords) && (next == ":" || first.hasPrefix("question") || first == "q?") {
                    return keywordCapture(.question, afterFirst)
                }
                if Fuzzy.isKeyword(first, CaptureParser.planWords) {
                    if let p = parsePlan(afterFirst, keyword: true) { return p }
                    if next == ":" || next == "：" { return unknown("plan_no_date", "en") }
                }
            }
        }
        // A line that opens with a quotation mark.
        if let q = CaptureParser.quoted(s), Text.trim(q.before).isEmpty {
            var c = Capture(intent: .quote)
            c.text = Text.trim(q.inside)
            applyTrailingMeta(q.after, to: &c)
            return c
        }
        let lower = s.lowercased()
        // Plans without a keyword: "finish X by Friday", "I want to finish X by the end of the month".
        for prefix in ["i plan to ", "plan to ", "i want to finish", "i'd like to finish", "i need to finish", "aim to ", "i aim to ", "finish ", "finishing ", "complete ", "i will finish ", "i'll finish ", "read "] where lower.hasPrefix(prefix) {
            if let p = parsePlan(s, keyword: false) { return p }
        }
        if let b = parseBookIntent(s) { return b }
        // `p. 47: "..."`: a page, then a quotation.
        if let q = CaptureParser.quoted(s), Text.words(q.inside).count >= 2 {
            var before = Array(q.before)
            if let f = CaptureParser.findPage(before) { before = CaptureParser.removing(before, f.range) }
            if CaptureParser.strip(String(before)).isEmpty {
                var c = Capture(intent: .quote)
                c.text = Text.trim(q.inside)
                applyTrailingMeta(q.before + " " + q.after, to: &c)
                return c
            }
        }
        if let p = parseProgress(s) { return p }
        // A question in plain words.
        if s.hasSuffix("?") || s.hasSuffix("？") {
            var c = Capture(intent: .question)
            c.text = s
            let cs = Array(s)
            if let ch = CaptureParser.findChapter(cs) { c.chapter = ch.0 }
            return c
        }
        // A quotation somewhere with a page: `The obstacle "..." p. 4`.
        if let q = CaptureParser.quoted(s), CaptureParser.findPage(Array(q.before + " " + q.after)) != nil {
            var c = Capture(intent: .quote)
            c.text = Text.trim(q.inside)
            applyTrailingMeta(q.before + " " + q.after, to: &c)
            return c
        }
        return nil
    }

    /// `KEYWORD [header] : content` for quotes, notes and questions.
    func keywordCapture(_ intent: Capture.Intent, _ rest: String) -> Capture? {
        var c = Capture(intent: intent)
        let chars = Array(rest)
        // Header ends at the first colon outside quotes, or at the first quotation mark.
        var split: Int? = nil
        var quoteAt: Int? = nil
        for (i, ch) in chars.enumerated() {
            if ch == ":" || ch == "：" { split = i; break }
            if CaptureParser.quotePairs[ch] != nil && ch != "'" && ch != "’" { quoteAt = i; break }
        }
        var header = ""
        var content: String
        if let split {
            header = String(chars[..<split])
            content = String(chars[(split + 1)...])
        } else if let quoteAt {
            header = String(chars[..<quoteAt])
            content = String(chars[quoteAt...])
        } else {
            // "Quote p. 47 The obstacle...", "Note - text", "Note text".
            var t = Array(Text.strip(rest, ["-", "—", "–", ","]))
            let tl = Text.lowerChars(t)
            if let f = CaptureParser.findPage(t), f.range.lowerBound <= 4 {
                c.setPage(f)
                t = Array(t[f.range.upperBound...])
            } else if let ch = CaptureParser.findChapter(t), ch.1.lowerBound <= 4 {
                c.chapter = ch.0
                t = Array(t[ch.1.upperBound...])
            } else if tl.starts(with: Array("on ")) || tl.starts(with: Array("about ")) {
                // "Thought on chapter 3 ..." handled above; "Note on X" without colon is just text.
            }
            content = String(t)
        }
        parseHeader(header, into: &c)
        content = Text.strip(content, [" ", "-", "—", "–"])
        // "Note: p. 12 - text": a page right at the start of the content.
        if c.page == nil, let f = CaptureParser.findPage(Array(content)), f.range.lowerBound == 0 {
            let after = Text.trim(String(Array(content)[f.range.upperBound...]))
            let rest = Text.strip(after, [" ", "-", "—", "–", ":", "：", ",", ")", "）"])
            if !rest.isEmpty, let sep = after.first, "-—–:：,)）".contains(sep) { c.setPage(f); content = rest }
        }
        if intent == .question, let q = CaptureParser.quoted(content), Text.trim(q.before).isEmpty, Text.trim(q.after).isEmpty {
            content = Text.trim(q.inside)
        }
        if intent == .quote, let q = CaptureParser.quoted(content), Text.trim(q.before).isEmpty {
            c.text = Text.trim(q.inside)
            applyTrailingMeta(q.after, to: &c)
        } else if intent == .quote {
            // Unquoted text; a trailing "(p. 47)" or "- Book, p. 12" is metadata.
            var t = Array(content)
            if let f = CaptureParser.findPage(t), c.page == nil, f.range.upperBound >= t.count - 2, f.range.lowerBound > 0 {
                c.setPage(f)
                t = Array(t[..<f.range.lowerBound])
            }
            c.text = Text.strip(String(t), ["(", "（", "-", "—", ",", " "])
        } else {
            var t = Array(content)
            if c.page == nil, let f = CaptureParser.findPage(t), f.range.upperBound >= t.count - 1 {
                // "(p. 47)" at the very end of a note.
                var a = f.range.lowerBound, b = f.range.upperBound
                if a > 0, t[a - 1] == "(" || t[a - 1] == "（", b < t.count, t[b] == ")" || t[b] == "）" { a -= 1; b += 1 }
                if b >= t.count { c.setPage(f); t = Array(t[..<a]) }
            }
            var text = Text.strip(String(t), [" ", "-", "—"])
            while let last = text.last, last == "," || last == ";" || last == "，" || last == "(" || last == "（" { text.removeLast(); text = Text.trim(text) }
            c.text = text
        }
        return c
    }

    /// "p. 47", "on chapter 3", "from Meditations p. 12", "(Meditations, p 12)", "about 《沉思录》".
    func parseHeader(_ header: String, into c: inout Capture) {
        var h = Array(header)
        if let f = CaptureParser.findPage(h) { c.setPage(f); h = CaptureParser.removing(h, f.range) }
        if let ch = CaptureParser.findChapter(h) { c.chapter = ch.0; h = CaptureParser.removing(h, ch.1) }
        var rest = String(h)
        let (t, author) = CaptureParser.splitAuthor(rest)
        if author != nil { rest = t; c.author = author }
        if let b = CaptureParser.bookName(rest) { c.book = b }
    }

    /// After a closing quote: "(p. 47)", " - Meditations, p. 12", "— Marcus Aurelius, Meditations", "——《沉思录》第12页".
    func applyTrailingMeta(_ after: String, to c: inout Capture) {
        var m = Array(after)
        if let f = CaptureParser.findPage(m) { c.setPage(f); m = CaptureParser.removing(m, f.range) }
        if let ch = CaptureParser.findChapter(m) { c.chapter = ch.0; m = CaptureParser.removing(m, ch.1) }
        var rest = String(m)
        if let t = CaptureParser.bracketTitles(rest).first { c.book = t; return }
        let (t, author) = CaptureParser.splitAuthor(rest)
        if author != nil { rest = t; c.author = author }
        if let b = CaptureParser.bookName(rest) { c.book = b }
    }

    func parsePlan(_ s: String, keyword: Bool) -> Capture? {
        var body = CaptureParser.strip(s)
        var lower = body.lowercased()
        for p in ["i plan to ", "plan to ", "to ", "i want to ", "i'd like to ", "i need to ", "aim to ", "i aim to ", "i will ", "i'll "] where lower.hasPrefix(p) {
            body = String(body.dropFirst(p.count)); lower = body.lowercased(); break
        }
        var c = Capture(intent: .plan)
        // Daily goal: "30 pages a day".
        let words = Text.words(lower)
        for (i, w) in words.enumerated() where i + 2 < words.count || i + 1 < words.count {
            if let n = Text.int(w), ["pages", "pp", "page"].contains(words[i + 1]),
               i + 2 < words.count && ["a", "per", "each", "every"].contains(words[i + 2]) || (i + 2 < words.count && words[i + 2] == "daily") {
                c.dailyPages = n
            }
        }
        // The due date: the longest tail after " by ", " before ", " until ", " till ", " in ", " within ", " on " that parses.
        let chars = Array(body)
        let lowerChars = Text.lowerChars(chars)
        var best: (Int, Day)? = nil
        for marker in [" by ", " before ", " until ", " till ", " in ", " within ", " on ", " due ", " for "] {
            var from = 0
            while let i = Text.find(Array(marker), in: lowerChars, from: from) {
                from = i + 1
                let tail = String(chars[(i + marker.count)...])
                let keep = marker == " in " || marker == " within " ? String(marker.dropFirst()) + tail : tail
                if let d = DateParser.parse(keep, today: today) {
                    if best == nil || i < best!.0 { best = (i, d) }
                }
            }
        }
        var booksText = body
        if let (i, d) = best {
            c.due = d
            booksText = String(chars[..<i])
        } else {
            // "finish X end of month", without a preposition.
            for marker in ["end of", "this weekend", "tomorrow", "next week"] {
                if let i = Text.find(Array(marker), in: lowerChars, wordBoundary: true), i > 0, let d = DateParser.parse(String(chars[i...]), today: today) {
                    c.due = d; booksText = String(chars[..<i]); break
                }
            }
        }
        if c.due == nil && c.dailyPages == nil { return nil }
        var bl = booksText.lowercased()
        var stripped = false
        for v in ["finish reading ", "finish ", "read ", "complete ", "finishing ", "reading ", "get through ", "be done with ", "done with "] where Text.strip(bl).hasPrefix(v) {
            booksText = String(Text.strip(booksText).dropFirst(v.count)); bl = booksText.lowercased(); stripped = true; break
        }
        if !stripped, let w = Text.words(booksText).first, Fuzzy.isKeyword(w, ["finish", "complete", "reading"]) {
            booksText = String(Text.strip(booksText).dropFirst(w.count))
        }
        if c.dailyPages != nil {
            // Remove the goal words from the book list.
            if let r = Text.find(Array("pages"), in: Text.lowerChars(Array(booksText))) {
                var a = r
                while a > 0, Array(booksText)[a - 1] == " " || Text.isDigit(Array(booksText)[a - 1]) { a -= 1 }
                booksText = String(Array(booksText)[..<a])
                for v in ["read ", "finish "] where booksText.lowercased().hasPrefix(v) { booksText = String(booksText.dropFirst(v.count)) }
            }
        }
        c.books = CaptureParser.splitBooks(booksText)
        if c.books.isEmpty && !keyword && c.dailyPages == nil { return nil }
        return c
    }

    static let readingWords = ["reading", "i'm reading", "im reading", "i am reading", "currently reading", "now reading", "started reading",
                               "start reading", "starting", "started", "start", "began reading", "began", "begin reading", "begin", "beginning",
                               "just started", "picked up", "starting to read", "started to read", "i started", "i'm starting", "re-reading", "rereading", "reading:", "currently:"]
    static let wantWords = ["want to read", "i want to read", "wanna read", "to read", "to-read", "tbr", "wishlist", "want", "would like to read",
                            "i'd like to read", "add to wishlist", "someday read", "i should read", "should read", "must read", "next up", "up next"]
    static let addWords = ["add", "added", "new book", "bought", "library add", "add book", "book", "new", "buy", "purchased", "borrowed"]

    func parseBookIntent(_ s0: String) -> Capture? {
        var s = s0
        for p in ["i just ", "just ", "i have ", "i've ", "today i ", "i ", "finally "] where s.lowercased().hasPrefix(p) {
            let rest = String(s.dropFirst(p.count))
            if rest.lowercased().hasPrefix("start") || rest.lowercased().hasPrefix("began") || rest.lowercased().hasPrefix("begin")
                || rest.lowercased().hasPrefix("want") || rest.lowercased().hasPrefix("added") || rest.lowercased().hasPrefix("bought")
                || rest.lowercased().hasPrefix("picked") || rest.lowercased().hasPrefix("am reading") || rest.lowercased().hasPrefix("would like") {
                s = rest; break
            }
        }
        if s.lowercased().hasPrefix("am reading ") { s = String(s.dropFirst(3)) }
        let lower = s.lowercased()
        var status: String? = nil
        var rest = ""
        let groups: [([String], String)] = [(CaptureParser.wantWords, "want"), (CaptureParser.readingWords, "reading"), (CaptureParser.addWords, "added")]
        var bestLen = 0
        for (words, st) in groups {
            for w in words where w.count > bestLen {
                let colonOnly = w == "book" || w == "new"
                if (!colonOnly && lower.hasPrefix(w + " ")) || lower.hasPrefix(w + ":") || lower.hasPrefix(w + "：") {
                    status = st; rest = String(s.dropFirst(w.count)); bestLen = w.count
                }
            }
        }
        if status == nil {
            // One typo in the first word: "readng Sapiens", "strated Dune".
            let ws = Text.words(s)
            if ws.count >= 2 {
                let w0 = ws[0].lowercased()
                if Fuzzy.isKeyword(w0, ["reading", "started", "starting"]) && w0 != "read" { status = "reading"; rest = String(s.dropFirst(ws[0].count)) }
                else if Fuzzy.isKeyword(w0, ["added"]) && w0.count >= 5 { status = "added"; rest = String(s.dropFirst(ws[0].count)) }
                else if Fuzzy.isKeyword(w0, ["want"]) {
                    // "wnat to read X", "Want ot read X"
                    var skip = 1
                    if ws.count > 2, ["to", "ot", "tp", "yo"].contains(ws[1].lowercased()) { skip = 2 }
                    if ws.count > skip + 1, Fuzzy.isKeyword(ws[skip].lowercased(), ["read"]) || ["red", "rad", "reda"].contains(ws[skip].lowercased()) { skip += 1 }
                    if skip > 1 { status = "want"; rest = ws[skip...].joined(separator: " ") }
                }
            }
        }
        guard let st = status else { return nil }
        var body = CaptureParser.strip(rest)
        if st == "want", let w = Text.words(body).first, ["ot", "tp", "yo"].contains(w.lowercased()), Text.words(body).count > 2,
           Fuzzy.isKeyword(Text.words(body)[1].lowercased(), ["read"]) || Text.words(body)[1].lowercased() == "red" {
            body = Text.words(body).dropFirst(2).joined(separator: " ")
        }
        // "Started page 40" and "reading 20 pages" are progress.
        if CaptureParser.findPage(Array(body)).map({ $0.range.lowerBound == 0 }) ?? false { return nil }
        if let f = Text.words(body).first, Text.int(f) != nil, Text.words(body).count > 1,
           ["pages", "pp", "page", "more", "%"].contains(Text.words(body)[1].lowercased()) { return nil }
        let bl = body.lowercased()
        for p in ["reading ", "to read ", "the book ", "book ", "on ", "now: ", "now ", "currently: "] where bl.hasPrefix(p) { body = CaptureParser.strip(String(body.dropFirst(p.count))); break }
        for suffix in [" today", " again", " now", " tonight", " this morning", " yesterday", " at last", " finally", " someday", " soon", " later",
                       " one day", " next", " sometime", " this year", " this week", " this weekend", " next"] where body.lowercased().hasSuffix(suffix) {
            body = String(body.dropLast(suffix.count))
        }
        var c = Capture(intent: .book)
        c.status = st
        let (count, withoutCount) = CaptureParser.extractPageCount(body)
        c.pageCount = count
        let (title, author) = CaptureParser.splitAuthor(withoutCount)
        c.author = author
        if let t = CaptureParser.bracketTitles(title).first { c.book = t } else {
            guard let t = CaptureParser.bookName(title, allowNumeric: true) else { return nil }
            c.book = t
        }
        return c
    }

    static let numberWords: [String: Int] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
        "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "a hundred": 100, "hundred": 100,
        "a few": 3, "a couple": 2, "couple": 2,
    ]

    func parseProgress(_ s: String) -> Capture? {
        var body = CaptureParser.strip(s)
        var lower = body.lowercased()
        for p in ["progress: ", "progress ", "update: ", "today: ", "today - ", "reading: ", "status: ", "log: "] where lower.hasPrefix(p) {
            body = String(body.dropFirst(p.count)); lower = body.lowercased(); break
        }
        for p in ["today i ", "today, i ", "i just ", "just ", "i finally ", "finally ", "i ", "i've ", "ive ", "have ", "today ", "yesterday i ", "yay ", "yay, ", "woohoo "] where lower.hasPrefix(p) {
            body = String(body.dropFirst(p.count)); lower = body.lowercased()
        }
        for suffix in [" today", " tonight", " this morning", " this evening", " so far", " yesterday", " just now", " last night", "!"] where lower.hasSuffix(suffix) {
            body = String(body.dropLast(suffix.count)); lower = body.lowercased()
        }
        body = CaptureParser.strip(body); lower = body.lowercased()
        var c = Capture(intent: .progress)

        // finished X
        let ws = Text.words(lower)
        if let w0 = ws.first {
            var skip = 0
            if Fuzzy.isKeyword(w0, ["finished", "completed", "finish"]) { skip = 1 }
            else if w0 == "done" { skip = 1; if ws.count > 1 && ws[1] == "with" { skip = 2 } }
            if skip > 0 {
                var rest = Array(Text.words(body).dropFirst(skip))
                if rest.first?.lowercased() == "reading" { rest.removeFirst() }
                let restText = rest.joined(separator: " ")
                if CaptureParser.findPage(Array(restText)) == nil && !(rest.first.map { Text.int($0) != nil } ?? false) {
                    c.finished = true
                    let (title, author) = CaptureParser.splitAuthor(restText)
                    c.author = author
                    c.book = CaptureParser.bracketTitles(title).first ?? CaptureParser.bookName(title)
                    return c
                }
            }
        }
        if ws.count >= 2, ws[ws.count - 1] == "done" || Fuzzy.isKeyword(ws[ws.count - 1], ["finished"]), ws.count <= 8 {
            // "Sapiens finished", "Meditations: done".
            let title = Text.words(body).dropLast().joined(separator: " ")
            c.finished = true
            c.book = CaptureParser.bookName(title)
            return c
        }

        // percent: "45%", "halfway through X"
        let chars = Array(body)
        for p in ["i'm halfway through", "im halfway through", "i am halfway through", "halfway through", "half way through", "halfway into", "halfway done with", "halfway"]
            where lower.hasPrefix(p) {
            c.percent = 50
            c.book = CaptureParser.bookName(String(body.dropFirst(p.count)))
            return c
        }
        if let pi = chars.firstIndex(where: { $0 == "%" || $0 == "％" }) {
            var j = pi
            while j > 0, Text.isDigit(chars[j - 1]) { j -= 1 }
            if j < pi, let n = Text.int(String(chars[j..<pi])), n <= 100 {
                c.percent = n
                if n == 100 { c.finished = true }
                var rest = String(chars[(pi + 1)...])
                let rl = rest.lowercased()
                for p in [" through", " done", " of", " into", " in"] where rl.hasPrefix(p) { rest = String(rest.dropFirst(p.count)); break }
                c.book = CaptureParser.bookName(rest) ?? CaptureParser.bookName(String(chars[..<j]).replacingAll("at", ""))
                return c
            }
        }

        // pages read: "read 20 pages [of X]", "20 pages", "+20 pages", "read twenty more pages"
        var words = Text.words(body)
        var lw = words.map { $0.lowercased() }
        for (i, w) in lw.enumerated() {
            var n: Int? = Text.int(w.hasPrefix("+") ? String(w.dropFirst()) : w) ?? CaptureParser.numberWords[w]
            var unitAt = i + 1
            if n != nil, unitAt < lw.count, ["more", "additional", "extra", "other"].contains(lw[unitAt]) { unitAt += 1 }
            if n == nil, w == "another", i + 1 < lw.count { n = Text.int(lw[i + 1]) ?? CaptureParser.numberWords[lw[i + 1]]; unitAt = i + 2 }
            guard let count = n, unitAt < lw.count else { continue }
            let unit = CaptureParser.strip(lw[unitAt])
            guard ["pages", "pp", "pgs", "page", "p"].contains(unit) || Fuzzy.isKeyword(unit, ["pages"]) else { continue }
            // Needs a reading verb before, or the number first.
            let before = lw[..<i].filter { !["i", "just", "today", "have", "+"].contains($0) }
            let verbs = ["read", "did", "red", "raed", "reed", "finished", "got", "went", "covered", "another", "flipped", "through"]
            guard before.isEmpty || before.contains(where: { v in verbs.contains(v) || Fuzzy.isKeyword(v, ["read"]) }) else { continue }
            if before.contains("finished") || before.contains("read") && before.last == "the" { continue }
            c.pagesRead = count
            var rest = Array(words[(unitAt + 1)...])
            var restLower = Array(lw[(unitAt + 1)...])
            if restLower.first == "of" || restLower.first == "in" || restLower.first == "from" || restLower.first == "into" {
                rest.removeFirst(); restLower.removeFirst()
            }
            c.book = CaptureParser.bookName(rest.joined(separator: " "))
            // "Meditations: read 20 pages"
            if c.book == nil {
                let pre = words[..<i].filter { w in !["read", "i", "just", "today", "did", "have", "red", "another"].contains(w.lowercased()) && !Fuzzy.isKeyword(w.lowercased(), ["read"]) }
                c.book = CaptureParser.bookName(pre.joined(separator: " "))
            }
            return c
        }

        // position: "on page 120 [of X|of 300]", "page 88", "p. 88", "reached page 88", "Meditations p. 120"
        if let f = CaptureParser.findPage(chars) {
            let beforeText = String(chars[..<f.range.lowerBound])
            var after = String(chars[f.range.upperBound...])
            // Words allowed before the page: reading verbs and prepositions, or a book name.
            var pre = CaptureParser.strip(beforeText).lowercased()
            var book: String? = nil
            let lead = ["i'm on", "im on", "i am on", "now on", "now at", "on", "at", "reached", "got to", "up to", "made it to", "to", "read to",
                        "read up to", "stopped at", "stopped on", "left off at", "left off on", "bookmark", "bookmark at", "bookmarked", "currently on",
                        "currently at", "now", "reading", "read", "turned to", "in", "i'm at", "im at", "i am at", "progress", "progress:", "finished", "position", "continuing from", "resumed at"]
            var found = pre.isEmpty
            for l in lead.sorted(by: { $0.count > $1.count }) where pre == l || pre.hasSuffix(" " + l) {
                found = true
                let b = String(CaptureParser.strip(beforeText).dropLast(l.count))
                book = CaptureParser.bookName(b)
                pre = ""
                break
            }
            if !found {
                // "Meditations p. 120", "Meditations: page 120"
                let cand = CaptureParser.strip(beforeText)
                if Text.words(cand).count <= 8, let b = CaptureParser.bookName(cand) {
                    let l = b.lowercased()
                    if l.hasPrefix("read") || l.hasPrefix("quote") || l.hasPrefix("note") { return nil }
                    book = b; found = true
                }
            }
            guard found else { return nil }
            c.setPage(f, reached: true)
            // "of 300" (total pages) or "of Meditations" / "in Meditations"
            var al = CaptureParser.strip(after).lowercased()
            after = CaptureParser.strip(after)
            if al.hasPrefix("of ") || al.hasPrefix("in ") || al.hasPrefix("/") || al.hasPrefix("out of ") {
                let drop = al.hasPrefix("out of ") ? 7 : (al.hasPrefix("/") ? 1 : 3)
                after = CaptureParser.strip(String(after.dropFirst(drop))); al = after.lowercased()
                let aw = Text.words(after)
                if let first = aw.first, let n = Text.int(first) {
                    c.pageCount = n
                    after = aw.dropFirst().joined(separator: " ")
                    let rl = after.lowercased()
                    for p in ["in ", "of ", "pages in ", "pages of "] where rl.hasPrefix(p) { after = String(after.dropFirst(p.count)); break }
                    if after.lowercased() == "pages" { after = "" }
                }
            }
            if let b = CaptureParser.bookName(after) {
                if book != nil { return nil }
                // Not a sentence: at most a few words.
                if Text.words(b).count > 10 { return nil }
                book = b
            }
            c.book = book
            return c
        }
        _ = lower
        words = []; lw = []
        return nil
    }

    // MARK: Chinese

    static let zhQuoteWords = ["摘录", "引用", "摘抄", "书摘", "金句", "划线", "语录", "名句", "摘句", "引文", "句子", "摘"]
    static let zhNoteWords = ["读书笔记", "笔记", "想法", "感想", "思考", "心得", "备注", "随想", "感悟", "批注", "记录", "随笔", "评论", "体会", "注"]
    static let zhQuestionWords = ["问题", "疑问", "提问", "不懂", "不明白", "困惑", "问"]

    func parseChinese(_ s: String) -> Capture? {
        let chars = Array(s)
        let colon = chars.firstIndex(where: { $0 == "：" || $0 == ":" })
        let quoteAt = chars.firstIndex(where: { CaptureParser.quotePairs[$0] != nil && $0 != "'" })
        // KEYWORD [header] (：| quote) content
        let headerEnd = [colon, quoteAt].compactMap { $0 }.min()
        let header = headerEnd.map { String(chars[..<$0]) } ?? ""
        let headerNoBooks = CaptureParser.removeBrackets(header)
        func startsWithAny(_ t: String, _ words: [String]) -> String? { words.first { t.hasPrefix($0) } }
        func containsAny(_ t: String, _ words: [String]) -> String? { words.first { t.contains($0) } }

        if headerEnd != nil {
            let h = Text.trim(headerNoBooks)
            var intent: Capture.Intent? = nil
            if startsWithAny(h, CaptureParser.zhQuoteWords) != nil || (h.count <= 12 && containsAny(h, ["摘录", "引用", "摘抄", "书摘", "金句", "划线"]) != nil) { intent = .quote }
            else if startsWithAny(h, CaptureParser.zhQuestionWords) != nil || (h.count <= 12 && containsAny(h, ["问题", "疑问"]) != nil) { intent = .question }
            else if startsWithAny(h, CaptureParser.zhNoteWords) != nil || (h.count <= 14 && containsAny(h, ["笔记", "想法", "感想", "思考", "心得", "感悟"]) != nil) { intent = .note }
            else if startsWithAny(h, ["计划", "目标", "阅读计划", "读书计划"]) != nil {
                if let p = parseChinesePlan(String(chars[(headerEnd! + (colon == headerEnd ? 1 : 0))...]), header: header) { return p }
                return unknown("plan_no_date", "zh")
            }
            if let intent {
                var c = Capture(intent: intent)
                var hc = Array(header)
                // Drop the keyword itself.
                for w in (CaptureParser.zhQuoteWords + CaptureParser.zhNoteWords + CaptureParser.zhQuestionWords).sorted(by: { $0.count > $1.count }) {
                    if let i = Text.find(Array(w), in: hc) { hc.removeSubrange(i..<(i + w.count)); break }
                }
                var hs = String(hc)
                for p in ["关于", "对于", "有关"] { hs = hs.replacingAll(p, " ") }
                hs = hs.replacingAll("的", " ")
                parseHeader(hs, into: &c)
                if c.book == nil, let t = CaptureParser.bracketTitles(header).first { c.book = t }
                if let b = c.book, !CaptureParser.validZhBook(b) { c.book = nil }
                var content = String(chars[(headerEnd! + (colon == headerEnd ? 1 : 0))...])
                content = Text.trim(content)
                if let q = CaptureParser.quoted(content), Text.trim(q.before).isEmpty, intent == .quote || Text.trim(q.after).count < 20 {
                    c.text = Text.trim(q.inside)
                    applyTrailingMeta(q.after, to: &c)
                } else {
                    var t = Array(content)
                    if c.page == nil, let f = CaptureParser.findPage(t), f.range.upperBound >= t.count - 1, f.range.lowerBound > 0 {
                        var a = f.range.lowerBound
                        var b = f.range.upperBound
                        while a > 0, "（(——-— ".contains(t[a - 1]) { a -= 1 }
                        while b < t.count, "）) ".contains(t[b]) { b += 1 }
                        if b >= t.count { c.setPage(f); t = Array(t[..<a]) }
                    }
                    c.text = Text.trim(String(t))
                }
                return c
            }
        }

        // A line that opens with a quotation mark: 「…」——《沉思录》第12页
        if let q = CaptureParser.quoted(s), Text.trim(q.before).isEmpty {
            var c = Capture(intent: .quote)
            c.text = Text.trim(q.inside)
            applyTrailingMeta(q.after, to: &c)
            return c
        }
        let titles = CaptureParser.bracketTitles(s)
        let plain = CaptureParser.removeBrackets(s)
        // Plans: 计划2027年1月31日前读完《A》和《B》, 月底前读完《A》
        if startsWithAny(plain, ["计划", "目标", "打算在", "准备在", "争取"]) != nil || (containsAny(plain, ["前读完", "之前读完", "以前读完", "前看完", "之前看完", "前读", "之前读"]) != nil) {
            if let p = parseChinesePlan(s, header: "") { return p }
        }
        // Books: 正在读《人类简史》, 想读《奥德赛》
        let bookPrefixes: [(String, String)] = [
            ("我正在读", "reading"), ("正在读", "reading"), ("最近在读", "reading"), ("我在读", "reading"), ("在读", "reading"), ("开始读", "reading"),
            ("刚开始读", "reading"), ("开始看", "reading"), ("正在看", "reading"), ("在看", "reading"), ("重读", "reading"), ("开读", "reading"),
            ("我想读", "want"), ("想读", "want"), ("想看", "want"), ("打算读", "want"), ("待读", "want"), ("想要读", "want"), ("准备读", "want"),
            ("要读", "want"), ("以后读", "want"), ("添加", "added"), ("加入", "added"), ("新书", "added"), ("买了", "added"), ("入手", "added"),
            ("借了", "added"), ("收藏", "want"),
        ]
        for (prefix, status) in bookPrefixes where plain.hasPrefix(prefix) || s.hasPrefix(prefix) {
            let rest = String(s.dropFirst(prefix.count))
            // 读了20页 / 读到第120页 are progress, not books.
            if CaptureParser.findPage(Array(rest)) != nil && titles.isEmpty { break }
            var c = Capture(intent: .book)
            c.status = status
            let (count, restNoCount) = CaptureParser.extractPageCount(rest)
            c.pageCount = count
            if let t = titles.first {
                c.book = t
                let after = Text.trim(CaptureParser.removeBrackets(restNoCount))
                let (_, author) = CaptureParser.splitAuthor("x " + after)
                if let author { c.author = author } else {
                    var a = CaptureParser.strip(after)
                    for suffix in ["著", "写的", "的书", "了", "啦", "呢", "吧", "这本书", "这本"] where a.hasSuffix(suffix) { a = String(a.dropLast(suffix.count)) }
                    for w in ["了", "啦", "呢", "吧", "今天", "现在", "又"] where a == w { a = "" }
                    if a.hasPrefix("by ") { a = String(a.dropFirst(3)) }
                    a = CaptureParser.strip(a)
                    if !a.isEmpty && a.count <= 30 { c.author = a }
                }
            } else {
                var t = CaptureParser.strip(restNoCount)
                for p in [":", "：", "这本书", "书"] where t.hasPrefix(p) { t = CaptureParser.strip(String(t.dropFirst(p.count))) }
                for suffix in ["这本书", "了"] where t.hasSuffix(suffix) { t = String(t.dropLast(suffix.count)) }
                let (title, author) = CaptureParser.splitAuthor(t)
                c.author = author
                guard let b = CaptureParser.bookName(title) else { return nil }
                c.book = b
            }
            return c
        }
        // Progress. Spaces around digits do not matter here: "读了 20 页".
        var c = Capture(intent: .progress)
        let p = CaptureParser.compactDigits(plain)
        // 读完了《X》, 看完《X》, 《X》读完了
        if containsAny(p, ["读完", "看完", "读毕", "已读完", "完成了"]) != nil && containsAny(p, ["前读完", "之前读完", "页"]) == nil {
            c.finished = true
            if let t = titles.first { c.book = t } else {
                var t = p
                for w in ["终于", "今天", "刚刚", "已经", "我", "已读完", "读完了", "读完", "看完了", "看完", "读毕", "完成了", "这本书", "了", "！", "!"] { t = t.replacingAll(w, "") }
                c.book = CaptureParser.bookName(t)
            }
            return c
        }
        // 读了20页, 今天读了二十页, 看了30页《X》
        for verb in ["读了", "看了", "翻了", "又读了", "共读了"] {
            if let i = Text.find(Array(verb), in: Array(p)) {
                let after = Array(p)[(i + verb.count)...]
                var j = after.startIndex
                while j < after.endIndex, Text.isDigit(after[j]) || ChineseNumber.digits[after[j]] != nil || ChineseNumber.units[after[j]] != nil { j += 1 }
                if j > after.startIndex, j < after.endIndex, after[j] == "页", let n = ChineseNumber.parse(String(after[after.startIndex..<j])) {
                    c.pagesRead = n
                    c.book = titles.first ?? CaptureParser.zhBookBefore(String(Array(p)[..<i]))
                    return c
                }
                // 读了百分之四十 / 读了40%
                if let pct = CaptureParser.zhPercent(String(after)) {
                    c.percent = pct; if pct == 100 { c.finished = true }
                    c.book = titles.first ?? CaptureParser.zhBookBefore(String(Array(p)[..<i]))
                    return c
                }
            }
        }
        if let pct = CaptureParser.zhPercent(p), containsAny(p, ["读", "看", "进度"]) != nil {
            c.percent = pct
            c.book = titles.first
            return c
        }
        // 读到第120页, 看到120页, 在第88页, 第88页, 《X》第120页
        let sc = CaptureParser.compactDigits(s)
        if let f = CaptureParser.findPage(Array(sc)) {
            let s = sc
            let before = CaptureParser.removeBrackets(String(Array(s)[..<f.range.lowerBound]))
            var b = Text.trim(before)
            for w in ["我", "今天", "已经", "现在", "目前", "刚", "才"] where b.hasPrefix(w) { b = String(b.dropFirst(w.count)) }
            for w in ["读到了", "读到", "看到了", "看到", "翻到", "到了", "到", "在", "进度", "进度：", "进度:", "停在", "读至", "书签"] where b.hasSuffix(w) {
                b = String(b.dropLast(w.count)); break
            }
            b = Text.trim(b)
            // Only a book name (or nothing) may remain.
            if !b.isEmpty && titles.isEmpty { guard b.count <= 20 && CaptureParser.validZhBook(b) else { return nil } }
            c.setPage(f, reached: true)
            let after = Text.trim(String(Array(s)[f.range.upperBound...]))
            // 第120页，共300页 / 第120/300页
            if let tot = CaptureParser.extractPageCount(after).0 { c.pageCount = tot }
            c.book = titles.first ?? (b.isEmpty ? nil : CaptureParser.strip(b))
            return c
        }
        // Questions: ends with ？ or starts with a question word
        if s.hasSuffix("？") || s.hasSuffix("?") || startsWithAny(s, ["为什么", "什么是", "怎么", "如何", "作者为什么"]) != nil {
            var q = Capture(intent: .question)
            q.text = s
            if let t = titles.first { q.book = t }
            return q
        }
        return nil
    }

    func parseChinesePlan(_ s: String, header: String) -> Capture? {
        var c = Capture(intent: .plan)
        let titles = CaptureParser.bracketTitles(header + s)
        var body = CaptureParser.removeBrackets(s)
        for p in ["计划：", "计划:", "计划", "目标：", "目标:", "目标", "打算", "准备", "争取", "要"] where body.hasPrefix(p) { body = String(body.dropFirst(p.count)) }
        body = Text.trim(body)
        // The date is the text before 前/之前/以前 (or 为止), up to the verb 读完/看完.
        let chars = Array(body)
        var dateEnd: Int? = nil
        for marker in ["之前", "以前", "为止", "前"] {
            if let i = Text.find(Array(marker), in: chars) { dateEnd = i; break }
        }
        var verbAt: Int? = nil
        let daily = Text.find(Array("每天"), in: chars) ?? chars.count
        for v in ["读完", "看完", "读", "看"] { if let i = Text.find(Array(v), in: chars), i < daily { verbAt = i; break } }
        if let e = dateEnd {
            var start = 0
            for p in ["在", "于"] where chars.starts(with: Array(p)) { start = p.count }
            if let d = DateParser.parse(String(chars[start..<e]), today: today) { c.due = d }
        } else if let v = verbAt, v > 0, let d = DateParser.parse(String(chars[..<v]), today: today) {
            c.due = d
        }
        // 每天30页
        if let i = Text.find(Array("每天"), in: chars) {
            var j = i + 2
            while j < chars.count, chars[j] == "读" || chars[j] == "看" || chars[j] == " " { j += 1 }
            let s2 = j
            while j < chars.count, Text.isDigit(chars[j]) || ChineseNumber.digits[chars[j]] != nil || ChineseNumber.units[chars[j]] != nil { j += 1 }
            if j > s2, j < chars.count, chars[j] == "页" { c.dailyPages = ChineseNumber.parse(String(chars[s2..<j])) }
        }
        if c.due == nil && c.dailyPages == nil { return nil }
        if !titles.isEmpty {
            c.books = titles
        } else if let v = verbAt {
            var rest = String(chars[(v + (Text.find(Array("读完"), in: chars) == v || Text.find(Array("看完"), in: chars) == v ? 2 : 1))...])
            if let i = Text.find(Array("每天"), in: Array(rest)) { rest = String(Array(rest)[..<i]) }
            c.books = CaptureParser.splitBooks(rest)
        }
        return c
    }

    /// Drops spaces next to digits or Chinese characters: "读了 20 页" -> "读了20页".
    static func compactDigits(_ s: String) -> String {
        let chars = Array(s)
        var out: [Character] = []
        for (i, c) in chars.enumerated() {
            if c == " ", let prev = out.last, i + 1 < chars.count {
                let next = chars[i + 1]
                let a = Text.isDigit(prev) || Text.isCJK(prev), b = Text.isDigit(next) || Text.isCJK(next)
                if a && b && (Text.isDigit(prev) || Text.isDigit(next)) { continue }
            }
            out.append(c)
        }
        return String(out)
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

    static func validZhBook(_ s: String) -> Bool {
        let t = strip(s)
        if t.isEmpty { return false }
        let verbs = ["读", "看", "页", "今天", "我", "了", "这本书", "章"]
        return !verbs.contains { t.contains($0) } || t.count > 8
    }

    static func zhBookBefore(_ s: String) -> String? {
        var t = strip(s)
        for w in ["我", "今天", "刚刚", "刚", "又", "共", "已经", "今晚", "昨天"] { t = t.replacingAll(w, "") }
        t = strip(t)
        return t.isEmpty || !validZhBook(t) ? nil : t
    }

    static func zhPercent(_ s: String) -> Int? {
        let chars = Array(s)
        if let i = Text.find(Array("百分之"), in: chars) {
            var j = i + 3
            let s2 = j
            while j < chars.count, ChineseNumber.digits[chars[j]] != nil || ChineseNumber.units[chars[j]] != nil || Text.isDigit(chars[j]) { j += 1 }
            return ChineseNumber.parse(String(chars[s2..<j]))
        }
        if let pi = chars.firstIndex(where: { $0 == "%" || $0 == "％" }) {
            var j = pi
            while j > 0, Text.isDigit(chars[j - 1]) { j -= 1 }
            if j < pi { return Text.int(String(chars[j..<pi])) }
        }
        if s.contains("一半") { return 50 }
        return nil
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
