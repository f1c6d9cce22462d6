// TEMPORARY until h-structure lands: the sections table's rows.
import IBCore

public struct SectionRow: Sendable, Equatable {
    public var bookID: String
    public var ord: Int
    public var parent: Int?
    public var depth: Int
    public var kind: String?
    public var number: Int?
    public var title: String
    public var path: [String]
    public var dateFrom: String?
    public var dateTo: String?
    public var voice: String?
    public var place: String?
    public var startPage: Int
    public var startOffset: Int
    public var firstChunk: Int?
    public var lastChunk: Int?
}

extension Library {
    public func sections(bookID: String) throws -> [SectionRow] {
        guard try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'sections'") == 1 else { return [] }
        var out: [SectionRow] = []
        for row in try db.query("SELECT * FROM sections WHERE book_id = ? ORDER BY ord", bookID) {
            let path = (try? JSON.parse(row.text("path") ?? "[]"))?.arrayValue?.compactMap { $0.stringValue } ?? []
            out.append(SectionRow(bookID: bookID, ord: row.int("ord") ?? 0, parent: row.int("parent"), depth: row.int("depth") ?? 0,
                                  kind: row.text("kind"), number: row.int("number"), title: row.text("title") ?? "", path: path,
                                  dateFrom: row.text("date_from"), dateTo: row.text("date_to"), voice: row.text("voice"),
                                  place: row.text("place"), startPage: row.int("start_page") ?? 1, startOffset: row.int("start_offset") ?? 0,
                                  firstChunk: row.int("first_chunk"), lastChunk: row.int("last_chunk")))
        }
        return out
    }
}
