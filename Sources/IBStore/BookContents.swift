// A book's table of contents: its sections and the pages each spans, read
// from the pages table (section_index, section_title, as ib-parse found them).
// Used by ib-mcp's book resource.
import IBCore

public struct BookSection: Sendable, Equatable {
    public var index: Int
    public var title: String?
    public var startPage: Int
    public var endPage: Int
    /// Printed page labels, when the book has them.
    public var startLabel: String?
    public var endLabel: String?
}

extension Library {
    /// The sections of a book in page order; empty when its pages carry none.
    public func contents(bookID: String) throws -> [BookSection] {
        var sections: [BookSection] = []
        for row in try db.query("""
            SELECT page, label, section_index, section_title FROM pages
            WHERE book_id = ? AND section_index IS NOT NULL ORDER BY page
            """, bookID) {
            guard let page = row.int("page"), let index = row.int("section_index") else { continue }
            if let last = sections.last, last.index == index {
                sections[sections.count - 1].endPage = page
                sections[sections.count - 1].endLabel = row.text("label")
            } else {
                sections.append(BookSection(index: index, title: row.text("section_title"), startPage: page, endPage: page,
                                            startLabel: row.text("label"), endLabel: row.text("label")))
            }
        }
        return sections
    }
}
