// The reader's own records as typed queries: the books they name, quotes,
// notes, progress events, reading plans and reading state. ib-capture keeps
// the rules (which book is current, which state follows which); this file
// keeps the SQL.
import IBCore

public struct ReaderRecords {
    let db: Database

    public init(_ library: Library) { db = library.db }

    // MARK: books

    public func book(id: String) throws -> BookSummary? {
        try db.query("""
            SELECT b.id, b.title, b.page_count, b.current_page,
              (SELECT json_group_array(name) FROM (SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id
                 WHERE ba.book_id = b.id ORDER BY ba.position)) AS authors
            FROM books b WHERE b.id = ?
            """, id).first.map { row in
            BookSummary(id: row.text("id") ?? "", title: row.text("title") ?? "", authors: Self.strings(row.text("authors")),
                        currentPage: row.int("current_page") ?? 0, pageCount: row.int("page_count") ?? 0)
        }
    }

    /// Every book's title and authors, for matching a name the reader wrote: one query.
    /// Every book's id, title and authors; `recentFirst`: the most recently updated first.
    public func titleEntries(recentFirst: Bool = false) throws -> [TitleMatcher.Entry] {
        try db.query("""
            SELECT b.id, b.title, group_concat(a.name, char(31)) AS authors
            FROM books b LEFT JOIN book_authors ba ON ba.book_id = b.id LEFT JOIN authors a ON a.id = ba.author_id
            GROUP BY b.id
            """ + (recentFirst ? " ORDER BY b.updated_at DESC, b.rowid DESC" : "")).map { row in
            TitleMatcher.Entry(id: row.text("id") ?? "", title: row.text("title") ?? "",
                               authors: (row.text("authors") ?? "").split(separator: "\u{1F}").map(String.init))
        }
    }

    /// The book most recently active in the 'reading' state.
    public func latestReadingBookID() throws -> String? {
        try db.scalarText("SELECT book_id FROM reading_state WHERE state = 'reading' AND book_id IS NOT NULL ORDER BY active_at DESC LIMIT 1")
    }

    /// The book of the latest progress event.
    public func latestProgressBookID() throws -> String? {
        try db.scalarText("SELECT book_id FROM progress_events WHERE book_id IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT 1")
    }

    /// The id of the library's only book; nil when it holds none or several.
    public func onlyBookID() throws -> String? {
        guard try db.scalarInt("SELECT count(*) FROM books") == 1 else { return nil }
        return try db.scalarText("SELECT id FROM books")
    }

    /// Stores a book the reader holds in their hands (no file, no pages, no chunks).
    public func addPhysicalBook(id: String, title: String, author: String?, source: String, pageCount: Int?, now: String) throws {
        try db.run("""
            INSERT INTO books (id, title, status, current_page, created_at, updated_at, format, source, sha256, page_count)
            VALUES (?, ?, 'ready', 0, ?, ?, 'physical', ?, '', ?)
            """, id, title, now, now, source, pageCount ?? 0)
        guard let author, !author.isEmpty else { return }
        try db.run("INSERT INTO authors (name) VALUES (?) ON CONFLICT(name) DO NOTHING", author)
        let authorID = try db.scalarInt("SELECT id FROM authors WHERE name = ?", author) ?? 0
        try db.run("INSERT OR IGNORE INTO book_authors (book_id, author_id, position) VALUES (?, ?, 0)", id, authorID)
    }

    public func setPageCount(bookID: String, _ count: Int) throws {
        try db.run("UPDATE books SET page_count = ? WHERE id = ?", count, bookID)
    }

    /// The reading position: the same column ib-index set-page, ib-search and ib-ask use.
    public func setPosition(bookID: String, _ page: Int, now: String) throws {
        try db.run("UPDATE books SET current_page = ?, updated_at = ? WHERE id = ?", page, now, bookID)
    }

    // MARK: reading state

    public func readingState(of bookID: String) throws -> String? {
        try db.scalarText("SELECT state FROM reading_state WHERE book_id = ?", bookID)
    }

    /// Sets the state and the time of the last activity; a start or finish time is
    /// recorded only when the book has none yet (a finish time given always wins).
    public func setReadingState(bookID: String, _ state: String, startedAt: String?, finishedAt: String?, activeAt: String) throws {
        try db.run("""
            INSERT INTO reading_state (book_id, state, started_at, finished_at, active_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(book_id) DO UPDATE SET state = excluded.state, active_at = excluded.active_at,
              started_at = coalesce(reading_state.started_at, excluded.started_at),
              finished_at = coalesce(excluded.finished_at, reading_state.finished_at)
            """, bookID, state, startedAt, finishedAt, activeAt)
    }

    // MARK: captures (each returns the new row's id)

    public func addQuote(bookID: String, text: String, page: Int?, tags: [String], now: String) throws -> Int {
        try db.run("INSERT INTO quotes (book_id, text, page, tags, created_at) VALUES (?, ?, ?, ?, ?)",
                   bookID, text, page, JSON(tags).serialized, now)
        return Int(db.lastInsertRowID)
    }

    /// The reader's own words beside a quote (an imported highlight's note).
    public func setQuoteNote(id: Int, _ note: String) throws {
        try db.run("UPDATE quotes SET note = ? WHERE id = ?", note, id)
    }

    public func addNote(bookID: String, text: String, page: Int?, chapter: String?, kind: String, tags: [String], now: String) throws -> Int {
        try db.run("INSERT INTO notes (book_id, text, page, chapter, kind, tags, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   bookID, text, page, chapter, kind, JSON(tags).serialized, now)
        return Int(db.lastInsertRowID)
    }

    @discardableResult
    public func addProgress(bookID: String, page: Int?, pagesRead: Int?, kind: String, now: String, seconds: Int? = nil) throws -> Int {
        try db.run("INSERT INTO progress_events (book_id, page, pages_read, kind, created_at, seconds) VALUES (?, ?, ?, ?, ?, ?)",
                   bookID, page, pagesRead, kind, now, seconds)
        return Int(db.lastInsertRowID)
    }

    /// The page of an audio book (pages with start_time, migration 0170) that holds the
    /// position `seconds`: the last page starting at or before it. nil for other books.
    public func page(bookID: String, atSeconds seconds: Int) throws -> Int? {
        try db.scalarInt("SELECT page FROM pages WHERE book_id = ? AND start_time IS NOT NULL AND start_time <= ? ORDER BY start_time DESC LIMIT 1",
                         bookID, Double(seconds))
    }

    /// The last position in time stored for a book (progress by time), in seconds.
    public func lastSeconds(bookID: String) throws -> Int? {
        try db.scalarInt("SELECT CAST(seconds AS INTEGER) FROM progress_events WHERE book_id = ? AND seconds IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT 1", bookID)
    }

    /// Whether the book has a progress event other than its start.
    public func hasReadingEvents(bookID: String) throws -> Bool {
        (try db.scalarInt("SELECT EXISTS (SELECT 1 FROM progress_events WHERE book_id = ? AND kind != 'started')", bookID) ?? 0) == 1
    }

    /// An active plan; `due` and `startDate` are ISO-8601 days.
    public func addPlan(title: String, due: String?, bookIDs: [String], startDate: String, pagesAtStart: Int?, dailyPages: Int?, now: String) throws -> Int {
        try db.run("""
            INSERT INTO reading_plans (title, target_date, book_ids, created_at, status, start_date, pages_at_start, daily_pages)
            VALUES (?, ?, ?, ?, 'active', ?, ?, ?)
            """, title, due, JSON(bookIDs).serialized, now, startDate, pagesAtStart, dailyPages)
        return Int(db.lastInsertRowID)
    }

    /// Whether the book already holds this quote at this page (nil page: none given).
    public func quoteExists(bookID: String, text: String, page: Int?) throws -> Bool {
        (try db.scalarInt("SELECT count(*) FROM quotes WHERE book_id = ? AND text = ? AND page IS ?", bookID, text, page) ?? 0) > 0
    }

    public func noteExists(bookID: String, text: String, page: Int?) throws -> Bool {
        (try db.scalarInt("SELECT count(*) FROM notes WHERE book_id = ? AND text = ? AND page IS ?", bookID, text, page) ?? 0) > 0
    }

    /// A JSON array of strings in a column; empty when absent or not an array.
    static func strings(_ text: String?) -> [String] {
        guard let text, let json = try? JSON.parse(text) else { return [] }
        return json.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
