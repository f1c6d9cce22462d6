// ib-capture's side of the library: books by title, the current book,
// quotes, notes, progress events, plans, reading state.
import IBCore
import IBStore

public struct BookRef: Sendable, Equatable {
    public var id: String
    public var title: String
    public var authors: [String]
    public var pageCount: Int
    public var currentPage: Int
}

public enum Resolution: Sendable {
    case book(BookRef)
    case ambiguous(query: String, [TitleMatcher.Match])
    case none(query: String, suggestions: [TitleMatcher.Match])
}

public final class CaptureStore {
    public let library: Library
    var db: Database { library.db }
    private var entriesCache: [TitleMatcher.Entry]? = nil

    public init(library: Library) { self.library = library }

    public static func open(path: String?) throws -> CaptureStore {
        CaptureStore(library: try Library.open(path: path))
    }

    // MARK: books

    func bookRef(id: String) throws -> BookRef? {
        try db.query("""
            SELECT b.id, b.title, b.page_count, b.current_page,
              (SELECT json_group_array(name) FROM (SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id
                 WHERE ba.book_id = b.id ORDER BY ba.position)) AS authors
            FROM books b WHERE b.id = ?
            """, id).first.map { row in
            var authors: [String] = []
            if let t = row.text("authors"), let j = try? JSON.parse(t) { authors = j.arrayValue?.compactMap(\.stringValue) ?? [] }
            return BookRef(id: row.text("id") ?? "", title: row.text("title") ?? "", authors: authors,
                           pageCount: row.int("page_count") ?? 0, currentPage: row.int("current_page") ?? 0)
        }
    }

    /// All titles (and authors) for matching: one query.
    func entries() throws -> [TitleMatcher.Entry] {
        if let e = entriesCache { return e }
        let rows = try db.query("""
            SELECT b.id, b.title, group_concat(a.name, char(31)) AS authors
            FROM books b LEFT JOIN book_authors ba ON ba.book_id = b.id LEFT JOIN authors a ON a.id = ba.author_id
            GROUP BY b.id
            """)
        let e = rows.map { row in
            TitleMatcher.Entry(id: row.text("id") ?? "", title: row.text("title") ?? "",
                               authors: (row.text("authors") ?? "").split(separator: "\u{1F}").map(String.init))
        }
        entriesCache = e
        return e
    }

    /// Finds the book a line names. Tries the whole name, then each comma-separated part
    /// ("Marcus Aurelius, Meditations").
    public func resolve(_ query: String, author: String? = nil) throws -> Resolution {
        let all = try entries()
        if let exact = all.first(where: { $0.id == query }), let ref = try bookRef(id: exact.id) { return .book(ref) }
        let matcher = TitleMatcher(all)
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
    public func currentBook() throws -> BookRef? {
        if let id = try db.scalarText("SELECT book_id FROM reading_state WHERE state = 'reading' ORDER BY active_at DESC LIMIT 1") {
            return try bookRef(id: id)
        }
        if let id = try db.scalarText("SELECT book_id FROM progress_events ORDER BY created_at DESC, id DESC LIMIT 1") {
            return try bookRef(id: id)
        }
        // A library of one book: that one.
        if try db.scalarInt("SELECT count(*) FROM books") == 1, let id = try db.scalarText("SELECT id FROM books") {
            return try bookRef(id: id)
        }
        return nil
    }

    /// Adds a book the reader holds in their hands (no file): id from the title and authors.
    public func createBook(title: String, author: String?, pageCount: Int?, now: String) throws -> BookRef {
        let key = "ib-capture:" + TitleMatcher.normalize(title) + "\n" + TitleMatcher.normalize(author ?? "")
        let id = String(SHA256.hex(key).prefix(16))
        if let existing = try bookRef(id: id) { return existing }
        try db.run("""
            INSERT INTO books (id, title, status, current_page, created_at, updated_at, format, source, sha256, page_count)
            VALUES (?, ?, 'ready', 0, ?, ?, 'physical', ?, '', ?)
            """, id, title, now, now, "capture:" + title, pageCount ?? 0)
        if let author, !author.isEmpty {
            try db.run("INSERT INTO authors (name) VALUES (?) ON CONFLICT(name) DO NOTHING", author)
            let authorID = try db.scalarInt("SELECT id FROM authors WHERE name = ?", author) ?? 0
            try db.run("INSERT OR IGNORE INTO book_authors (book_id, author_id, position) VALUES (?, ?, 0)", id, authorID)
        }
        entriesCache = nil
        return try bookRef(id: id)!
    }

    public func state(of bookID: String) throws -> String? {
        try db.scalarText("SELECT state FROM reading_state WHERE book_id = ?", bookID)
    }

    /// Sets the state (nil keeps it, creating 'reading' when there is none) and marks the book active now.
    public func touch(_ bookID: String, state: String?, now: String) throws {
        let old = try self.state(of: bookID)
        let newState = state ?? (old == nil || old == "want" || old == "added" ? "reading" : old!)
        try db.run("""
            INSERT INTO reading_state (book_id, state, started_at, finished_at, active_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(book_id) DO UPDATE SET state = excluded.state, active_at = excluded.active_at,
              started_at = coalesce(reading_state.started_at, excluded.started_at),
              finished_at = coalesce(excluded.finished_at, reading_state.finished_at)
            """, bookID, newState, newState == "reading" ? now : nil, newState == "finished" ? now : nil, now)
    }

    public func setPageCount(_ bookID: String, _ count: Int) throws {
        try db.run("UPDATE books SET page_count = ? WHERE id = ?", count, bookID)
    }

    /// The reading position: the same column ib-index set-page, ib-search and ib-ask use.
    public func setPosition(_ bookID: String, _ page: Int, now: String) throws {
        try db.run("UPDATE books SET current_page = ?, updated_at = ? WHERE id = ?", page, now, bookID)
    }

    // MARK: captures

    public func addQuote(bookID: String, text: String, page: Int?, tags: [String], now: String) throws -> Int {
        try db.run("INSERT INTO quotes (book_id, text, page, tags, created_at) VALUES (?, ?, ?, ?, ?)",
                   bookID, text, page, JSON(tags).serialized, now)
        return Int(db.lastInsertRowID)
    }

    public func addNote(bookID: String, text: String, page: Int?, chapter: String?, kind: String, tags: [String], now: String) throws -> Int {
        try db.run("INSERT INTO notes (book_id, text, page, chapter, kind, tags, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   bookID, text, page, chapter, kind, JSON(tags).serialized, now)
        return Int(db.lastInsertRowID)
    }

    public func addProgress(bookID: String, page: Int?, pagesRead: Int?, kind: String, now: String) throws -> Int {
        try db.run("INSERT INTO progress_events (book_id, page, pages_read, kind, created_at) VALUES (?, ?, ?, ?, ?)",
                   bookID, page, pagesRead, kind, now)
        return Int(db.lastInsertRowID)
    }

    public func addPlan(title: String, due: Day?, bookIDs: [String], startDate: Day, pagesAtStart: Int?, dailyPages: Int?, now: String) throws -> Int {
        try db.run("""
            INSERT INTO reading_plans (title, target_date, book_ids, created_at, status, start_date, pages_at_start, daily_pages)
            VALUES (?, ?, ?, ?, 'active', ?, ?, ?)
            """, title, due?.description, JSON(bookIDs).serialized, now, startDate.description, pagesAtStart, dailyPages)
        return Int(db.lastInsertRowID)
    }

    public func quoteExists(bookID: String, text: String, page: Int?) throws -> Bool {
        (try db.scalarInt("SELECT count(*) FROM quotes WHERE book_id = ? AND text = ? AND page IS ?", bookID, text, page) ?? 0) > 0
    }
}
