// The Simplified Chinese grammar: keyword headers (摘录：, 笔记：, 问题：,
// 计划：), quotations, plans, books (正在读《…》) and progress (读了20页).

extension CaptureParser {
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
