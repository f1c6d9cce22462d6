// What `ib-capture status` and `export` read back from the reader's records:
// pages read per event, quotes, notes and active plans, as typed rows.
import IBCore

public struct StoredQuote: Sendable, Equatable {
    public var id: Int
    /// Empty when the book was deleted and the quote kept (detached).
    public var bookID: String
    /// Set by the queries that join the book (status) and, from the kept
    /// title, for a detached quote; empty otherwise.
    public var bookTitle: String
    public var text: String
    public var page: Int?
    public var note: String?
    public var tags: [String]
    public var createdAt: String
}

public struct StoredNote: Sendable, Equatable {
    public var id: Int
    /// Empty when the book was deleted and the note kept (detached).
    public var bookID: String
    /// Set by the queries that join the book (status) and, from the kept
    /// title, for a detached note; empty otherwise.
    public var bookTitle: String
    public var text: String
    /// "note" or "question".
    public var kind: String
    public var page: Int?
    public var chapter: String?
    public var tags: [String]
    public var createdAt: String
}

public struct StoredPlan: Sendable, Equatable {
    public var id: Int
    public var title: String
    /// An ISO-8601 day, or nil for a daily goal without an end.
    public var targetDate: String?
    public var bookIDs: [String]
    public var dailyPages: Int?
}

extension ReaderRecords {
    /// Pages read per progress event since `since` (ISO-8601 UTC), events that read none left out.
    public func pagesRead(since: String) throws -> [(createdAt: String, pages: Int)] {
        try db.query("SELECT created_at, pages_read FROM progress_events WHERE created_at >= ? AND pages_read > 0", since).compactMap { row in
            row.text("created_at").map { ($0, row.int("pages_read") ?? 0) }
        }
    }

    public func quoteCount() throws -> Int {
        try db.scalarInt("SELECT count(*) FROM quotes") ?? 0
    }

    /// The quote at `offset` in the order they were stored, with its book's title.
    public func quote(atOffset offset: Int) throws -> StoredQuote? {
        try db.query("""
            SELECT q.id, q.text, q.page, coalesce(b.title, q.book_title) AS title, q.book_id FROM quotes q LEFT JOIN books b ON b.id = q.book_id
            ORDER BY q.id LIMIT 1 OFFSET ?
            """, offset).first.map { row in
            StoredQuote(id: row.int("id") ?? 0, bookID: row.text("book_id") ?? "", bookTitle: row.text("title") ?? "",
                        text: row.text("text") ?? "", page: row.int("page"), note: nil, tags: [], createdAt: "")
        }
    }

    /// The latest note or question, with its book's title.
    public func latestNote() throws -> StoredNote? {
        try db.query("""
            SELECT n.id, n.text, n.kind, n.page, coalesce(b.title, n.book_title) AS title, n.book_id FROM notes n LEFT JOIN books b ON b.id = n.book_id
            ORDER BY n.created_at DESC, n.id DESC LIMIT 1
            """).first.map { row in
            StoredNote(id: row.int("id") ?? 0, bookID: row.text("book_id") ?? "", bookTitle: row.text("title") ?? "",
                       text: row.text("text") ?? "", kind: row.text("kind") ?? "note", page: row.int("page"), chapter: nil,
                       tags: [], createdAt: "")
        }
    }

    /// Plans still active, oldest first.
    public func activePlans() throws -> [StoredPlan] {
        try db.query("SELECT id, title, target_date, book_ids, daily_pages FROM reading_plans WHERE status = 'active' ORDER BY id").map { row in
            StoredPlan(id: row.int("id") ?? 0, title: row.text("title") ?? "", targetDate: row.text("target_date"),
                       bookIDs: Self.strings(row.text("book_ids")), dailyPages: row.int("daily_pages"))
        }
    }

    /// Every quote, by book, then page (quotes without one last), then as stored.
    public func allQuotes() throws -> [StoredQuote] {
        try db.query("SELECT id, book_id, book_title, text, page, note, tags, created_at FROM quotes ORDER BY book_id, coalesce(page, 1e9), id").map { row in
            StoredQuote(id: row.int("id") ?? 0, bookID: row.text("book_id") ?? "", bookTitle: row.text("book_title") ?? "", text: row.text("text") ?? "",
                        page: row.int("page"), note: row.text("note"), tags: Self.strings(row.text("tags")),
                        createdAt: row.text("created_at") ?? "")
        }
    }

    /// Every note and question, in the same order as `allQuotes`.
    public func allNotes() throws -> [StoredNote] {
        try db.query("SELECT id, book_id, book_title, text, page, chapter, kind, tags, created_at FROM notes ORDER BY book_id, coalesce(page, 1e9), id").map { row in
            StoredNote(id: row.int("id") ?? 0, bookID: row.text("book_id") ?? "", bookTitle: row.text("book_title") ?? "", text: row.text("text") ?? "",
                       kind: row.text("kind") ?? "note", page: row.int("page"), chapter: row.text("chapter"),
                       tags: Self.strings(row.text("tags")), createdAt: row.text("created_at") ?? "")
        }
    }
}
