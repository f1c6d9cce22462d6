// Books and pages as search and ask need them: a few columns in a few small
// queries, none of the per-book counts BookInfo carries (the first provider
// request of ib-ask must not wait for them).

/// A book without its counts: what results are labelled with and what a page
/// limit is taken from.
public struct BookSummary: Sendable, Equatable {
    public var id: String
    public var title: String
    public var authors: [String]
    /// The reading position; 0 when none is set.
    public var currentPage: Int
    public var pageCount: Int
    public init(id: String, title: String, authors: [String], currentPage: Int, pageCount: Int) {
        self.id = id; self.title = title; self.authors = authors; self.currentPage = currentPage; self.pageCount = pageCount
    }
    /// Read part-way: a search bounded by the reading position stops inside this book.
    public var isReadPartWay: Bool { currentPage > 0 && currentPage < pageCount }
}

extension Library {
    /// Books oldest first (then by title), every one or only the ready ones,
    /// with their reading positions as they are now. Two queries whatever the
    /// number of books.
    public func bookSummaries(readyOnly: Bool) throws -> [BookSummary] {
        // Statements read by column position: every search reads this (a Row per
        // book by column name cost ~30k instructions a book at 168 books).
        var authors: [String: [String]] = [:]
        let names = try db.prepare("""
            SELECT ba.book_id, a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id
            ORDER BY ba.book_id, ba.position
            """)
        defer { names.reset() }
        while try names.step() {
            if let id = names.optionalText(0), let name = names.optionalText(1) { authors[id, default: []].append(name) }
        }
        let books = try db.prepare(readyOnly
            ? "SELECT id, title, current_page, page_count FROM books WHERE status = 'ready' ORDER BY created_at, title"
            : "SELECT id, title, current_page, page_count FROM books ORDER BY created_at, title")
        defer { books.reset() }
        var out: [BookSummary] = []
        while try books.step() {
            guard let id = books.optionalText(0) else { continue }
            out.append(BookSummary(id: id, title: books.optionalText(1) ?? "", authors: authors[id] ?? [],
                                   currentPage: books.optionalInt(2) ?? 0, pageCount: books.optionalInt(3) ?? 0))
        }
        return out
    }

    /// How many books the library holds, ready or not.
    public func bookCount() throws -> Int {
        try db.scalarInt("SELECT count(*) FROM books") ?? 0
    }

    /// A book's reading position (0 when none is set) and length; nil when there is no such book.
    public func readingPosition(bookID: String) throws -> (currentPage: Int, pageCount: Int)? {
        guard let row = try db.query("SELECT current_page, page_count FROM books WHERE id = ?", bookID).first else { return nil }
        return (row.int("current_page") ?? 0, row.int("page_count") ?? 0)
    }

    /// The latest page the reader logged for a book (ib-capture's progress), when any.
    public func lastLoggedPage(bookID: String) throws -> Int? {
        try db.scalarInt("SELECT page FROM progress_events WHERE book_id = ? AND page IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT 1", bookID)
    }

    /// A book's printed page labels by physical page, where it has them.
    public func pageLabels(bookID: String) throws -> [Int: String] {
        var labels: [Int: String] = [:]
        for row in try db.query("SELECT page, label FROM pages WHERE book_id = ? AND label IS NOT NULL AND label <> ''", bookID) {
            if let page = row.int("page"), let label = row.text("label") { labels[page] = label }
        }
        return labels
    }

    /// The text of one page.
    public func pageText(bookID: String, page: Int) throws -> String? {
        try db.scalarText("SELECT text FROM pages WHERE book_id = ? AND page = ?", bookID, page)
    }
}
