// A passage and its neighbours, bounded by the reading position: what
// ib-mcp's get_passage and `ib-index get` read, by one rule in one place.
import IBCore

/// What reading a passage found.
public enum PassageWindow {
    /// The book has no chunk at that index.
    case noSuchPassage
    /// The passage ends past the reading position (`position`), and the caller did not lift it.
    case pastPosition(endPage: Int, position: Int)
    /// The passage and its neighbours in book order; `moreHidden`: later
    /// neighbours were left out because they end past the reading position.
    case passages([ChunkRecord], moreHidden: Bool)
}

extension Library {
    /// Chunk `index` of `book` with up to `context` chunks on each side, never
    /// past the book's reading position unless `allPages` (no position set: the whole book).
    public func passageWindow(book: BookInfo, index: Int, context: Int, allPages: Bool) throws -> PassageWindow {
        guard let chunk = try chunk(bookID: book.id, index: index) else { return .noSuchPassage }
        let limit = allPages || book.currentPage == 0 ? Int.max : book.currentPage
        if chunk.endPage > limit { return .pastPosition(endPage: chunk.endPage, position: book.currentPage) }
        var out: [ChunkRecord] = []
        for i in max(0, index - context)...(index + context) {
            guard let c = i == index ? chunk : try self.chunk(bookID: book.id, index: i) else { continue }
            if c.endPage > limit { return .passages(out, moreHidden: true) }
            out.append(c)
        }
        return .passages(out, moreHidden: false)
    }

    /// The first chunk of `bookID` that reaches `page` (where reading that page starts).
    public func chunkIndex(bookID: String, page: Int) throws -> Int? {
        try db.scalarInt("SELECT chunk_index FROM chunks WHERE book_id = ? AND end_page >= ? ORDER BY chunk_index LIMIT 1",
                         bookID, page)
    }
}
