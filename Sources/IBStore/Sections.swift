// A book's structure in the library: the sections table, built from the
// "structure" marks its pages keep in pages.extra, and chunks.section_ord,
// the innermost section holding each chunk's start. Built when a book is
// indexed, and again by `ib-index --restructure` from fresh page records,
// touching no vector.
import IBCore

/// One unit of a book's structure (a row of `sections`).
public struct SectionRow: Sendable, Equatable {
    public var bookID: String
    public var ord: Int
    public var parent: Int?
    public var depth: Int
    public var kind: String?
    public var number: Int?
    public var title: String
    /// Titles from the outermost unit down to this one.
    public var path: [String]
    public var dateFrom: String?
    public var dateTo: String?
    public var voice: String?
    public var place: String?
    public var startPage: Int
    public var startOffset: Int
    /// chunk_index range (inclusive) of the chunks whose start lies in this unit or
    /// below it; for a unit no chunk starts in, the chunk its start lies in.
    public var firstChunk: Int?
    public var lastChunk: Int?

    public var json: JSON {
        .object(JSONObject([("ord", JSON(ord)), ("parent", JSON(parent)), ("depth", JSON(depth)), ("kind", JSON(kind)),
                            ("number", JSON(number)), ("title", .string(title)), ("path", .array(path.map { .string($0) })),
                            ("date_from", JSON(dateFrom)), ("date_to", JSON(dateTo)), ("voice", JSON(voice)),
                            ("place", JSON(place)), ("start_page", JSON(startPage)), ("start_offset", JSON(startOffset)),
                            ("first_chunk", JSON(firstChunk)), ("last_chunk", JSON(lastChunk))]))
    }
}

extension Library {
    /// The book's sections in order; [] when it has none (or was indexed before structure was kept).
    public func sections(bookID: String) throws -> [SectionRow] {
        try sections(bookIDs: [bookID])[bookID] ?? []
    }

    /// Each book's sections in order (books without any are left out). One
    /// prepared statement for all, read by column; a unit's path is its
    /// parent's plus its title, and a top-level path is parsed from JSON once
    /// per distinct text: a search over a library of many books reads every
    /// book's structure, copies of a book share their titles, and a diary has
    /// thousands of entries.
    public func sections(bookIDs: [String]) throws -> [String: [SectionRow]] {
        let statement = try db.prepare("""
            SELECT ord, parent, depth, kind, number, title, path, date_from, date_to, voice, place,
                   start_page, start_offset, first_chunk, last_chunk
            FROM sections WHERE book_id = ? ORDER BY ord
            """)
        defer { statement.reset() }
        var paths: [String: [String]] = [:]
        var out: [String: [SectionRow]] = [:]
        for bookID in bookIDs where out[bookID] == nil {
            statement.reset()
            try statement.bind(1, bookID)
            var rows: [SectionRow] = []
            var rowOfOrd: [Int: Int] = [:]
            while try statement.step() {
                let ord = statement.optionalInt(0) ?? 0
                let title = statement.optionalText(5) ?? ""
                let parent = statement.optionalInt(1)
                // A unit's path is its parent's and its own title (BookOutline makes it so): a
                // diary's thousands of entries are not each parsed from JSON.
                let path: [String]
                if let parent, let p = rowOfOrd[parent] {
                    path = rows[p].path + [title]
                } else {
                    let pathText = statement.optionalText(6) ?? "[]"
                    path = paths[pathText] ?? {
                        let parsed = (try? JSON.parse(pathText))?.arrayValue?.compactMap(\.stringValue) ?? []
                        paths[pathText] = parsed
                        return parsed
                    }()
                }
                rowOfOrd[ord] = rows.count
                rows.append(SectionRow(bookID: bookID, ord: ord, parent: parent,
                                       depth: statement.optionalInt(2) ?? 0, kind: statement.optionalText(3),
                                       number: statement.optionalInt(4), title: title, path: path,
                                       dateFrom: statement.optionalText(7), dateTo: statement.optionalText(8),
                                       voice: statement.optionalText(9), place: statement.optionalText(10),
                                       startPage: statement.optionalInt(11) ?? 0, startOffset: statement.optionalInt(12) ?? 0,
                                       firstChunk: statement.optionalInt(13), lastChunk: statement.optionalInt(14)))
            }
            if !rows.isEmpty { out[bookID] = rows }
        }
        return out
    }

    /// The innermost section (its ord in its book) holding each chunk's start;
    /// chunks outside any section, or unknown, are left out.
    public func sectionOrds(forChunks refs: [ChunkRef]) throws -> [ChunkRef: Int] {
        guard !refs.isEmpty else { return [:] }
        var out: [ChunkRef: Int] = [:]
        let list = refs.map { String($0.seq) }.joined(separator: ",")
        for row in try db.query("SELECT seq, section_ord FROM chunks WHERE seq IN (\(list)) AND section_ord IS NOT NULL") {
            if let seq = row.int("seq"), let ord = row.int("section_ord") { out[ChunkRef(seq: seq)] = ord }
        }
        return out
    }

    /// Replaces the "structure" of the stored book's pages with that of `pages`
    /// (page records of the same book, as ib-parse writes them), then rebuilds its
    /// sections and chunks' section_ord. Vectors and texts are untouched. Returns
    /// the number of sections.
    public func restructure(bookID: String, pages: [PageRecord]) throws -> Int {
        try db.write {
            let stored = try db.scalarInt("SELECT count(*) FROM pages WHERE book_id = ?", bookID) ?? 0
            guard stored > 0 else { throw IBError("book \(bookID) is not in the library; index it first") }
            guard pages.count == stored else {
                throw IBError("book \(bookID): the page records give \(pages.count) pages but the library holds \(stored); parse the same file with the same options")
            }
            let update = try db.prepare("UPDATE pages SET extra = ? WHERE book_id = ? AND page = ?")
            for page in pages {
                guard let row = try db.query("SELECT extra FROM pages WHERE book_id = ? AND page = ?", bookID, page.page).first else { throw IBError("book \(bookID) has no page \(page.page) in the library") }
                var extra = (try? JSON.parse(row.text("extra") ?? "{}"))?.objectValue ?? JSONObject()
                extra["structure"] = page.extra["structure"]
                var bytes: [UInt8] = []
                JSON.object(extra).write(to: &bytes)
                update.reset()
                try update.bind([String(decoding: bytes, as: UTF8.self), bookID, page.page])
                _ = try update.step()
            }
            return try storeSections(bookID: bookID)
        }
    }

    /// The most characters of blank between a chunk's end and a heading that opens the next
    /// chunk's own text (ib-chunk skips any run of them: a longer one is not looked at here).
    static let blankAfterChunk = 64
    /// How much of a unit's opening (in characters) a chunk that started before it
    /// must hold to count as the unit's.
    static let sharedStart = 40
    /// A unit in which at most this many chunks start is short (a diary's day): the
    /// chunk holding its opening lines is a large part of it.
    static let shortUnit = 2

    /// The last chunk starting at or before (page, offset): the one a point of
    /// the text lies in. `starts` is in book order.
    static func chunkHolding(page: Int, offset: Int, starts: [(page: Int, offset: Int, index: Int)]) -> Int? {
        var lo = 0, hi = starts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if (starts[mid].page, starts[mid].offset) <= (page, offset) { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : starts[lo - 1].index
    }

    /// Rebuilds the book's sections and chunks.section_ord from its pages' marks
    /// (inside the caller's transaction). Returns the number of sections.
    @discardableResult
    func storeSections(bookID: String) throws -> Int { try Self.storeSections(bookID: bookID, in: db) }

    /// Rebuilds every structured book's sections from the marks its pages keep (no
    /// book file is read): migration 0230 does, where how chunks are placed changed.
    static func restoreAllSections(in db: Database) throws {
        for row in try db.query("SELECT DISTINCT book_id FROM sections ORDER BY book_id") {
            if let bookID = row.text("book_id") { try storeSections(bookID: bookID, in: db) }
        }
    }

    @discardableResult
    static func storeSections(bookID: String, in db: Database) throws -> Int {
        try db.run("DELETE FROM sections WHERE book_id = ?", bookID)
        var pages: [(page: Int, marks: [StructureMark])] = []
        for row in try db.query("SELECT page, extra FROM pages WHERE book_id = ? AND extra LIKE '%\"structure\"%' ORDER BY page", bookID) {
            guard let page = row.int("page"), let extra = try? JSON.parse(row.text("extra") ?? "{}"),
                  let object = extra.objectValue else { continue }
            var record = PageRecord(bookID: bookID, page: page, text: "")
            record.extra = object
            let marks = (try? StructureMark.marks(of: record)) ?? []
            if !marks.isEmpty { pages.append((page, marks)) }
        }
        let outline = BookOutline(pages: pages)
        // A book without structure (most plain texts) costs one statement more.
        guard !outline.isEmpty else {
            try db.run("UPDATE chunks SET section_ord = NULL WHERE book_id = ? AND section_ord IS NOT NULL", bookID)
            return 0
        }
        // Each chunk's innermost unit, and each unit's range of chunks (its own and its descendants').
        var sectionOf: [(index: Int, ord: Int?)] = []
        var starts: [(page: Int, offset: Int, index: Int)] = []
        var first = [Int?](repeating: nil, count: outline.units.count)
        var last = [Int?](repeating: nil, count: outline.units.count)
        // Positions along the whole book (characters), to weigh a chunk's share of a unit.
        var pageStart: [Int: Int] = [:]
        var total = 0
        for row in try db.query("SELECT page, length(text) AS n FROM pages WHERE book_id = ? ORDER BY page", bookID) {
            guard let page = row.int("page") else { continue }
            pageStart[page] = total; total += (row.int("n") ?? 0) + 1
        }
        func position(_ page: Int, _ offset: Int) -> Int { (pageStart[page] ?? 0) + offset }
        // Where a chunk's own text starts: the end of the chunk before, past the blank after it when
        // a unit starts right there (a paragraph's heading: a chunk ends at its paragraph's last word).
        var pageScalars: [Int: [Unicode.Scalar]] = [:]
        func pastBlank(_ point: (page: Int, offset: Int), before end: (page: Int, offset: Int)) throws -> (page: Int, offset: Int) {
            let following = (outline.lastStarting(page: point.page, offset: point.offset) ?? -1) + 1   // the first unit after the point
            guard following < outline.units.count else { return point }
            let next = (page: outline.units[following].startPage, offset: outline.units[following].startOffset)
            guard next < end, position(next.page, next.offset) - position(point.page, point.offset) <= Self.blankAfterChunk else { return point }
            for page in point.page...next.page where pageScalars[page] == nil {
                let text = try db.query("SELECT text FROM pages WHERE book_id = ? AND page = ?", bookID, page).first?.text("text") ?? ""
                pageScalars[page] = Array(text.unicodeScalars)
            }
            // Only spaces, tabs and line ends between, as ib-chunk skips them (a page's end is one).
            for page in point.page...next.page {
                let scalars = pageScalars[page] ?? []
                let from = page == point.page ? point.offset : 0, to = page == next.page ? next.offset : scalars.count
                guard from <= to, to <= scalars.count, scalars[from..<to].allSatisfy({ " \n\t\r".unicodeScalars.contains($0) }) else { return point }
            }
            return next
        }
        var spans: [Int: Range<Int>] = [:]
        var previousEnd = (page: 0, offset: 0)
        for row in try db.query("SELECT chunk_index, start_page, start_offset, end_page, end_offset FROM chunks WHERE book_id = ? ORDER BY chunk_index", bookID) {
            guard let index = row.int("chunk_index") else { continue }
            let end = (page: row.int("end_page") ?? 0, offset: row.int("end_offset") ?? 0)
            // A chunk opens with the last lines of the one before (ib-chunk's overlap); its own
            // text starts where that one ended. A unit whose heading lies in the overlap is the
            // one its text is in: Dracula's "6 October, morning." opens the chunk after the
            // lines that close 5 October, and that chunk is 6 October's.
            var start = (page: row.int("start_page") ?? 0, offset: row.int("start_offset") ?? 0)
            if previousEnd > start && previousEnd < end { start = try pastBlank(previousEnd, before: end) }
            previousEnd = end
            let (page, offset) = start
            let ord = outline.unit(page: page, offset: offset)
            sectionOf.append((index, ord))
            starts.append((page, offset, index))
            let from = position(page, offset)
            spans[index] = from..<max(from, position(end.page, end.offset))
            var u = ord
            while let o = u {
                if first[o] == nil { first[o] = index }
                last[o] = index
                u = outline.units[o].parent
            }
        }
        // A unit no chunk starts in (a short diary entry, a short poem, a scene
        // opening late in a chunk) holds the chunk its start lies in: without it a
        // question naming that day or title would find no chunk to look in.
        // A short unit (at most `shortUnit` chunks start in it: a diary's day) that
        // starts early in a chunk holds that chunk too: its opening lines, and most of
        // that chunk, are the day's. A chunk mostly of the unit before, or one a long
        // unit's first lines end (a chapter's), stays the unit before's alone: counting
        // it for every unit lowered the second readers' set (0.745 -> 0.709).
        for unit in outline.units {
            guard let holder = Self.chunkHolding(page: unit.startPage, offset: unit.startOffset, starts: starts) else { continue }
            guard let own = first[unit.ord] else {
                first[unit.ord] = holder; last[unit.ord] = holder
                continue
            }
            if holder < own, last[unit.ord]! - own + 1 <= Self.shortUnit, let span = spans[holder] {
                let inside = span.upperBound - position(unit.startPage, unit.startOffset)
                if inside >= Self.sharedStart && inside * 2 >= span.count {
                    // Its month or chapter holds it too: a unit's chunks stay inside its parent's.
                    var u: Int? = unit.ord
                    while let o = u, first[o].map({ $0 > holder }) ?? false { first[o] = holder; u = outline.units[o].parent }
                }
            }
        }
        let insert = try db.prepare("""
            INSERT INTO sections (book_id, ord, parent, depth, kind, number, title, path, date_from, date_to, voice, place,
                                  start_page, start_offset, first_chunk, last_chunk)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for unit in outline.units {
            var path: [UInt8] = []
            JSON.array(unit.path.map { .string($0) }).write(to: &path)
            insert.reset()
            try insert.bind([bookID, unit.ord, unit.parent, unit.depth, unit.kind, unit.number, unit.title,
                             String(decoding: path, as: UTF8.self), unit.dateFrom, unit.dateTo, unit.voice, unit.place,
                             unit.startPage, unit.startOffset, first[unit.ord], last[unit.ord]])
            _ = try insert.step()
        }
        let update = try db.prepare("UPDATE chunks SET section_ord = ? WHERE book_id = ? AND chunk_index = ?")
        for (index, ord) in sectionOf {
            update.reset()
            try update.bind([ord, bookID, index])
            _ = try update.step()
        }
        return outline.units.count
    }
}
