// Writes the library back out as records: per book its book record (with
// current_page), pages and chunks (with embeddings, base64 float32), then the
// reader's records (quote, note, progress, reading_plan, conversation,
// chat_message, section_summary), so `ib-index export | ib-index --db copy.db`
// copies a library. With missingEmbeddings: only book records and the chunks
// that have no vector, ready for ib-embed.
import IBCore

public struct Exporter {
    public let library: Library
    public var missingEmbeddings = false
    public var encoding: EmbeddingEncoding = .base64

    public init(library: Library) { self.library = library }

    /// Columns holding JSON text, written out as JSON values.
    static let jsonColumns: Set<String> = ["tags", "book_ids", "key_statements", "extra"]

    public func export(bookIDs: [String]? = nil, to out: OutputStream) throws {
        let db = library.db
        try db.read {
            let books = try bookIDs.map { ids in try ids.compactMap { try library.book(id: $0) } } ?? library.books()
            let model = try library.embeddingModel()
            // The library's one precision (a --mixed-precision library's first): written when not fp32.
            let precision = try library.embeddingPrecision().flatMap { $0 == "fp32" ? nil : $0 }
            for book in books {
                let vectors = try VectorBlocks.read(db, bookID: book.id)
                var byKey: [Int: [Float]] = [:]
                for v in vectors { byKey[v.key] = v.vector }
                if missingEmbeddings && byKey.count >= book.chunkCount { continue }
                var record = book.record
                if book.currentPage > 0 && !missingEmbeddings { record.extra["current_page"] = JSON(book.currentPage) }
                out.writeRecord(.book(record))
                if !missingEmbeddings {
                    let pages = try db.prepare("SELECT page, label, section_index, section_title, text, extra FROM pages WHERE book_id = ? ORDER BY page")
                    try pages.bind(1, book.id)
                    while try pages.step() {
                        var page = PageRecord(bookID: book.id, page: pages.int(0), label: pages.optionalText(1),
                                              sectionIndex: pages.optionalInt(2), sectionTitle: pages.optionalText(3), text: pages.text(4))
                        if let extra = pages.optionalText(5), extra != "{}", let json = try? JSON.parse(extra), let o = json.objectValue { page.extra = o }
                        out.writeRecord(.page(page))
                    }
                }
                let windows = missingEmbeddings ? [:] : try library.windows(bookID: book.id)
                for var chunk in try library.chunks(bookID: book.id) {
                    if let vector = byKey[chunk.index] {
                        if missingEmbeddings { continue }
                        chunk.embedding = vector
                        chunk.windows = windows[chunk.index] ?? []
                        chunk.model = book.embeddingModel ?? model?.model
                        chunk.precision = precision
                    }
                    out.writeRecord(.chunk(chunk), encoding: encoding)
                }
            }
            if missingEmbeddings { return }
            let scope = bookIDs.map(Set.init)
            for (type, table) in [("quote", "quotes"), ("note", "notes"), ("progress", "progress_events"),
                                  ("section_summary", "section_summaries"), ("conversation", "conversations")] {
                try exportTable(type: type, table: table, where: scope == nil ? nil : "book_id", scope: scope, to: out)
            }
            // Tables later migrations add (ib-capture's reading_state...): generic rows.
            let known: Set<String> = ["quotes", "notes", "progress_events", "conversations"]
            for table in try library.readerTablesWithBookID() where !known.contains(table) {
                try exportTable(type: Indexer.tableRowType, table: table, where: scope == nil ? nil : "book_id", scope: scope, to: out, tableField: table)
            }
            if let scope {
                let ids = Array(scope)
                let placeholders = ids.map { _ in "?" }.joined(separator: ",")
                try exportRows(type: "chat_message",
                               sql: "SELECT * FROM chat_messages WHERE conversation_id IN (SELECT id FROM conversations WHERE book_id IN (\(placeholders))) ORDER BY created_at, rowid",
                               ids.map { SQLValue.text($0) }, to: out)
            } else {
                try exportTable(type: "chat_message", table: "chat_messages", where: nil, scope: nil, to: out)
                try exportTable(type: "reading_plan", table: "reading_plans", where: nil, scope: nil, to: out)
            }
        }
        out.flush()
    }

    func exportTable(type: String, table: String, where column: String?, scope: Set<String>?, to out: OutputStream, tableField: String? = nil) throws {
        let order = try library.db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = ? AND sql LIKE '%WITHOUT ROWID%'", table) == 0 ? "rowid" : "1"
        if let column, let scope {
            let ids = Array(scope)
            let placeholders = ids.map { _ in "?" }.joined(separator: ",")
            try exportRows(type: type, sql: "SELECT * FROM \"\(table)\" WHERE \(column) IN (\(placeholders)) ORDER BY \(order)", ids.map { .text($0) }, to: out, tableField: tableField)
        } else {
            try exportRows(type: type, sql: "SELECT * FROM \"\(table)\" ORDER BY \(order)", [], to: out, tableField: tableField)
        }
    }

    func exportRows(type: String, sql: String, _ arguments: [SQLValue], to out: OutputStream, tableField: String? = nil) throws {
        let s = try library.db.prepare(sql)
        try s.bind(arguments)
        while try s.step() {
            var o = JSONObject()
            o["type"] = .string(type)
            if let tableField { o["table"] = .string(tableField) }
            for i in 0..<s.columnCount {
                let name = s.name(i)
                switch s.value(i) {
                case .null: o[name] = .null
                case .int(let n): o[name] = .number(Double(n))
                case .double(let d): o[name] = .number(d)
                case .text(let t):
                    if Self.jsonColumns.contains(name), let json = try? JSON.parse(t) { o[name] = json } else { o[name] = .string(t) }
                case .blob(let b): o[name] = .string(Base64.encode(b))
                }
            }
            out.writeJSON(.object(o))
        }
    }
}
