// The reader's quotes and notes as ib-search matches them: every one, with
// the fields a hit shows. (ib-capture writes them; no page limit applies to
// the reader's own material.)

/// A quote or a note to match a query against.
public struct ReaderText: Sendable, Equatable {
    public var id: Int
    public var bookID: String
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
    /// Every quote of a book still in the library, in table order.
    public func quotesToSearch() throws -> [ReaderText] {
        try readerTexts("SELECT q.id, q.book_id, q.text, q.page, q.page_label, q.note AS extra, NULL AS kind, q.created_at FROM quotes q JOIN books b ON b.id = q.book_id")
    }

    /// Every note of a book still in the library, in table order.
    public func notesToSearch() throws -> [ReaderText] {
        try readerTexts("SELECT n.id, n.book_id, n.text, n.page, NULL AS page_label, n.chapter AS extra, n.kind, n.created_at FROM notes n JOIN books b ON b.id = n.book_id")
    }

    private func readerTexts(_ sql: String) throws -> [ReaderText] {
        try db.query(sql).compactMap { row in
            guard let bookID = row.text("book_id") else { return nil }
            return ReaderText(id: row.int("id") ?? 0, bookID: bookID, text: row.text("text") ?? "", page: row.int("page"),
                              pageLabel: row.text("page_label"), extra: row.text("extra"), kind: row.text("kind"),
                              createdAt: row.text("created_at") ?? "")
        }
    }
}
