// What cards, charts and suggestions read: one quote with its book's title,
// authors and printed page label, every progress event, and each book's
// reading state.
import IBCore

/// A quote as a card shows it.
public struct CardQuote: Sendable, Equatable {
    public var id: Int
    public var text: String
    public var bookTitle: String
    public var authors: [String]
    public var page: Int?
    /// The printed page label (the quote's own, else the book's for that page), when there is one.
    public var pageLabel: String?
}

public struct ProgressEvent: Sendable, Equatable {
    public var bookID: String
    public var page: Int?
    public var pagesRead: Int
    public var kind: String
    public var createdAt: String
}

public struct BookState: Sendable, Equatable {
    public var bookID: String
    public var title: String
    public var state: String
    public var activeAt: String
}

extension ReaderRecords {
    static let cardQuoteSQL = """
        SELECT q.id, q.text, q.page, q.page_label, coalesce(b.title, q.book_title) AS title,
          (SELECT json_group_array(name) FROM (SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id
             WHERE ba.book_id = q.book_id ORDER BY ba.position)) AS authors,
          (SELECT p.label FROM pages p WHERE p.book_id = q.book_id AND p.page = q.page AND p.label <> '') AS printed
        FROM quotes q LEFT JOIN books b ON b.id = q.book_id
        """

    static func cardQuote(_ row: Row) -> CardQuote {
        CardQuote(id: row.int("id") ?? 0, text: row.text("text") ?? "", bookTitle: row.text("title") ?? "",
                  authors: strings(row.text("authors")), page: row.int("page"),
                  pageLabel: row.text("page_label").flatMap { $0.isEmpty ? nil : $0 } ?? row.text("printed"))
    }

    /// One quote for a card; nil when there is none with this id.
    public func cardQuote(id: Int) throws -> CardQuote? {
        try db.query(Self.cardQuoteSQL + " WHERE q.id = ?", id).first.map(Self.cardQuote)
    }

    /// Every quote for cards, in the order they were stored.
    public func cardQuotes() throws -> [CardQuote] {
        try db.query(Self.cardQuoteSQL + " ORDER BY q.id").map(Self.cardQuote)
    }

    /// Every progress event since `since` (ISO-8601 UTC), oldest first.
    public func progressEvents(since: String) throws -> [ProgressEvent] {
        try db.query("SELECT book_id, page, pages_read, kind, created_at FROM progress_events WHERE created_at >= ? ORDER BY created_at, id",
                     since).map { row in
            ProgressEvent(bookID: row.text("book_id") ?? "", page: row.int("page"), pagesRead: row.int("pages_read") ?? 0,
                          kind: row.text("kind") ?? "", createdAt: row.text("created_at") ?? "")
        }
    }

    /// Each book with a reading state, with its title.
    public func bookStates() throws -> [BookState] {
        try db.query("SELECT s.book_id, b.title, s.state, s.active_at FROM reading_state s JOIN books b ON b.id = s.book_id ORDER BY s.active_at DESC").map { row in
            BookState(bookID: row.text("book_id") ?? "", title: row.text("title") ?? "", state: row.text("state") ?? "",
                      activeAt: row.text("active_at") ?? "")
        }
    }
}
