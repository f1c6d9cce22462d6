// The reader's quotes and notes as ib-search matches them: every one, with
// the fields a hit shows. (ib-capture writes them; no page limit applies to
// the reader's own material.)

/// A quote or a note to match a query against.
public struct ReaderText: Sendable, Equatable {
    public var id: Int
    /// Empty when the book was deleted and the quote or note kept.
    public var bookID: String
    /// The title kept on a detached quote or note (nil while its book is there).
    public var keptBookTitle: String?
    public var text: String
    public var page: Int?
    /// A quote's printed page label; nil for notes.
    public var pageLabel: String?
    /// Searched along with the text: a quote's own note; a note's chapter (shown, not searched).
    public var extra: String?
    /// A note's kind ("note", "question"); nil for quotes.
    public var kind: String?
    public var createdAt: String
}

extension Library {
    /// Every quote, in table order; those of a deleted book (kept, detached) too.
    public func quotesToSearch() throws -> [ReaderText] {
        try readerTexts("SELECT q.id, q.book_id, q.book_title, q.text, q.page, q.page_label, q.note AS extra, NULL AS kind, q.created_at FROM quotes q")
    }

    /// Every note, in table order; those of a deleted book (kept, detached) too.
    public func notesToSearch() throws -> [ReaderText] {
        try readerTexts("SELECT n.id, n.book_id, n.book_title, n.text, n.page, NULL AS page_label, n.chapter AS extra, n.kind, n.created_at FROM notes n")
    }

    private func readerTexts(_ sql: String) throws -> [ReaderText] {
        try db.query(sql).map { row in
            ReaderText(id: row.int("id") ?? 0, bookID: row.text("book_id") ?? "", keptBookTitle: row.text("book_title"),
                       text: row.text("text") ?? "", page: row.int("page"),
                       pageLabel: row.text("page_label"), extra: row.text("extra"), kind: row.text("kind"),
                       createdAt: row.text("created_at") ?? "")
        }
    }
}
