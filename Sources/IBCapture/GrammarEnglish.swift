// The English grammar: keyword lines (Quote:, Note:, Question:, Plan:),
// quotations, plans, book intents (reading, want, added) and progress.

extension CaptureParser {
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
}
