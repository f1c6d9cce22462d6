// The Simplified Chinese grammar: keyword headers (摘录：, 笔记：, 问题：,
// 计划：), quotations, plans, books (正在读《…》) and progress (读了20页).
import IBCore

extension CaptureParser {
    func parseChinese(_ s: String) -> Capture? {
        let chars = Array(s)
        let colon = chars.firstIndex(where: { $0 == "：" || $0 == ":" })
        let quoteAt = chars.firstIndex(where: { CaptureParser.quotePairs[$0] != nil && $0 != "'" })
        // KEYWORD [header] (：| quote) content
        let headerEnd = [colon, quoteAt].compactMap { $0 }.min()
        let header = headerEnd.map { String(chars[..<$0]) } ?? ""
        let headerNoBooks = CaptureParser.removeBrackets(header)
        func startsWithAny(_ t: String, _ words: [String]) -> String? { Lexicon.firstPrefix(of: t, in: words) }
        func containsAny(_ t: String, _ words: [String]) -> String? { Lexicon.firstContained(in: t, words) }

        if headerEnd != nil {
            let h = TextClasses.trim(headerNoBooks)
            let intent = ChineseLexicon.headerIntents.first { k in
                startsWithAny(h, k.keywords) != nil || (h.count <= k.maxHeader && containsAny(h, k.anywhere) != nil)
            }?.intent
            if intent == nil, startsWithAny(h, ChineseLexicon.planKeywords) != nil {
                if let p = parseChinesePlan(String(chars[(headerEnd! + (colon == headerEnd ? 1 : 0))...]), header: header) { return p }
                return unknown("plan_no_date", "zh")
            }
            if let intent {
                var c = Capture(intent: intent)
                var hc = Array(header)
                // Drop the keyword itself.
                for w in ChineseLexicon.keywordsLongestFirst {
                    if let i = Text.find(Array(w), in: hc) { hc.removeSubrange(i..<(i + w.count)); break }
                }
                var hs = String(hc)
                for p in ChineseLexicon.headerTopicWords { hs = hs.replacingAll(p, " ") }
                hs = hs.replacingAll(ChineseLexicon.headerPossessive, " ")
                parseHeader(hs, into: &c)
                if c.book == nil, let t = CaptureParser.bracketTitles(header).first { c.book = t }
                if let b = c.book, !CaptureParser.validZhBook(b) { c.book = nil }
                var content = String(chars[(headerEnd! + (colon == headerEnd ? 1 : 0))...])
                content = TextClasses.trim(content)
                if let q = CaptureParser.quoted(content), TextClasses.trim(q.before).isEmpty, intent == .quote || TextClasses.trim(q.after).count < 20 {
                    c.text = TextClasses.trim(q.inside)
                    applyTrailingMeta(q.after, to: &c)
                } else {
                    var t = Array(content)
                    if c.page == nil, let f = CaptureParser.findPage(t), f.range.upperBound >= t.count - 1, f.range.lowerBound > 0 {
                        var a = f.range.lowerBound
                        var b = f.range.upperBound
                        while a > 0, ChineseLexicon.pageOpeners.contains(t[a - 1]) { a -= 1 }
                        while b < t.count, ChineseLexicon.pageClosers.contains(t[b]) { b += 1 }
                        if b >= t.count { c.setPage(f); t = Array(t[..<a]) }
                    }
                    c.text = TextClasses.trim(String(t))
                }
                return c
            }
        }

        if let c = leadingQuote(s) { return c }
        let titles = CaptureParser.bracketTitles(s)
        let plain = CaptureParser.removeBrackets(s)
        // Plans: 计划2027年1月31日前读完《A》和《B》, 月底前读完《A》
        if startsWithAny(plain, ChineseLexicon.planOpenings) != nil || containsAny(plain, ChineseLexicon.planDueVerbs) != nil {
            if let p = parseChinesePlan(s, header: "") { return p }
        }
        // Books: 正在读《人类简史》, 想读《奥德赛》
        for (prefix, status) in ChineseLexicon.bookOpenings where plain.hasPrefix(prefix) || s.hasPrefix(prefix) {
            let rest = String(s.dropFirst(prefix.count))
            // 读了20页 / 读到第120页 are progress, not books.
            if CaptureParser.findPage(Array(rest)) != nil && titles.isEmpty { break }
            var c = Capture(intent: .book)
            c.status = status
            let (count, restNoCount) = CaptureParser.extractPageCount(rest)
            c.pageCount = count
            if let t = titles.first {
                c.book = t
                let after = TextClasses.trim(CaptureParser.removeBrackets(restNoCount))
                // A stand-in title, so that "《X》 by Y" splits like "X by Y".
                let (_, author) = CaptureParser.splitAuthor("x " + after)
                if let author { c.author = author } else {
                    var a = CaptureParser.strip(after)
                    for suffix in ChineseLexicon.authorSuffixes where a.hasSuffix(suffix) { a = String(a.dropLast(suffix.count)) }
                    if ChineseLexicon.notAuthors.contains(a) { a = "" }
                    if a.hasPrefix(ChineseLexicon.englishAuthorLead) { a = String(a.dropFirst(ChineseLexicon.englishAuthorLead.count)) }
                    a = CaptureParser.strip(a)
                    if !a.isEmpty && a.count <= 30 { c.author = a }
                }
            } else {
                var t = CaptureParser.strip(restNoCount)
                for p in ChineseLexicon.titleLeads where t.hasPrefix(p) { t = CaptureParser.strip(String(t.dropFirst(p.count))) }
                for suffix in ChineseLexicon.titleSuffixes where t.hasSuffix(suffix) { t = String(t.dropLast(suffix.count)) }
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
        if containsAny(p, ChineseLexicon.finishedVerbs) != nil && containsAny(p, ChineseLexicon.notFinished) == nil {
            c.finished = true
            if let t = titles.first { c.book = t } else {
                var t = p
                for w in ChineseLexicon.finishedFillers { t = t.replacingAll(w, "") }
                c.book = CaptureParser.bookName(t)
            }
            return c
        }
        // 读了20页, 今天读了二十页, 看了30页《X》
        for verb in ChineseLexicon.pagesReadVerbs {
            if let i = Text.find(Array(verb), in: Array(p)) {
                let after = Array(p)[(i + verb.count)...]
                var j = after.startIndex
                while j < after.endIndex, ChineseNumber.isNumeral(after[j]) { j += 1 }
                if j > after.startIndex, j < after.endIndex, after[j] == ChineseLexicon.page, let n = ChineseNumber.parse(String(after[after.startIndex..<j])) {
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
        if let pct = CaptureParser.zhPercent(p), containsAny(p, ChineseLexicon.percentContext) != nil {
            c.percent = pct
            c.book = titles.first
            return c
        }
        // 读到第120页, 看到120页, 在第88页, 第88页, 《X》第120页
        let sc = CaptureParser.compactDigits(s)
        if let f = CaptureParser.findPage(Array(sc)) {
            let s = sc
            let before = CaptureParser.removeBrackets(String(Array(s)[..<f.range.lowerBound]))
            var b = TextClasses.trim(before)
            for w in ChineseLexicon.positionLeads where b.hasPrefix(w) { b = String(b.dropFirst(w.count)) }
            for w in ChineseLexicon.positionVerbs where b.hasSuffix(w) {
                b = String(b.dropLast(w.count)); break
            }
            b = TextClasses.trim(b)
            // Only a book name (or nothing) may remain.
            if !b.isEmpty && titles.isEmpty { guard b.count <= 20 && CaptureParser.validZhBook(b) else { return nil } }
            c.setPage(f, reached: true)
            let after = TextClasses.trim(String(Array(s)[f.range.upperBound...]))
            // 第120页，共300页 / 第120/300页
            if let tot = CaptureParser.extractPageCount(after).0 { c.pageCount = tot }
            c.book = titles.first ?? (b.isEmpty ? nil : CaptureParser.strip(b))
            return c
        }
        // Questions: ends with ？ or starts with a question word
        if s.hasSuffix("？") || s.hasSuffix("?") || startsWithAny(s, ChineseLexicon.questionOpenings) != nil {
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
        for p in ChineseLexicon.planLeads where body.hasPrefix(p) { body = String(body.dropFirst(p.count)) }
        body = TextClasses.trim(body)
        // The date is the text before 前/之前/以前 (or 为止), up to the verb 读完/看完.
        let chars = Array(body)
        var dateEnd: Int? = nil
        for marker in ChineseLexicon.dueEnds {
            if let i = Text.find(Array(marker), in: chars) { dateEnd = i; break }
        }
        var verbAt: Int? = nil
        let daily = Text.find(Array(ChineseLexicon.daily), in: chars) ?? chars.count
        for v in ChineseLexicon.planVerbs { if let i = Text.find(Array(v), in: chars), i < daily { verbAt = i; break } }
        if let e = dateEnd {
            var start = 0
            for p in ChineseLexicon.dueLeads where chars.starts(with: Array(p)) { start = p.count }
            if let d = DateParser.parse(String(chars[start..<e]), today: today) { c.due = d }
        } else if let v = verbAt, v > 0, let d = DateParser.parse(String(chars[..<v]), today: today) {
            c.due = d
        }
        // 每天30页
        if let i = Text.find(Array(ChineseLexicon.daily), in: chars) {
            var j = i + 2
            while j < chars.count, ChineseLexicon.dailyVerbs.contains(chars[j]) { j += 1 }
            let s2 = j
            while j < chars.count, ChineseNumber.isNumeral(chars[j]) { j += 1 }
            if j > s2, j < chars.count, chars[j] == ChineseLexicon.page { c.dailyPages = ChineseNumber.parse(String(chars[s2..<j])) }
        }
        if c.due == nil && c.dailyPages == nil { return nil }
        if !titles.isEmpty {
            c.books = titles
        } else if let v = verbAt {
            let whole = ChineseLexicon.planVerbsWhole.contains { Text.find(Array($0), in: chars) == v }
            var rest = String(chars[(v + (whole ? 2 : 1))...])
            if let i = Text.find(Array(ChineseLexicon.daily), in: Array(rest)) { rest = String(Array(rest)[..<i]) }
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
                let a = Text.isDigit(prev) || TextClasses.isHan(prev), b = Text.isDigit(next) || TextClasses.isHan(next)
                if a && b && (Text.isDigit(prev) || Text.isDigit(next)) { continue }
            }
            out.append(c)
        }
        return String(out)
    }

    static func validZhBook(_ s: String) -> Bool {
        let t = strip(s)
        if t.isEmpty { return false }
        return !ChineseLexicon.notInBookNames.contains { t.contains($0) } || t.count > 8
    }

    static func zhBookBefore(_ s: String) -> String? {
        var t = strip(s)
        for w in ChineseLexicon.pagesReadFillers { t = t.replacingAll(w, "") }
        t = strip(t)
        return t.isEmpty || !validZhBook(t) ? nil : t
    }

    static func zhPercent(_ s: String) -> Int? {
        let chars = Array(s)
        if let i = Text.find(Array(ChineseLexicon.percentWord), in: chars) {
            var j = i + 3
            let s2 = j
            while j < chars.count, ChineseNumber.isNumeral(chars[j]) { j += 1 }
            return ChineseNumber.parse(String(chars[s2..<j]))
        }
        if let pi = chars.firstIndex(where: { $0 == "%" || $0 == "％" }) {
            var j = pi
            while j > 0, Text.isDigit(chars[j - 1]) { j -= 1 }
            if j < pi { return Text.int(String(chars[j..<pi])) }
        }
        if s.contains(ChineseLexicon.half) { return 50 }
        return nil
    }
}
