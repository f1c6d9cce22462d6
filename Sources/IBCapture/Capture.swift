// Turns a parsed line into a stored record: finds the book, writes, and
// returns the JSON record printed on stdout.
import IBCore
import IBStore

public struct CaptureOptions: Sendable {
    public var dryRun = false
    public var json = false
    /// Records as a line of text (a terminal, or --format text) instead of JSON.
    public var text = false
    public var create = false
    public var ask = false
    public var now: Double = Timestamp.now()
    public var today: Day? = nil
    /// Finishing the current book without naming it ("done") is allowed.
    public var yes = false
    /// Lines are what was said (a transcript): read with the spoken forms (--spoken, --audio).
    public var spoken = false
    public init() {}
}

/// A failure that carries candidates (ambiguity) for --json.
public struct CaptureFailure: Error {
    public var error: IBError
    public var json: JSON?
}

public final class CaptureEngine {
    public let options: CaptureOptions
    public let parser: CaptureParser
    public var store: CaptureStore?
    /// Whether "Reading X" adds X when the library has no such book (typed lines; spoken ones need --create).
    var createsBooks = true
    /// Set when a follow-up line settled an ambiguity: the book to use.
    public var forcedBookID: String? = nil
    let nowText: String
    let today: Day

    public init(options: CaptureOptions, store: CaptureStore?) {
        self.options = options
        self.store = store
        today = options.today ?? Day(seconds: options.now)
        parser = CaptureParser(today: today)
        nowText = Timestamp.iso8601(options.now, fractional: true)
    }

    /// The parse alone, as a record (for --dry-run).
    public static func dryRunRecord(_ c: Capture) -> JSON {
        var o = JSONObject()
        o["type"] = .string(c.intent == .unknown ? "unknown" : c.intent.rawValue)
        if let status = c.status { o["status"] = .string(status) }
        if c.intent == .plan { o["books"] = JSON(c.books) } else { o["book"] = JSON(c.book) }
        if let a = c.author { o["author"] = .string(a) }
        if let t = c.text { o["text"] = .string(t) }
        if let p = c.page { o["page"] = JSON(p) }
        if let p = c.pageEnd { o["page_end"] = JSON(p) }
        if let p = c.pagesRead { o["pages_read"] = JSON(p) }
        if let p = c.pageCount { o["page_count"] = JSON(p) }
        if let p = c.percent { o["percent"] = JSON(p) }
        if let t = c.seconds { o["seconds"] = JSON(t); o["position"] = .string(SpokenNumbers.clockText(t)) }
        if let ch = c.chapter { o["chapter"] = .string(ch) }
        if c.intent == .progress { o["finished"] = .bool(c.finished) }
        if let d = c.due { o["due"] = .string(d.description) }
        if let d = c.dailyPages { o["daily_pages"] = JSON(d) }
        if c.intent != .progress && c.intent != .plan && c.intent != .book { o["tags"] = JSON(c.tags) }
        o["language"] = .string(c.language)
        if let r = c.reason { o["reason"] = .string(r) }
        return .object(o)
    }

    /// --dry-run: the parse, and (when a library is at hand) the book the capture
    /// would go to (book_id, book_title; null when none matches). Writes nothing.
    func dryRun(_ c: Capture) throws -> JSON {
        var record = CaptureEngine.dryRunRecord(c)
        guard let store, [.quote, .note, .question, .progress].contains(c.intent), case .object(var o) = record else { return record }
        var ref: BookSummary? = nil
        if let id = forcedBookID { ref = try store.bookRef(id: id) }
        else if let name = c.book {
            switch try store.resolve(name, author: c.author) {
            case .book(let r): ref = r
            case .ambiguous(let q, let ms): throw try ambiguity(q, ms)
            case .none: ref = nil
            }
        } else {
            ref = try store.currentBook()
        }
        o["book_id"] = JSON(ref?.id)
        o["book_title"] = JSON(ref?.title)
        record = .object(o)
        return record
    }

    func fail(_ key: String, _ args: String..., code: ExitCode = .failure) -> CaptureFailure {
        CaptureFailure(error: IBError(Messages.text(key, arguments: args, language: Messages.current), code: code), json: nil)
    }

    func ambiguity(_ query: String, _ matches: [TitleMatcher.Match]) throws -> CaptureFailure {
        try ambiguity(query, matches.map { (id: $0.id, title: $0.title, score: $0.score) })
    }

    /// Exit 3: nothing written, the candidates listed (and kept for the line that settles it).
    /// `key` is the message: "ambiguous" (a title) or "ambiguous_author" (an author's name).
    func ambiguity(_ query: String, _ matches: [(id: String, title: String, score: Double)],
                   key: String = "ambiguous") throws -> CaptureFailure {
        var message = Messages.text(key, arguments: [query, String(matches.count)], language: Messages.current)
        var candidates: [JSON] = []
        for (i, m) in matches.enumerated() {
            let ref = try store?.bookRef(id: m.id)
            message += "\n  \(i + 1). \(m.id)  \(m.title)" + ((ref?.authors.isEmpty ?? true) ? "" : " — " + ref!.authors.joined(separator: ", "))
            // Two editions of one title are told apart as every tool does (Library.edition).
            if let info = try store?.library.book(id: m.id), !info.format.isEmpty { message += " " + Library.edition(info) }
            candidates.append(["id": .string(m.id), "title": .string(m.title), "authors": JSON(ref?.authors ?? []),
                               "score": .number((m.score * 1000).rounded() / 1000)])
        }
        message += "\n" + Messages.text("settle_hint", arguments: [], language: Messages.current)
        var o = JSONObject([("type", "ambiguous"), ("query", .string(query))])
        if key == "ambiguous_author" { o["by"] = "author" }
        o["candidates"] = .array(candidates)
        let json: JSON = .object(o)
        return CaptureFailure(error: IBError(message, code: .ambiguous), json: json)
    }

    /// The book a capture is about: named, or the current one.
    func book(for c: Capture, createIfMissing: Bool) throws -> BookSummary {
        guard let store else { throw fail("no_current_book") }
        if let id = forcedBookID, let ref = try store.bookRef(id: id) { return ref }
        guard let name = c.book else {
            guard let current = try store.currentBook() else { throw fail("no_current_book") }
            return current
        }
        switch try store.resolve(name, author: c.author) {
        case .book(let ref): return ref
        case .ambiguous(let q, let ms): throw try ambiguity(q, ms)
        case .none(let q, let suggestions):
            // `"..." - Aristotle`: a name that is an author, not a title.
            if !createIfMissing, let ref = try bookByAuthor(name, store) { return ref }
            if createIfMissing || options.create {
                let ref = try store.createBook(title: name, author: c.author, pageCount: c.pageCount, now: nowText)
                printError(Messages.text("created_book", arguments: [ref.title], language: Messages.current))
                return ref
            }
            var f = fail("unknown_book", q)
            if !suggestions.isEmpty {
                f.error = IBError(f.error.message + "\n" + Messages.text("did_you_mean", arguments: [suggestions.prefix(3).map(\.title).joined(separator: "; ")], language: Messages.current))
            }
            throw f
        }
    }

    /// The book a name that is an author's stands for: the only book in the
    /// library by them. When several are, the current book wins if it is one of
    /// them (and stderr says so); otherwise nothing is guessed: exit 3 with the
    /// candidates. nil: no book by that name.
    func bookByAuthor(_ name: String, _ store: CaptureStore) throws -> BookSummary? {
        let key = TitleMatcher.normalize(name)
        guard !key.isEmpty else { return nil }
        func by(_ authors: [String]) -> Bool {
            authors.contains { a in let n = TitleMatcher.normalize(a); return n == key || n.hasSuffix(" " + key) || n.hasPrefix(key + " ") }
        }
        let books = try store.entries().filter { by($0.authors) }.sorted { ($0.title, $0.id) < ($1.title, $1.id) }
        if books.isEmpty { return nil }
        if books.count == 1 { return try store.bookRef(id: books[0].id) }
        if let current = try store.currentBook(), books.contains(where: { $0.id == current.id }) {
            printError(Messages.text("author_current", arguments: [name, String(books.count), current.title], language: Messages.current))
            return current
        }
        throw try ambiguity(name, books.map { (id: $0.id, title: $0.title, score: 1.0) }, key: "ambiguous_author")
    }

    /// A page past the book's last page (when its page count is known) is refused.
    func checkPages(_ c: Capture, _ ref: BookSummary) throws {
        guard ref.pageCount > 0 else { return }
        for page in [c.page, c.pageEnd].compactMap({ $0 }) where page > ref.pageCount {
            throw fail("page_past_end", ref.title, String(ref.pageCount), String(page))
        }
    }

    func base(_ type: String, _ ref: BookSummary) -> JSONObject {
        var o = JSONObject()
        o["type"] = .string(type)
        o["book_id"] = .string(ref.id)
        o["book_title"] = .string(ref.title)
        return o
    }

    /// Parses, resolves and stores one line; returns the record.
    public func capture(_ line: String) throws -> JSON {
        let c = parser.parse(line)
        // "done" alone would finish whatever book is current and lift its spoiler limit.
        if c.intent == .progress, c.finished, c.book == nil, forcedBookID == nil, !options.yes {
            throw fail("finish_needs_book")
        }
        return try capture(c, line: line)
    }

    /// Parses a spoken line (a transcript: "quote page forty seven ... end quote"),
    /// resolves and stores it; book names are split off with the library's titles.
    public func capture(spoken line: String) throws -> JSON {
        // A title heard wrong must not become a new book: spoken lines add books only with --create.
        createsBooks = false
        defer { createsBooks = true }
        let names = try store?.spokenNames() ?? .none
        let c = parser.parseSpoken(line, names: names)
        if c.intent == .progress, c.finished, c.book == nil, forcedBookID == nil, !options.yes {
            throw fail("finish_needs_book")
        }
        return try capture(c, line: line)
    }

    /// Resolves and stores a capture already in hand (ib-mcp's typed tools);
    /// `line` stands for it in messages.
    public func capture(_ c: Capture, line: String) throws -> JSON {
        try check(c, line: line)
        if options.dryRun { return try dryRun(c) }
        if store == nil { return CaptureEngine.dryRunRecord(c) }
        let store = store!
        return try store.library.db.write { () throws -> JSON in try self.write(c, line, store) }
    }

    /// Refuses what cannot be stored as written: a line not understood, a page
    /// that is no page, text holding NUL (SQLite and C strings would cut it there).
    func check(_ c: Capture, line: String) throws {
        let fields = [line, c.text, c.chapter, c.book, c.author].compactMap { $0 } + c.books + c.tags
        if fields.contains(where: { $0.utf8.contains(0) }) { throw fail("nul_in_text") }
        if c.intent == .unknown {
            let key = c.reason ?? "not_understood"
            if key.hasPrefix("empty_text:") {
                throw fail("empty_text", Messages.text("kind_" + key.dropFirst("empty_text:".count), arguments: [], language: Messages.current))
            }
            if key == "plan_no_date" { throw fail("plan_no_date") }
            if key == "spoken_unknown_book" || key == "spoken_book_in_words" || key == "spoken_page_unheard" || key == "spoken_page_in_words" { throw fail(key, TextClasses.trim(line)) }
            if key == "two_readings", c.readings.count == 2, c.language == "en", !TextClasses.containsHan(line) {
                throw fail("spoken_two_readings", TextClasses.trim(line), c.readings[0], c.readings[1], code: .ambiguous)
            }
            if key == "two_readings", c.readings.count == 2 {
                throw fail("two_readings", TextClasses.trim(line), c.readings[0], c.readings[1], code: .ambiguous)
            }
            throw fail(key == "empty" ? "empty" : "not_understood", TextClasses.trim(line))
        }
        // "p. -3", "p. 0": no such page; the capture is refused, not stored without it.
        if let bad = c.badPage {
            if let key = c.badPageKey { throw fail(key, bad) }
            let below = bad.hasPrefix("-") || bad.allSatisfy { $0 == "0" || $0 == "零" || $0 == "〇" }
            throw fail(below ? "page_below_one" : "page_too_large", bad)
        }
        try checkCounts(c)
    }

    /// Counts that are no count: "-5 pages" (a page count), "read -5 pages".
    func checkCounts(_ c: Capture) throws {
        if let n = c.pageCount, n < 1 { throw fail("page_count_below_one", String(n)) }
        if let n = c.pagesRead, n < 0 { throw fail("pages_read_negative", String(n)) }
    }

    /// Stores a checked capture; the caller holds the write transaction.
    func write(_ c: Capture, _ line: String, _ store: CaptureStore) throws -> JSON {
            switch c.intent {
            case .quote, .note, .question:
                let ref = try book(for: c, createIfMissing: false)
                try checkPages(c, ref)
                var o: JSONObject
                let id: Int
                if c.intent == .quote {
                    id = try store.addQuote(bookID: ref.id, text: c.text ?? "", page: c.page, tags: c.tags, now: nowText)
                    o = base("quote", ref)
                } else {
                    id = try store.addNote(bookID: ref.id, text: c.text ?? "", page: c.page, chapter: c.chapter,
                                           kind: c.intent == .question ? "question" : "note", tags: c.tags, now: nowText)
                    o = base(c.intent.rawValue, ref)
                }
                // A quote, note or question does not make its book the current one:
                // only a progress line or "Reading X" does.
                o["id"] = JSON(id)
                o["text"] = .string(c.text ?? "")
                o["page"] = JSON(c.page)
                if c.intent == .quote { o["page_end"] = JSON(c.pageEnd) }
                if c.intent != .quote { o["chapter"] = JSON(c.chapter) }
                o["tags"] = JSON(c.tags)
                o["created_at"] = .string(nowText)
                return .object(o)
            case .progress:
                return try progress(c, store)
            case .book:
                return try bookIntent(c, store)
            case .plan:
                return try plan(c, line, store)
            case .unknown:
                throw fail("not_understood", line)
            }
    }

    func progress(_ c: Capture, _ store: CaptureStore) throws -> JSON {
        var ref = try book(for: c, createIfMissing: false)
        if let total = c.pageCount, total > 0 { try store.setPageCount(ref.id, total); ref.pageCount = total }
        let old = ref.currentPage
        if let seconds = c.seconds { return try progressByTime(c, ref, seconds, store) }
        var page: Int
        var kind = "page"
        if c.finished {
            page = ref.pageCount > 0 ? ref.pageCount : max(old, c.page ?? 0)
            kind = "finished"
        } else if let p = c.page {
            page = p
        } else if let delta = c.pagesRead {
            page = old + delta
            kind = "pages"
            if ref.pageCount > 0 { page = min(page, ref.pageCount) }
        } else if let pct = c.percent {
            guard ref.pageCount > 0 else { throw fail("no_page_count", ref.title) }
            page = (ref.pageCount * pct + 50) / 100
            kind = "percent"
        } else {
            throw fail("not_understood", "")
        }
        if ref.pageCount > 0 && page > ref.pageCount {
            throw fail("page_past_end", ref.title, String(ref.pageCount), String(page))
        }
        // The first position given for a book says where the reader is, not what was read today.
        let firstPosition = try kind == "page" && !store.records.hasReadingEvents(bookID: ref.id)
        let pagesRead = c.pagesRead ?? (firstPosition ? 0 : max(0, page - old))
        // "read 30 pages yesterday" counts on yesterday's date (at noon, local time).
        let at = c.daysAgo.map { StatusReport.noon(today.adding(days: -$0)) } ?? nowText
        let id = try store.addProgress(bookID: ref.id, page: page, pagesRead: pagesRead, kind: kind, now: at)
        try store.setPosition(ref.id, page, now: nowText)
        let finished = c.finished || (ref.pageCount > 0 && page >= ref.pageCount)
        try store.touch(ref.id, state: finished ? "finished" : nil, now: nowText)
        if finished && Terminal.stderrIsTerminal { printError(Messages.text("finished_book", arguments: [ref.title], language: Messages.current)) }
        var o = base("progress", ref)
        o["id"] = JSON(id)
        o["kind"] = .string(kind)
        o["page"] = JSON(page)
        o["previous_page"] = JSON(old)
        o["pages_read"] = JSON(pagesRead)
        o["page_count"] = ref.pageCount > 0 ? JSON(ref.pageCount) : .null
        o["percent"] = StatusReport.percent(page, of: ref.pageCount)
        o["finished"] = .bool(finished)
        o["created_at"] = .string(at)
        return .object(o)
    }

    /// "listened to 2:15:00 of Persuasion": the position in the audio, in seconds; the
    /// page position is left as it was. The book becomes the current one.
    func progressByTime(_ c: Capture, _ ref: BookSummary, _ seconds: Int, _ store: CaptureStore) throws -> JSON {
        let previous = try store.records.lastSeconds(bookID: ref.id)
        let at = c.daysAgo.map { StatusReport.noon(today.adding(days: -$0)) } ?? nowText
        // An audio book in the library (pages with times): the page at that time is the
        // reading position too, so search and ask stop there ("never past your page").
        let page = try store.records.page(bookID: ref.id, atSeconds: seconds)
        let id = try store.addProgress(bookID: ref.id, page: page, pagesRead: 0, kind: "time", now: at, seconds: seconds)
        if let page { try store.setPosition(ref.id, page, now: nowText) }
        try store.touch(ref.id, state: nil, now: nowText)
        var o = base("progress", ref)
        o["id"] = JSON(id)
        o["kind"] = "time"
        o["seconds"] = JSON(seconds)
        o["position"] = .string(SpokenNumbers.clockText(seconds))
        o["previous_seconds"] = JSON(previous)
        o["page"] = JSON(page ?? ref.currentPage)
        o["previous_page"] = JSON(ref.currentPage)
        o["finished"] = .bool(false)
        o["created_at"] = .string(at)
        return .object(o)
    }

    func bookIntent(_ c: Capture, _ store: CaptureStore) throws -> JSON {
        let ref0 = try book(for: c, createIfMissing: createsBooks)
        var ref = ref0
        if let total = c.pageCount, total > 0 { try store.setPageCount(ref.id, total); ref.pageCount = total }
        let status = c.status ?? "reading"
        let old = try store.state(of: ref.id)
        // "Added X" does not demote a book being read.
        let newState = status == "added" && old != nil ? old! : status
        try store.touch(ref.id, state: newState, now: nowText)
        if newState == "reading" && old != "reading" {
            try store.addProgress(bookID: ref.id, page: ref.currentPage, pagesRead: 0, kind: "started", now: nowText)
        }
        var o = JSONObject()
        o["type"] = "book"
        o["id"] = .string(ref.id)
        o["title"] = .string(ref.title)
        o["authors"] = JSON(ref.authors)
        o["status"] = .string(newState)
        o["page"] = JSON(ref.currentPage)
        o["page_count"] = ref.pageCount > 0 ? JSON(ref.pageCount) : .null
        o["created_at"] = .string(nowText)
        return .object(o)
    }

    /// The most books one plan holds; past it the plan is refused, nothing written.
    public static let maxPlanBooks = 1000

    /// Plan books, each once, in the order named: each part resolved against one
    /// loaded list; "War" + "Peace" are joined back when "War and Peace" is a book
    /// (runs no longer than the library's longest such title, so the work stays linear).
    func planBooks(_ c: Capture, _ store: CaptureStore) throws -> [BookSummary] {
        var parts: [String] = []
        var named = Set<String>()
        for p in c.books where named.insert(TitleMatcher.normalize(p)).inserted { parts.append(p) }
        if parts.count > Self.maxPlanBooks { throw fail("plan_too_many", String(parts.count), String(Self.maxPlanBooks)) }
        let (_, ids, longestAndRun) = try store.matching()
        var refs: [BookSummary] = []
        var taken = Set<String>()
        func take(_ ref: BookSummary) { if taken.insert(ref.id).inserted { refs.append(ref) } }
        var i = 0
        while i < parts.count {
            if ids.contains(parts[i]), let ref = try store.bookRef(id: parts[i]) { take(ref); i += 1; continue }
            // Longest run of parts joined with " and " that names one book exactly.
            var matched = false
            if !TextClasses.containsHan(parts[i]) {
                var j = min(parts.count, i + longestAndRun)
                while j > i + 1 {
                    let joined = parts[i..<j].joined(separator: " and ")
                    if case .book(let ref) = try store.resolve(joined), TitleMatcher.normalize(ref.title).contains(TitleMatcher.normalize(joined)) {
                        take(ref); i = j; matched = true; break
                    }
                    j -= 1
                }
            }
            if matched { continue }
            var single = c
            single.book = parts[i]
            take(try book(for: single, createIfMissing: false))
            i += 1
        }
        return refs
    }

    func plan(_ c: Capture, _ line: String, _ store: CaptureStore) throws -> JSON {
        var refs: [BookSummary] = []
        if c.books.isEmpty {
            if c.dailyPages == nil { throw fail("plan_no_books") }
        } else {
            refs = try planBooks(c, store)
        }
        var pagesLeft = 0
        var unknownPages: [String] = []
        for r in refs {
            if r.pageCount > 0 { pagesLeft += max(0, r.pageCount - r.currentPage) } else { unknownPages.append(r.title) }
        }
        var daysLeft: Int? = nil
        var perDay: Int? = c.dailyPages
        if let due = c.due {
            if due < today { throw fail("plan_past_due", due.description) }
            daysLeft = due.serial - today.serial + 1
            if unknownPages.isEmpty && !refs.isEmpty { perDay = (pagesLeft + daysLeft! - 1) / daysLeft! }
        }
        let title = c.books.isEmpty ? TextClasses.trim(line) : refs.map(\.title).joined(separator: ", ")
        let id = try store.addPlan(title: title, due: c.due, bookIDs: refs.map(\.id), startDate: today,
                                   pagesAtStart: unknownPages.isEmpty ? pagesLeft : nil, dailyPages: perDay, now: nowText)
        for r in refs { try store.touch(r.id, state: (try store.state(of: r.id)) == "finished" ? "finished" : "reading", now: nowText) }
        if !unknownPages.isEmpty { printError(Messages.text("no_page_count", arguments: [unknownPages[0]], language: Messages.current)) }
        var o = JSONObject()
        o["type"] = "plan"
        o["id"] = JSON(id)
        o["title"] = .string(title)
        o["books"] = .array(refs.map { r in
            ["book_id": .string(r.id), "title": .string(r.title), "page": JSON(r.currentPage),
             "page_count": r.pageCount > 0 ? JSON(r.pageCount) : .null,
             "pages_left": r.pageCount > 0 ? JSON(max(0, r.pageCount - r.currentPage)) : .null]
        })
        o["due"] = JSON(c.due?.description)
        o["days_left"] = JSON(daysLeft)
        o["pages_left"] = unknownPages.isEmpty ? JSON(pagesLeft) : .null
        o["pages_per_day"] = JSON(perDay)
        o["created_at"] = .string(nowText)
        return .object(o)
    }
}
