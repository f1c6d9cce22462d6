// The English grammar: keyword lines (Quote:, Note:, Question:, Plan:),
// quotations, plans, book intents (reading, want, added) and progress.
import IBCore

extension CaptureParser {
    func parseEnglish(_ s0: String) -> Capture? {
        var s = s0
        for p in EnglishLexicon.keywordFillers where s.lowercased().hasPrefix(p) {
            let rest = String(s.dropFirst(p.count))
            let w = String(rest.prefix(while: { $0.isLetter })).lowercased()
            if !w.isEmpty && (Fuzzy.isKeyword(w, EnglishLexicon.noteKeywords) || Fuzzy.isKeyword(w, EnglishLexicon.quoteKeywords) || Fuzzy.isKeyword(w, EnglishLexicon.questionKeywords))
                && w.count > 2 {
                s = rest; break
            }
        }
        let chars = Array(s)
        // The first word, without trailing punctuation.
        var firstEnd = 0
        while firstEnd < chars.count, chars[firstEnd].isLetter || EnglishLexicon.keywordMarks.contains(chars[firstEnd]) { firstEnd += 1 }
        let first = String(chars[..<firstEnd]).lowercased()
        let afterFirst = String(chars[firstEnd...])

        if !first.isEmpty {
            let next = afterFirst.first
            let keywordish = next.map(EnglishLexicon.keywordEnds.contains) ?? true
            if keywordish {
                let singleLetter = first.count <= 2
                let unquoted = Text.strip(s, EnglishLexicon.questionWrapping)
                if first == EnglishLexicon.shortQuestionKeyword && next == ":" && (unquoted.hasSuffix("?") || unquoted.hasSuffix("？")) {
                    return keywordCapture(.question, afterFirst)
                }
                if (!singleLetter || next == ":") && Fuzzy.isKeyword(first, EnglishLexicon.quoteKeywords) && !(EnglishLexicon.keywordsNeedingColon.contains(first) && next != ":") {
                    return keywordCapture(.quote, afterFirst)
                }
                if (!singleLetter || next == ":") && Fuzzy.isKeyword(first, EnglishLexicon.noteKeywords) {
                    if EnglishLexicon.keywordsNeedingColon.contains(first) && next != ":" { return nil }
                    return keywordCapture(.note, afterFirst)
                }
                if Fuzzy.isKeyword(first, EnglishLexicon.questionKeywords) && (next == ":" || first.hasPrefix(EnglishLexicon.questionStem) || first == EnglishLexicon.questionMarkKeyword) {
                    return keywordCapture(.question, afterFirst)
                }
                if Fuzzy.isKeyword(first, EnglishLexicon.planKeywords) {
                    if let p = parsePlan(afterFirst, keyword: true) { return p }
                    if next == ":" || next == "：" { return unknown("plan_no_date", "en") }
                }
            }
        }
        if let c = leadingQuote(s) { return c }
        let lower = s.lowercased()
        // Plans without a keyword: "finish X by Friday", "I want to finish X by the end of the month".
        for prefix in EnglishLexicon.planOpenings where lower.hasPrefix(prefix) {
            if let p = parsePlan(s, keyword: false) { return p }
        }
        if let b = parseBookIntent(s) { return b }
        // `p. 47: "..."`: a page, then a quotation.
        if let q = CaptureParser.quoted(s), Text.words(q.inside).count >= 2 {
            var before = Array(q.before)
            if let f = CaptureParser.findPage(before) { before = CaptureParser.removing(before, f.range) }
            if CaptureParser.strip(String(before)).isEmpty {
                var c = Capture(intent: .quote)
                c.text = TextClasses.trim(q.inside)
                applyTrailingMeta(q.before + " " + q.after, to: &c)
                return c
            }
        }
        if let t = parseTimeProgress(s) { return t }
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
            c.text = TextClasses.trim(q.inside)
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
            if let f = CaptureParser.findPage(t), f.range.lowerBound <= 4 {
                c.setPage(f)
                t = Array(t[f.range.upperBound...])
            } else if let ch = CaptureParser.findChapter(t), ch.1.lowerBound <= 4 {
                c.chapter = ch.0
                t = Array(t[ch.1.upperBound...])
            }
            // "Note on X" without a colon is just text.
            content = String(t)
        }
        parseHeader(header, into: &c)
        content = Text.strip(content, [" ", "-", "—", "–"])
        // "Note: p. 12 - text": a page right at the start of the content.
        if c.page == nil, let f = CaptureParser.findPage(Array(content)), f.range.lowerBound == 0 {
            let after = TextClasses.trim(String(Array(content)[f.range.upperBound...]))
            let rest = Text.strip(after, [" ", "-", "—", "–", ":", "：", ",", ")", "）"])
            if !rest.isEmpty, let sep = after.first, "-—–:：,)）".contains(sep) { c.setPage(f); content = rest }
        }
        if intent == .question, let q = CaptureParser.quoted(content), TextClasses.trim(q.before).isEmpty, TextClasses.trim(q.after).isEmpty {
            content = TextClasses.trim(q.inside)
        }
        if intent == .quote, let q = CaptureParser.quoted(content), TextClasses.trim(q.before).isEmpty {
            c.text = TextClasses.trim(q.inside)
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
            while let last = text.last, last == "," || last == ";" || last == "，" || last == "(" || last == "（" { text.removeLast(); text = TextClasses.trim(text) }
            c.text = text
        }
        return c
    }


    func parsePlan(_ s: String, keyword: Bool) -> Capture? {
        var body = CaptureParser.strip(s)
        var lower = body.lowercased()
        for p in EnglishLexicon.planLeads where lower.hasPrefix(p) {
            body = String(body.dropFirst(p.count)); lower = body.lowercased(); break
        }
        var c = Capture(intent: .plan)
        // Daily goal: "30 pages a day".
        let words = Text.words(lower)
        for (i, w) in words.enumerated() where i + 2 < words.count || i + 1 < words.count {
            if let n = Text.int(w), EnglishLexicon.dailyGoalUnits.contains(words[i + 1]),
               i + 2 < words.count && EnglishLexicon.dailyGoalEach.contains(words[i + 2]) {
                c.dailyPages = n
            }
        }
        // The due date: the longest tail after " by ", " before ", " until ", " till ", " in ", " within ", " on " that parses.
        let chars = Array(body)
        let lowerChars = Text.lowerChars(chars)
        var best: (Int, Day)? = nil
        for marker in EnglishLexicon.dueMarkers {
            var from = 0
            while let i = Text.find(Array(marker), in: lowerChars, from: from) {
                from = i + 1
                let tail = String(chars[(i + marker.count)...])
                let keep = EnglishLexicon.dueMarkersKept.contains(marker) ? String(marker.dropFirst()) + tail : tail
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
            for marker in EnglishLexicon.bareDueDates {
                if let i = Text.find(Array(marker), in: lowerChars, wordBoundary: true), i > 0, let d = DateParser.parse(String(chars[i...]), today: today) {
                    c.due = d; booksText = String(chars[..<i]); break
                }
            }
        }
        if c.due == nil && c.dailyPages == nil { return nil }
        var bl = booksText.lowercased()
        var stripped = false
        for v in EnglishLexicon.planVerbs where Text.strip(bl).hasPrefix(v) {
            booksText = String(Text.strip(booksText).dropFirst(v.count)); bl = booksText.lowercased(); stripped = true; break
        }
        if !stripped, let w = Text.words(booksText).first, Fuzzy.isKeyword(w, EnglishLexicon.planVerbKeywords) {
            booksText = String(Text.strip(booksText).dropFirst(w.count))
        }
        if c.dailyPages != nil {
            // Remove the goal words from the book list.
            if let r = Text.find(Array(EnglishLexicon.pagesWord), in: Text.lowerChars(Array(booksText))) {
                var a = r
                while a > 0, Array(booksText)[a - 1] == " " || Text.isDigit(Array(booksText)[a - 1]) { a -= 1 }
                booksText = String(Array(booksText)[..<a])
                for v in EnglishLexicon.dailyGoalVerbs where booksText.lowercased().hasPrefix(v) { booksText = String(booksText.dropFirst(v.count)) }
            }
        }
        c.books = CaptureParser.splitBooks(booksText)
        if c.books.isEmpty && !keyword && c.dailyPages == nil { return nil }
        return c
    }

    func parseBookIntent(_ s0: String) -> Capture? {
        var s = s0
        for p in EnglishLexicon.bookSubjects where s.lowercased().hasPrefix(p) {
            let rest = String(s.dropFirst(p.count))
            if Lexicon.firstPrefix(of: rest.lowercased(), in: EnglishLexicon.bookVerbStarts) != nil {
                s = rest; break
            }
        }
        if s.lowercased().hasPrefix(EnglishLexicon.auxiliaryBeforeReading + "reading ") { s = String(s.dropFirst(EnglishLexicon.auxiliaryBeforeReading.count)) }
        let lower = s.lowercased()
        var status: String? = nil
        var rest = ""
        let groups: [([String], String)] = [(EnglishLexicon.wantPhrases, "want"), (EnglishLexicon.readingPhrases, "reading"), (EnglishLexicon.addPhrases, "added")]
        var bestLen = 0
        for (words, st) in groups {
            for w in words where w.count > bestLen {
                let colonOnly = EnglishLexicon.colonOnlyPhrases.contains(w)
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
                if Fuzzy.isKeyword(w0, EnglishLexicon.readingTypoKeywords) && !EnglishLexicon.readKeywords.contains(w0) { status = "reading"; rest = String(s.dropFirst(ws[0].count)) }
                else if Fuzzy.isKeyword(w0, EnglishLexicon.addedTypoKeywords) && w0.count >= 5 { status = "added"; rest = String(s.dropFirst(ws[0].count)) }
                else if Fuzzy.isKeyword(w0, EnglishLexicon.wantTypoKeywords) {
                    // "wnat to read X", "Want ot read X"
                    var skip = 1
                    if ws.count > 2, EnglishLexicon.toForms.contains(ws[1].lowercased()) { skip = 2 }
                    if ws.count > skip + 1, Fuzzy.isKeyword(ws[skip].lowercased(), EnglishLexicon.readKeywords) || EnglishLexicon.readTypos.contains(ws[skip].lowercased()) { skip += 1 }
                    if skip > 1 { status = "want"; rest = ws[skip...].joined(separator: " ") }
                }
            }
        }
        guard let st = status else { return nil }
        var body = CaptureParser.strip(rest)
        if st == "want", let w = Text.words(body).first, EnglishLexicon.toTypos.contains(w.lowercased()), Text.words(body).count > 2,
           Fuzzy.isKeyword(Text.words(body)[1].lowercased(), EnglishLexicon.readKeywords) || Text.words(body)[1].lowercased() == EnglishLexicon.readTypoAfterTo {
            body = Text.words(body).dropFirst(2).joined(separator: " ")
        }
        // "Started page 40" and "reading 20 pages" are progress.
        if CaptureParser.findPage(Array(body)).map({ $0.range.lowerBound == 0 }) ?? false { return nil }
        if let f = Text.words(body).first, Text.int(f) != nil, Text.words(body).count > 1,
           EnglishLexicon.progressAfterNumber.contains(Text.words(body)[1].lowercased()) { return nil }
        let bl = body.lowercased()
        for p in EnglishLexicon.titleLeads where bl.hasPrefix(p) { body = CaptureParser.strip(String(body.dropFirst(p.count))); break }
        for suffix in EnglishLexicon.titleTimeSuffixes where body.lowercased().hasSuffix(suffix) {
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

    func parseProgress(_ s: String) -> Capture? {
        var body = CaptureParser.strip(s)
        var lower = body.lowercased()
        for p in EnglishLexicon.progressLabels where lower.hasPrefix(p) {
            body = String(body.dropFirst(p.count)); lower = body.lowercased(); break
        }
        for p in EnglishLexicon.progressSubjects where lower.hasPrefix(p) {
            body = String(body.dropFirst(p.count)); lower = body.lowercased()
        }
        for suffix in EnglishLexicon.progressTimeSuffixes where lower.hasSuffix(suffix) {
            body = String(body.dropLast(suffix.count)); lower = body.lowercased()
        }
        body = CaptureParser.strip(body); lower = body.lowercased()
        var c = Capture(intent: .progress)

        // finished X
        let ws = Text.words(lower)
        if let w0 = ws.first {
            var skip = 0
            if Fuzzy.isKeyword(w0, EnglishLexicon.finishedKeywords) { skip = 1 }
            else if w0 == EnglishLexicon.done { skip = 1; if ws.count > 1 && ws[1] == EnglishLexicon.doneWith { skip = 2 } }
            if skip > 0 {
                var rest = Array(Text.words(body).dropFirst(skip))
                if rest.first?.lowercased() == EnglishLexicon.finishedReading { rest.removeFirst() }
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
        if ws.count >= 2, ws[ws.count - 1] == EnglishLexicon.done || Fuzzy.isKeyword(ws[ws.count - 1], EnglishLexicon.finishedLastKeywords), ws.count <= 8 {
            // "Sapiens finished", "Meditations: done".
            let title = Text.words(body).dropLast().joined(separator: " ")
            c.finished = true
            c.book = CaptureParser.bookName(title)
            return c
        }

        // percent: "45%", "halfway through X"
        let chars = Array(body)
        for p in EnglishLexicon.halfwayPhrases where lower.hasPrefix(p) {
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
                for p in EnglishLexicon.percentLinks where rl.hasPrefix(p) { rest = String(rest.dropFirst(p.count)); break }
                c.book = CaptureParser.bookName(rest) ?? CaptureParser.bookName(String(chars[..<j]).replacingAll(EnglishLexicon.percentLead, ""))
                return c
            }
        }

        // pages read: "read 20 pages [of X]", "20 pages", "+20 pages", "read twenty more pages"
        var words = Text.words(body)
        var lw = words.map { $0.lowercased() }
        for (i, w) in lw.enumerated() {
            var n: Int? = Text.int(w.hasPrefix("+") ? String(w.dropFirst()) : w) ?? EnglishLexicon.numberWords[w]
            var unitAt = i + 1
            if n != nil, unitAt < lw.count, EnglishLexicon.moreWords.contains(lw[unitAt]) { unitAt += 1 }
            if n == nil, w == EnglishLexicon.another, i + 1 < lw.count { n = Text.int(lw[i + 1]) ?? EnglishLexicon.numberWords[lw[i + 1]]; unitAt = i + 2 }
            guard let count = n, unitAt < lw.count else { continue }
            let unit = CaptureParser.strip(lw[unitAt])
            guard EnglishLexicon.pageUnits.contains(unit) || Fuzzy.isKeyword(unit, EnglishLexicon.pageUnitKeywords) else { continue }
            // Needs a reading verb before, or the number first.
            let before = lw[..<i].filter { !EnglishLexicon.pagesReadFillers.contains($0) }
            guard before.isEmpty || before.contains(where: { v in EnglishLexicon.pagesReadVerbs.contains(v) || Fuzzy.isKeyword(v, EnglishLexicon.readKeywords) }) else { continue }
            if before.contains(EnglishLexicon.finishedVerb) || before.contains(EnglishLexicon.readVerb) && before.last == EnglishLexicon.the { continue }
            c.pagesRead = count
            var rest = Array(words[(unitAt + 1)...])
            var restLower = Array(lw[(unitAt + 1)...])
            if let link = restLower.first, EnglishLexicon.pagesReadLinks.contains(link) {
                rest.removeFirst(); restLower.removeFirst()
            }
            c.book = CaptureParser.bookName(rest.joined(separator: " "))
            // "Meditations: read 20 pages"
            if c.book == nil {
                let pre = words[..<i].filter { w in !EnglishLexicon.pagesReadLeadWords.contains(w.lowercased()) && !Fuzzy.isKeyword(w.lowercased(), EnglishLexicon.readKeywords) }
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
            var found = pre.isEmpty
            for l in EnglishLexicon.positionLeadsLongestFirst where pre == l || pre.hasSuffix(" " + l) {
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
                    if Lexicon.firstPrefix(of: l, in: EnglishLexicon.positionNotBookStarts) != nil { return nil }
                    book = b; found = true
                }
            }
            guard found else { return nil }
            c.setPage(f, reached: true)
            // "of 300" (total pages) or "of Meditations" / "in Meditations"
            var al = CaptureParser.strip(after).lowercased()
            after = CaptureParser.strip(after)
            if let link = Lexicon.firstPrefix(of: al, in: EnglishLexicon.pageTotalLinks) {
                after = CaptureParser.strip(String(after.dropFirst(link.count))); al = after.lowercased()
                let aw = Text.words(after)
                if let first = aw.first, let n = Text.int(first) {
                    c.pageCount = n
                    after = aw.dropFirst().joined(separator: " ")
                    let rl = after.lowercased()
                    for p in EnglishLexicon.pageCountLinks where rl.hasPrefix(p) { after = String(after.dropFirst(p.count)); break }
                    if after.lowercased() == EnglishLexicon.pagesWord { after = "" }
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
