// ib-capture's side of the library: books by title, the current book,
// quotes, notes, progress events, plans, reading state.
import IBCore
import IBStore

public enum Resolution: Sendable {
    case book(BookSummary)
    case ambiguous(query: String, [TitleMatcher.Match])
    case none(query: String, suggestions: [TitleMatcher.Match])
}

public final class CaptureStore {
    public let library: Library
    let records: ReaderRecords
    private var entriesCache: [TitleMatcher.Entry]? = nil
    /// Built once per loaded list: a plan of 400 titles resolves against one matcher.
    private var matcherCache: (matcher: TitleMatcher, ids: Set<String>, longestAndRun: Int)? = nil

    public init(library: Library) {
        self.library = library
        records = ReaderRecords(library)
    }

    /// `create`: a capture may start a library; reading (status, export) never does.
    public static func open(path: String?, create: Bool = true) throws -> CaptureStore {
        CaptureStore(library: try Library.open(path: path, create: create))
    }

    // MARK: books

    func bookRef(id: String) throws -> BookSummary? {
        try records.book(id: id)
    }

    /// All titles (and authors) for matching: one query.
    func entries() throws -> [TitleMatcher.Entry] {
        if let e = entriesCache { return e }
        let e = try records.titleEntries()
        entriesCache = e
        return e
    }

    /// The matcher over every title, the ids, and the most parts joined by " and "
    /// in any one title ("War and Peace": 2), which bounds how far a plan joins its parts.
    func matching() throws -> (matcher: TitleMatcher, ids: Set<String>, longestAndRun: Int) {
        if let m = matcherCache { return m }
        let all = try entries()
        let longest = all.map { Self.andParts(TitleMatcher.normalize($0.title)) }.max() ?? 1
        let m = (TitleMatcher(all), Set(all.map(\.id)), longest)
        matcherCache = m
        return m
    }

    /// How many parts " and " splits a title into.
    static func andParts(_ title: String) -> Int {
        let words = title.split(separator: " ")
        return 1 + words.dropFirst().dropLast().filter { $0 == "and" }.count
    }

    /// Finds the book a line names. Tries the whole name, then each comma-separated part
    /// ("Marcus Aurelius, Meditations").
    public func resolve(_ query: String, author: String? = nil) throws -> Resolution {
        let (matcher, ids, _) = try matching()
        if ids.contains(query), let ref = try bookRef(id: query) { return .book(ref) }
        let result = matcher.match(query, author: author)
        switch result {
        case .unique(let m):
            return .book(try bookRef(id: m.id)!)
        case .ambiguous(let ms):
            return .ambiguous(query: query, ms)
        case .none(let suggestions):
            let parts = query.split(whereSeparator: { $0 == "," || $0 == "，" }).map { TextClasses.trim($0) }.filter { !$0.isEmpty }
            if parts.count > 1 {
                var found: [TitleMatcher.Match] = []
                for p in parts { if let u = matcher.match(p, author: author).unique { found.append(u) } }
                if found.count == 1 { return .book(try bookRef(id: found[0].id)!) }
            }
            return .none(query: query, suggestions: suggestions)
        }
    }

    /// The current book: the most recently active one being read.
    public func currentBook() throws -> BookSummary? {
        if let id = try records.latestReadingBookID() {
            return try bookRef(id: id)
        }
        if let id = try records.latestProgressBookID() {
            return try bookRef(id: id)
        }
        // A library of one book: that one.
        if let id = try records.onlyBookID() {
            return try bookRef(id: id)
        }
        return nil
    }

    /// Adds a book the reader holds in their hands (no file): id from the title and authors.
    public func createBook(title: String, author: String?, pageCount: Int?, now: String) throws -> BookSummary {
        let key = "ib-capture:" + TitleMatcher.normalize(title) + "\n" + TitleMatcher.normalize(author ?? "")
        let id = String(SHA256.hex(key).prefix(16))
        if let existing = try bookRef(id: id) { return existing }
        try records.addPhysicalBook(id: id, title: title, author: author, source: "capture:" + title, pageCount: pageCount, now: now)
        entriesCache = nil
        matcherCache = nil
        return try bookRef(id: id)!
    }

    public func state(of bookID: String) throws -> String? {
        try records.readingState(of: bookID)
    }

    /// Sets the state (nil keeps it, creating 'reading' when there is none) and marks the book active now.
    public func touch(_ bookID: String, state: String?, now: String) throws {
        let old = try self.state(of: bookID)
        let newState = state ?? (old == nil || old == "want" || old == "added" ? "reading" : old!)
        try records.setReadingState(bookID: bookID, newState, startedAt: newState == "reading" ? now : nil,
                                    finishedAt: newState == "finished" ? now : nil, activeAt: now)
    }

    public func setPageCount(_ bookID: String, _ count: Int) throws {
        try records.setPageCount(bookID: bookID, count)
    }

    /// The reading position: the same column ib-index set-page, ib-search and ib-ask use.
    public func setPosition(_ bookID: String, _ page: Int, now: String) throws {
        try records.setPosition(bookID: bookID, page, now: now)
    }

    // MARK: captures

    public func addQuote(bookID: String, text: String, page: Int?, tags: [String], now: String) throws -> Int {
        try records.addQuote(bookID: bookID, text: text, page: page, tags: tags, now: now)
    }

    public func addNote(bookID: String, text: String, page: Int?, chapter: String?, kind: String, tags: [String], now: String) throws -> Int {
        try records.addNote(bookID: bookID, text: text, page: page, chapter: chapter, kind: kind, tags: tags, now: now)
    }

    @discardableResult
    public func addProgress(bookID: String, page: Int?, pagesRead: Int?, kind: String, now: String, seconds: Int? = nil) throws -> Int {
        try records.addProgress(bookID: bookID, page: page, pagesRead: pagesRead, kind: kind, now: now, seconds: seconds)
    }

    /// The names a spoken line may use for a book: every title and author in the library.
    /// The books, most recently updated first: what a reader is likely to name aloud.
    public func recentBooks() throws -> [TitleMatcher.Entry] {
        try records.titleEntries(recentFirst: true)
    }

    public func spokenNames() throws -> SpokenNames {
        let all = try entries()
        return SpokenNames(titles: all.map(\.title), authors: all.flatMap(\.authors))
    }

    public func addPlan(title: String, due: Day?, bookIDs: [String], startDate: Day, pagesAtStart: Int?, dailyPages: Int?, now: String) throws -> Int {
        try records.addPlan(title: title, due: due?.description, bookIDs: bookIDs, startDate: startDate.description,
                            pagesAtStart: pagesAtStart, dailyPages: dailyPages, now: now)
    }

    public func quoteExists(bookID: String, text: String, page: Int?) throws -> Bool {
        try records.quoteExists(bookID: bookID, text: text, page: page)
    }
}
