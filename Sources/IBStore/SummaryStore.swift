// What ib-ask --summarize and --recap read and keep: where a book's chunks lie,
// their text one section at a time (a 3,000-page book is never held whole), and the
// summaries a provider wrote, in section_summaries (see 0190_summary_cache.sql).
import IBCore

/// One chunk as the summariser reads it: where it is, its innermost section, its text.
public struct SummaryChunk: Sendable {
    public var index: Int
    public var startPage: Int
    public var endPage: Int
    public var sectionOrd: Int?
    public var text: String
}

/// A stored summary: its text and its checked citations (JSON, as written).
public struct StoredSummary: Sendable {
    public var summary: String
    public var citations: String
}

extension Library {
    /// Where each chunk of a book lies (no text), in book order: what the summariser plans its sections from.
    public func chunkOutline(bookID: String) throws -> [SummaryChunk] {
        let s = try db.prepare("SELECT chunk_index, start_page, end_page, section_ord FROM chunks WHERE book_id = ? ORDER BY chunk_index")
        try s.bind(1, bookID)
        defer { s.reset() }
        var out: [SummaryChunk] = []
        while try s.step() {
            out.append(SummaryChunk(index: s.int(0), startPage: s.int(1), endPage: s.int(2), sectionOrd: s.isNull(3) ? nil : s.int(3), text: ""))
        }
        return out
    }

    /// The chunks `indices` of a book, with their text, that lie in pages `first...last`, in book order.
    public func summaryChunks(bookID: String, indices: ClosedRange<Int>, firstPage: Int, lastPage: Int) throws -> [SummaryChunk] {
        let s = try db.prepare("""
            SELECT chunk_index, start_page, end_page, section_ord, content FROM chunks
            WHERE book_id = ?1 AND chunk_index BETWEEN ?2 AND ?3 AND start_page >= ?4 AND end_page <= ?5 ORDER BY chunk_index
            """)
        try s.bind(1, bookID)
        try s.bind(2, indices.lowerBound)
        try s.bind(3, indices.upperBound)
        try s.bind(4, firstPage)
        try s.bind(5, lastPage)
        defer { s.reset() }
        var out: [SummaryChunk] = []
        while try s.step() {
            out.append(SummaryChunk(index: s.int(0), startPage: s.int(1), endPage: s.int(2),
                                    sectionOrd: s.isNull(3) ? nil : s.int(3), text: s.text(4)))
        }
        return out
    }

    /// The summary stored under `id`, if any.
    public func storedSummary(id: String) throws -> StoredSummary? {
        guard let row = try db.query("SELECT summary, key_statements FROM section_summaries WHERE id = ?", id).first,
              let summary = row.text("summary") else { return nil }
        return StoredSummary(summary: summary, citations: row.text("key_statements") ?? "[]")
    }

    /// Keeps a summary under `id` (replacing one there), with what it covers.
    public func storeSummary(id: String, bookID: String, kind: String, title: String, sectionIndex: Int,
                             pages: ClosedRange<Int>, chunks: ClosedRange<Int>, model: String, prompt: String,
                             summary: String, citations: String) throws {
        try db.write {
            try db.run("""
                INSERT OR REPLACE INTO section_summaries (id, book_id, title, start_page, end_page, summary, key_statements,
                    section_index, created_at, kind, model, prompt, first_chunk, last_chunk)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, id, bookID, title.isEmpty ? kind : title, max(1, pages.lowerBound), max(1, pages.upperBound), summary, citations,
                       sectionIndex, Timestamp.iso8601(), kind, model, prompt, chunks.lowerBound, chunks.upperBound)
        }
    }
}
