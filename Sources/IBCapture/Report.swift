// `ib-capture status` (the reading widgets), `export` and `import`.
#if canImport(Glibc)
import Glibc
#endif
import IBCore
import IBStore

public enum StatusReport {
    /// How far `page` is into `count` pages, in percent to one decimal; null when the count is unknown.
    public static func percent(_ page: Int, of count: Int) -> JSON {
        count > 0 ? .number((Double(page) * 1000 / Double(count)).rounded() / 10) : .null
    }

    public static let version = 1

    /// Local midnight of `day` as an ISO-8601 UTC timestamp (for comparing with created_at).
    static func startOfDay(_ day: Day) -> String {
        var parts = tm()
        parts.tm_year = Int32(day.year - 1900); parts.tm_mon = Int32(day.month - 1); parts.tm_mday = Int32(day.day)
        parts.tm_isdst = -1
        let t = mktime(&parts)
        return Timestamp.iso8601(Double(t))
    }

    /// Local noon of `day` as an ISO-8601 UTC timestamp (an event dated that day).
    static func noon(_ day: Day) -> String {
        var parts = tm()
        parts.tm_year = Int32(day.year - 1900); parts.tm_mon = Int32(day.month - 1); parts.tm_mday = Int32(day.day)
        parts.tm_hour = 12
        parts.tm_isdst = -1
        return Timestamp.iso8601(Double(mktime(&parts)))
    }

    static func localDay(_ iso: String) -> Day? {
        guard let s = Timestamp.parse(iso) else { return nil }
        return Day(seconds: s)
    }

    /// FNV-1a, for a quote that stays the same all day.
    static func hash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }

    /// `now`: the time suggestions are made for (default: the clock).
    /// Pages read per local day (by Day.serial), from the progress events of the last 400 days.
    static func pagesPerDay(_ store: CaptureStore, today: Day) throws -> [Int: Int] {
        var perDay: [Int: Int] = [:]
        for event in try store.records.pagesRead(since: startOfDay(today.adding(days: -400))) {
            if let d = localDay(event.createdAt) { perDay[d.serial, default: 0] += event.pages }
        }
        return perDay
    }

    /// The quote of the day: the same one all day, a different one most days.
    static func quoteOfTheDay(_ store: CaptureStore, today: Day) throws -> StoredQuote? {
        let count = try store.records.quoteCount()
        guard count > 0 else { return nil }
        return try store.records.quote(atOffset: Int(hash(today.description) % UInt64(count)))
    }

    public static func build(_ store: CaptureStore, today: Day, privateMode: Bool, now: Double? = nil) throws -> JSON {
        let records = store.records
        var o = JSONObject()
        o["type"] = "status"
        o["version"] = JSON(version)
        o["ib_version"] = .string(ibVersion)
        o["date"] = .string(today.description)
        if let b = try store.currentBook() {
            o["book"] = [
                "id": .string(b.id), "title": .string(b.title), "authors": JSON(b.authors),
                "page": JSON(b.currentPage), "page_count": b.pageCount > 0 ? JSON(b.pageCount) : .null,
                "percent": StatusReport.percent(b.currentPage, of: b.pageCount),
            ]
        } else {
            o["book"] = .null
        }
        let perDay = try pagesPerDay(store, today: today)
        let pagesToday = perDay[today.serial] ?? 0
        o["pages_today"] = JSON(pagesToday)
        var streak = 0
        var d = perDay[today.serial] != nil ? today : today.adding(days: -1)
        while perDay[d.serial] != nil { streak += 1; d = d.adding(days: -1) }
        o["streak_days"] = JSON(streak)
        var week = 0
        for i in 0..<7 { week += perDay[today.adding(days: -i).serial] ?? 0 }
        o["pages_per_day_7d"] = .number((Double(week) / 7 * 10).rounded() / 10)
        // Quote of the day.
        if try records.quoteCount() > 0 {
            if let quote = try quoteOfTheDay(store, today: today) {
                o["quote"] = [
                    "id": JSON(quote.id), "text": privateMode ? .null : .string(quote.text),
                    "book_id": .string(quote.bookID), "book_title": .string(quote.bookTitle), "page": JSON(quote.page),
                    "hidden": .bool(privateMode),
                ]
            }
        } else {
            o["quote"] = .null
        }
        // The latest note or question.
        if let note = try records.latestNote() {
            o["note"] = [
                "id": JSON(note.id), "kind": .string(note.kind), "text": privateMode ? .null : .string(note.text),
                "book_id": .string(note.bookID), "book_title": .string(note.bookTitle), "page": JSON(note.page),
                "hidden": .bool(privateMode),
            ]
        } else {
            o["note"] = .null
        }
        // Plans.
        var plans: [JSON] = []
        for plan in try records.activePlans() {
            var p = JSONObject()
            p["id"] = JSON(plan.id)
            p["title"] = .string(plan.title)
            var left = 0
            var known = true
            var books: [JSON] = []
            for id in plan.bookIDs {
                guard let r = try store.bookRef(id: id) else { continue }
                if r.pageCount > 0 { left += max(0, r.pageCount - r.currentPage) } else { known = false }
                books.append(["book_id": .string(r.id), "title": .string(r.title), "page": JSON(r.currentPage),
                              "page_count": r.pageCount > 0 ? JSON(r.pageCount) : .null])
            }
            p["books"] = .array(books)
            let planned = plan.dailyPages
            p["due"] = JSON(plan.targetDate)
            if let dueText = plan.targetDate, let due = Day(iso: dueText) {
                let daysLeft = max(0, due.serial - today.serial + 1)
                p["days_left"] = JSON(daysLeft)
                p["pages_left"] = known ? JSON(left) : .null
                if known {
                    let needed = daysLeft > 0 ? (left + daysLeft - 1) / daysLeft : left
                    p["pages_per_day"] = JSON(needed)
                    p["on_track"] = .bool(left == 0 || (daysLeft > 0 && needed <= (planned ?? needed)))
                } else {
                    p["pages_per_day"] = .null
                    p["on_track"] = .null
                }
                p["planned_pages_per_day"] = JSON(planned)
                p["done"] = .bool(known && left == 0)
            } else if let goal = planned {
                p["pages_per_day"] = JSON(goal)
                p["on_track"] = .bool(pagesToday >= goal)
                p["planned_pages_per_day"] = JSON(goal)
            }
            plans.append(.object(p))
        }
        o["plans"] = .array(plans)
        o["private"] = .bool(privateMode)
        o["suggestions"] = .array(try Suggestions.build(store, status: .object(o), now: now ?? Timestamp.now()))
        return .object(o)
    }

    /// Human-readable lines, in the reader's language.
    public static func lines(_ s: JSON) -> [String] {
        var out: [String] = []
        if let b = s["book"], !b.isNull {
            let title = b["title"]?.stringValue ?? ""
            if let count = b["page_count"]?.intValue {
                out.append(Messages.text("status_reading", title, b["page"]?.intValue ?? 0, count, format(b["percent"]?.doubleValue ?? 0)))
            } else {
                out.append(Messages.text("status_reading_nopages", title, b["page"]?.intValue ?? 0))
            }
        } else {
            out.append(Messages.text("status_no_book"))
        }
        out.append(Messages.text("status_today", s["pages_today"]?.intValue ?? 0) + " · " + Messages.text(s["streak_days"]?.intValue == 1 ? "status_streak_one" : "status_streak", s["streak_days"]?.intValue ?? 0))
        if let q = s["quote"], !q.isNull {
            if q["hidden"]?.boolValue == true { out.append(Messages.text("status_quote_hidden")) }
            else { out.append(Messages.text("status_quote", q["text"]?.stringValue ?? "", q["book_title"]?.stringValue ?? "")) }
        }
        for p in s["plans"]?.arrayValue ?? [] {
            let track = p["on_track"]?.boolValue.map { Messages.text($0 ? "on_track" : "behind") } ?? "?"
            if let due = p["due"]?.stringValue {
                let perDay = p["pages_per_day"]?.intValue.map(String.init) ?? "?"
                out.append(Messages.text("status_plan", p["title"]?.stringValue ?? "", due, perDay, track))
            } else if let goal = p["pages_per_day"]?.intValue {
                out.append(Messages.text("status_plan_daily", goal, track))
            }
        }
        return out
    }

    static func format(_ x: Double) -> String {
        x.rounded() == x ? String(Int(x)) : String((x * 10).rounded() / 10)
    }

    /// Waybar's custom-module JSON: text, tooltip, class, percentage.
    public static func waybar(_ s: JSON) -> JSON {
        var text = ""
        var percentage = 0
        var cls = "idle"
        if let b = s["book"], !b.isNull {
            var title = b["title"]?.stringValue ?? ""
            if title.count > 24 { title = String(title.prefix(23)) + "…" }
            text = title
            if let pct = b["percent"]?.doubleValue { percentage = Int(pct.rounded()); text += " \(percentage)%" }
            else { text += " p.\(b["page"]?.intValue ?? 0)" }
            cls = "reading"
        }
        let streak = s["streak_days"]?.intValue ?? 0
        if streak > 0 { text += (text.isEmpty ? "" : " · ") + "\(streak)d" }
        if (s["plans"]?.arrayValue ?? []).contains(where: { $0["on_track"]?.boolValue == false }) { cls = "behind" }
        if text.isEmpty { text = "—" }
        let suggested = Suggestions.lines(s["suggestions"]?.arrayValue ?? []).map { "→ " + $0 }
        return ["text": .string(text), "tooltip": .string((lines(s) + suggested).joined(separator: "\n")), "class": .string(cls),
                "percentage": JSON(percentage)]
    }
}

public enum Exporter {
    struct Item { var kind: String; var text: String; var page: Int?; var chapter: String?; var note: String?; var tags: [String]; var date: String }
    struct Group { var id: String; var title: String; var authors: [String]; var items: [Item] }

    static func groups(_ store: CaptureStore) throws -> [Group] {
        var byBook: [String: Group] = [:]
        var order: [String] = []
        // A deleted book's kept words group under the title kept on them (book id "").
        func key(_ id: String, _ keptTitle: String) -> String { id.isEmpty ? "\u{0}" + keptTitle : id }
        func group(_ id: String, _ keptTitle: String) throws -> Group? {
            if let g = byBook[key(id, keptTitle)] { return g }
            order.append(key(id, keptTitle))
            if id.isEmpty { return Group(id: "", title: keptTitle, authors: [], items: []) }
            guard let r = try store.bookRef(id: id) else { order.removeLast(); return nil }
            return Group(id: id, title: r.title, authors: r.authors, items: [])
        }
        for quote in try store.records.allQuotes() {
            guard var g = try group(quote.bookID, quote.bookTitle) else { continue }
            g.items.append(Item(kind: "quote", text: quote.text, page: quote.page, chapter: nil, note: quote.note,
                                tags: quote.tags, date: quote.createdAt))
            byBook[key(quote.bookID, quote.bookTitle)] = g
        }
        for note in try store.records.allNotes() {
            guard var g = try group(note.bookID, note.bookTitle) else { continue }
            g.items.append(Item(kind: note.kind, text: note.text, page: note.page, chapter: note.chapter,
                                note: nil, tags: note.tags, date: note.createdAt))
            byBook[key(note.bookID, note.bookTitle)] = g
        }
        return order.compactMap { byBook[$0] }.sorted { $0.title.lowercased() < $1.title.lowercased() }
    }

    /// `forTerminal`: markdown and CSV show control characters as escapes (see
    /// TerminalText); JSON always keeps the exact text.
    /// `books`: only these books' groups (nil: every book, detached ones included).
    public static func export(_ store: CaptureStore, format: String, books: Set<String>? = nil, to out: OutputStream,
                              forTerminal: Bool = false) throws {
        let shown = { (s: String) -> String in forTerminal ? TerminalText.safe(s) : s }
        let gs = try groups(store).filter { books?.contains($0.id) ?? true }
        switch format {
        case "json":
            for g in gs {
                func items(_ kinds: Set<String>) -> JSON {
                    .array(g.items.filter { kinds.contains($0.kind) }.map { i in
                        var o: JSONObject = JSONObject([("type", .string(i.kind)), ("text", .string(i.text)), ("page", JSON(i.page))])
                        if i.kind != "quote" { o["chapter"] = JSON(i.chapter) } else { o["note"] = JSON(i.note) }
                        o["tags"] = JSON(i.tags); o["created_at"] = .string(i.date)
                        return .object(o)
                    })
                }
                out.writeJSON(["type": "book_export", "version": 1, "book_id": .string(g.id), "title": .string(g.title),
                               "authors": JSON(g.authors), "quotes": items(["quote"]), "notes": items(["note", "question"])])
            }
        case "markdown":
            var s = ""
            for g in gs {
                s += "# \(g.title)\n"
                if !g.authors.isEmpty { s += "\n*\(g.authors.joined(separator: ", "))*\n" }
                let quotes = g.items.filter { $0.kind == "quote" }
                let notes = g.items.filter { $0.kind != "quote" }
                if !quotes.isEmpty {
                    s += "\n## Quotes\n"
                    for q in quotes {
                        s += "\n> " + q.text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n> ") + "\n>\n> — "
                        s += (q.page.map { "p. \($0) · " } ?? "") + String(q.date.prefix(10))
                        if !q.tags.isEmpty { s += " · " + q.tags.map { "#" + $0 }.joined(separator: " ") }
                        s += "\n"
                        if let n = q.note, !n.isEmpty { s += "\n\(n)\n" }
                    }
                }
                if !notes.isEmpty {
                    s += "\n## Notes\n\n"
                    for n in notes {
                        var meta: [String] = []
                        if n.kind == "question" { meta.append("question") }
                        if let p = n.page { meta.append("p. \(p)") }
                        if let c = n.chapter { meta.append("chapter \(c)") }
                        meta.append(String(n.date.prefix(10)))
                        s += "- \(n.text) (\(meta.joined(separator: ", ")))"
                        if !n.tags.isEmpty { s += " " + n.tags.map { "#" + $0 }.joined(separator: " ") }
                        s += "\n"
                    }
                }
                s += "\n"
            }
            out.write(shown(s))
        case "csv":
            out.write("Highlight,Title,Author,Note,Location,Location Type,Date\n")
            for g in gs {
                for i in g.items {
                    var note = i.note ?? ""
                    if i.kind != "quote" { note = "." + i.kind + (i.chapter.map { " chapter \($0)" } ?? "") }
                    if !i.tags.isEmpty { note += (note.isEmpty ? "" : " ") + i.tags.map { "." + $0 }.joined(separator: " ") }
                    let date = i.date.count >= 19 ? String(i.date.prefix(10)) + " " + String(i.date.dropFirst(11).prefix(8)) : i.date
                    let fields = [i.text, g.title, g.authors.joined(separator: ", "), note, i.page.map(String.init) ?? "",
                                  i.page == nil ? "" : "page", date]
                    out.write(shown(fields.map(csvField).joined(separator: ",")) + "\n")
                }
            }
        default:
            throw IBError.usage(Messages.text("export_format"))
        }
    }

    static func csvField(_ s: String) -> String {
        if s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + s.replacingAll("\"", "\"\"") + "\""
        }
        return s
    }

    /// RFC 4180 CSV: quoted fields, doubled quotes, newlines inside quotes.
    public static func parseCSV(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var inQuotes = false
        var chars = Array(text)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if inQuotes {
                if c == "\"" {
                    if i + 1 < chars.count && chars[i + 1] == "\"" { field.append("\""); i += 1 } else { inQuotes = false }
                } else { field.append(c) }
            } else if c == "\"" {
                inQuotes = true
            } else if c == "," {
                row.append(field); field = ""
            } else if c == "\n" || c == "\r\n" || c == "\r" {
                row.append(field); field = ""
                if !(row.count == 1 && row[0].isEmpty) { rows.append(row) }
                row = []
            } else {
                field.append(c)
            }
            i += 1
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }

    /// Imports a Readwise CSV; returns (imported, skipped).
    public static func importCSV(_ store: CaptureStore, path: String, now: String) throws -> (Int, Int) {
        let rows = parseCSV(try FileSystem.readText(path))
        guard let header = rows.first?.map({ TextClasses.trim($0).lowercased() }),
              let hi = header.firstIndex(of: "highlight"),
              let ti = header.firstIndex(of: "title") ?? header.firstIndex(of: "book title") else {
            throw IBError(Messages.text("csv_bad_header", path))
        }
        // Readwise's import columns, and its export's names for the same things.
        let ai = header.firstIndex(of: "author") ?? header.firstIndex(of: "book author"), ni = header.firstIndex(of: "note")
        let li = header.firstIndex(of: "location"), lti = header.firstIndex(of: "location type")
        let di = header.firstIndex(of: "date") ?? header.firstIndex(of: "highlighted at")
        let tagsi = header.firstIndex(of: "tags")
        func col(_ r: [String], _ i: Int?) -> String { i.flatMap { $0 < r.count ? TextClasses.trim(r[$0]) : nil } ?? "" }
        var imported = 0, skipped = 0
        try store.library.db.write {
            for r in rows.dropFirst() {
                let text = col(r, hi), title = col(r, ti)
                guard !text.isEmpty, !title.isEmpty else { skipped += 1; continue }
                let author = col(r, ai)
                let ref: BookSummary
                switch try store.resolve(title, author: author.isEmpty ? nil : author) {
                case .book(let b): ref = b
                case .ambiguous(_, let ms):
                    // The same title, word for word, or nothing: never a guess.
                    let key = TitleMatcher.normalize(title)
                    let same = ms.filter { TitleMatcher.normalize($0.title) == key }
                    guard same.count == 1, let b = try store.bookRef(id: same[0].id) else {
                        printError(Messages.text("ambiguous", arguments: [title, String(ms.count)], language: Messages.current))
                        skipped += 1
                        continue
                    }
                    ref = b
                case .none: ref = try store.createBook(title: title, author: author.isEmpty ? nil : author, pageCount: nil, now: now)
                }
                let type = col(r, lti).lowercased()
                let page = (type.isEmpty || type == "page") ? Int(col(r, li)) : nil
                var note = col(r, ni)
                var tags: [String] = []
                var kind = "quote"
                var chapter: String? = nil
                // Readwise inline tags: ".tag" words in the note; ".note"/".question" mark ib notes.
                var kept: [String] = []
                let words = Text.words(note)
                var k = 0
                while k < words.count {
                    let w = words[k]
                    if w.hasPrefix("."), w.count > 1, !w.dropFirst().contains(".") {
                        let t = String(w.dropFirst()).lowercased()
                        if (t == "note" || t == "question") && k == 0 { kind = t }
                        else if t == "chapter" || (k > 0 && false) { kept.append(w) }
                        else { tags.append(t) }
                    } else if kind != "quote" && k > 0 && words[k - 1] == "chapter" {
                        chapter = w
                    } else if !(kind != "quote" && w == "chapter") {
                        kept.append(w)
                    }
                    k += 1
                }
                note = kept.joined(separator: " ")
                for t in col(r, tagsi).split(separator: ",") {
                    let tag = TextClasses.trim(t).lowercased()
                    if !tag.isEmpty && !tags.contains(tag) { tags.append(tag) }
                }
                var date = now
                let d = col(r, di)
                if !d.isEmpty, let t = Timestamp.parse(d) { date = Timestamp.iso8601(t) }
                if kind == "quote" {
                    if try store.quoteExists(bookID: ref.id, text: text, page: page) { skipped += 1; continue }
                    let id = try store.addQuote(bookID: ref.id, text: text, page: page, tags: tags, now: date)
                    if !note.isEmpty { try store.records.setQuoteNote(id: id, note) }
                } else {
                    if try store.records.noteExists(bookID: ref.id, text: text, page: page) { skipped += 1; continue }
                    _ = try store.addNote(bookID: ref.id, text: text, page: page, chapter: chapter, kind: kind, tags: tags, now: date)
                }
                imported += 1
            }
        }
        return (imported, skipped)
    }
}
