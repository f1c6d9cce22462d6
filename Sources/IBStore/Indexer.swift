// Stores a record stream: book, page and chunk records (with or without
// embeddings), and the reader's records (quote, note, progress, reading_plan,
// conversation, chat_message, section_summary) as `ib-index export` writes them.
//
// Each book is gathered and checked in memory, then written in ONE short write
// transaction covering the book, its authors, pages, chunks, full-text rows and
// vectors; the book turns `ready` in that same transaction, so an interrupted
// run leaves no half book. Rules:
// - the same book id again: a no-op, except that embeddings for its existing
//   chunks that have none yet are added (export --missing-embeddings | ib-embed |
//   ib-index); --replace stores its text again under the same book row
//   (keeping the reading position and the reader's material, which point at it);
// - a new id with the same non-empty `source` as a stored book is a new version
//   of that file: it replaces the old book in the same transaction, and the
//   reading position, quotes, notes, progress and conversations move over;
// - vectors must all come from the library's model with its dimension and in its
//   precision (fp32, bf16, int8; all three recorded with the first vectors);
//   otherwise the book is refused and nothing of it is written. allowMixedPrecision
//   (--mixed-precision) lets other precisions in: the library keeps its first one
//   (queries are embedded in it) and notes the others in meta.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

public struct IndexSummary: Sendable {
    public var stored: [String] = []
    public var replaced: [(old: String, new: String)] = []
    public var unchanged: [String] = []
    public var vectorsAdded = 0
    public var vectorsStored = 0
    public var chunksWithoutVectors = 0
    public var readerRecords = 0
    /// Seconds spent checking and writing books (the rest is reading and parsing records).
    public var storeSeconds = 0.0
    /// CPU seconds (user + system) of the same: the store's cost without waiting for a busy machine.
    public var storeCPUSeconds = 0.0
}

/// CPU time of this process (user + system), in seconds.
public func processCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

public final class Indexer {
    public let library: Library
    public var replace = false
    /// Store vectors whose precision differs from the library's (which keeps its own).
    public var allowMixedPrecision = false
    /// Called with one line of progress or warnings (stderr in ib-index).
    public var report: (String) -> Void = { _ in }
    public private(set) var summary = IndexSummary()

    struct Pending {
        var book: BookRecord?
        var pages: [PageRecord] = []
        var chunks: [ChunkRecord] = []
    }
    private var pending: [String: Pending] = [:]
    private var order: [String] = []
    private var readerRecords: [(type: String, object: JSONObject)] = []

    /// Record types stored in their own tables: type -> table.
    public static let readerTables: [String: String] = [
        "quote": "quotes", "note": "notes", "progress": "progress_events", "reading_plan": "reading_plans",
        "conversation": "conversations", "chat_message": "chat_messages", "section_summary": "section_summaries",
    ]

    /// A row of a table a later migration added beside the book ({"type": "library_row", "table": NAME, columns...}).
    public static let tableRowType = "library_row"

    public init(library: Library) { self.library = library }

    /// Takes one record. Returns false for types the indexer does not store (pass them on).
    @discardableResult
    public func add(_ record: Record) throws -> Bool {
        switch record {
        case .book(let book):
            // A new book record ends the books gathered so far.
            try flush(except: book.id)
            if pending[book.id] == nil { order.append(book.id); pending[book.id] = Pending() }
            pending[book.id]!.book = book
        case .page(let page):
            if pending[page.bookID] == nil { order.append(page.bookID); pending[page.bookID] = Pending() }
            pending[page.bookID]!.pages.append(page)
        case .chunk(let chunk):
            if pending[chunk.bookID] == nil { order.append(chunk.bookID); pending[chunk.bookID] = Pending() }
            pending[chunk.bookID]!.chunks.append(chunk)
        case .other(let type, let object):
            guard Self.readerTables[type] != nil || type == Self.tableRowType else { return false }
            readerRecords.append((type, object))
        }
        return true
    }

    /// Stores everything still gathered. Call at the end of the stream.
    public func finish() throws {
        try flush(except: nil)
        try storeReaderRecords()
    }

    private func flush(except keep: String?) throws {
        let ids = order.filter { $0 != keep }
        for id in ids {
            let book = pending.removeValue(forKey: id)!
            order.removeAll { $0 == id }
            try store(id: id, book)
        }
    }

    // MARK: one book

    /// Everything about one book, checked and ready to write.
    struct Prepared {
        var id: String
        var book: BookRecord?
        var currentPage: Int?
        var pages: [PageRecord]
        var chunks: [ChunkRecord]
        var model: String?
        var dim: Int?
        /// The precisions of the book's vectors, first seen first ("fp32" for records without one).
        var precisions: [String] = []
        var vectors: [VectorEntry]
        /// Set when the records look cut short (see incompleteness).
        var incomplete: String?
    }

    func prepare(id: String, _ p: Pending) throws -> Prepared {
        var book = p.book
        var currentPage: Int?
        if var b = book {
            // Fields `export` adds beside the book record.
            if let page = b.extra["current_page"]?.intValue { currentPage = page }
            for key in ["current_page", "status", "chunks", "embedded", "model", "dim", "created_at", "updated_at"] { b.extra[key] = nil }
            if b.title.trimmingSpaces.isEmpty { throw IBError("book \(id): the title is empty") }
            book = b
        }
        var pages: [Int: PageRecord] = [:]
        for page in p.pages { pages[page.page] = page }
        var seen = Set<Int>()
        var model: String?, dim: Int?
        var precisions: [String] = []
        var vectors: [VectorEntry] = []
        for chunk in p.chunks {
            guard seen.insert(chunk.index).inserted else { throw IBError("book \(id): chunk \(chunk.index) appears twice") }
            guard let embedding = chunk.embedding else { continue }
            guard !embedding.isEmpty else { throw IBError("book \(id): chunk \(chunk.index) has an empty embedding") }
            guard embedding.allSatisfy(\.isFinite) else { throw IBError("book \(id): chunk \(chunk.index) has NaN or infinite values in its embedding") }
            if let dim, dim != embedding.count {
                throw IBError("book \(id): chunk \(chunk.index) has a \(embedding.count)-dimensional embedding, the book's others have \(dim); nothing of the book was stored")
            }
            dim = embedding.count
            if let m = chunk.model {
                if let model, model != m {
                    throw IBError("book \(id): chunk \(chunk.index) was embedded with \(m), others with \(model); nothing of the book was stored")
                }
                model = m
            }
            if !precisions.contains(chunk.effectivePrecision) {
                if let first = precisions.first, !allowMixedPrecision {
                    throw IBError("book \(id): chunk \(chunk.index) was embedded in \(chunk.effectivePrecision), others in \(first); nothing of the book was stored (--mixed-precision allows it)")
                }
                precisions.append(chunk.effectivePrecision)
            }
            vectors.append(VectorEntry(key: chunk.index, endPage: chunk.endPage, vector: embedding))
        }
        let sortedPages = pages.values.sorted { $0.page < $1.page }
        let sortedChunks = p.chunks.sorted { $0.index < $1.index }
        return Prepared(id: id, book: book, currentPage: currentPage, pages: sortedPages, chunks: sortedChunks,
                        model: model, dim: dim, precisions: precisions, vectors: vectors,
                        incomplete: book.flatMap { Self.incompleteness($0, sortedPages, sortedChunks) })
    }

    /// Why a new book's records look cut short, or nil when they look whole.
    /// An upstream stage killed mid-run (ib-chunk, ib-embed) ends the stream at
    /// a line boundary, which parses fine; storing that would make a half book
    /// ready. A whole book has all of its page_count pages (when pages are in
    /// the stream), chunk indices 0..<n, and its last chunk ends where the text
    /// of its last page ends (up to 8 stray characters: a page number).
    static func incompleteness(_ book: BookRecord, _ pages: [PageRecord], _ chunks: [ChunkRecord]) -> String? {
        if let last = chunks.last, last.index != chunks.count - 1 {
            let have = Set(chunks.map(\.index))
            let missing = (0..<last.index).first { !have.contains($0) } ?? 0
            return "chunk \(missing) is missing (\(chunks.count) chunks, the last is \(last.index))"
        }
        if pages.isEmpty && chunks.isEmpty && book.pageCount > 0 {
            return "only its book record arrived (no pages, no chunks)"
        }
        guard !pages.isEmpty else { return nil }
        if book.pageCount > 0 && (pages.count != book.pageCount || pages.last!.page != book.pageCount) {
            return "\(pages.count) of its \(counted(book.pageCount, "page")) arrived"
        }
        func nonSpace<S: Sequence<Unicode.Scalar>>(_ scalars: S) -> Int {
            scalars.reduce(0) { $0 + ($1.properties.isWhitespace ? 0 : 1) }
        }
        guard let last = chunks.last else {
            let text = pages.reduce(0) { $0 + nonSpace($1.text.unicodeScalars) }
            return text > 0 ? "its pages have text but no chunks arrived (is ib-chunk in the pipeline?)" : nil
        }
        var uncovered = 0
        for page in pages where page.page >= last.endPage {
            if page.page == last.endPage {
                uncovered += nonSpace(page.text.unicodeScalars.dropFirst(max(0, last.endOffset)))
            } else {
                uncovered += nonSpace(page.text.unicodeScalars)
            }
            if uncovered > 8 {
                return "its chunks end on page \(last.endPage) but the text goes on to page \(pages.last { nonSpace($0.text.unicodeScalars) > 0 }?.page ?? page.page)"
            }
        }
        return nil
    }

    func store(id: String, _ p: Pending) throws {
        let started = Timestamp.monotonic(), startedCPU = processCPUSeconds()
        defer {
            summary.storeSeconds += Timestamp.monotonic() - started
            summary.storeCPUSeconds += processCPUSeconds() - startedCPU
        }
        let prepared = try prepare(id: id, p)
        let db = library.db
        do {
            try db.write {
                let (model, dim) = try checkModel(prepared)
                let existing = try db.query("SELECT status FROM books WHERE id = ?", id).first?.text("status")
                if let existing, existing == "ready", !replace || prepared.book == nil {
                    try fillVectors(prepared, model: model, dim: dim)
                    return
                }
                guard let book = prepared.book else {
                    throw IBError("records for book \(id) came without its book record, and the library has no such book")
                }
                if let why = prepared.incomplete {
                    throw IBError("book \(id) '\(book.title)' is incomplete: \(why); the stream was cut short (an earlier stage stopped?). Nothing of the book was stored")
                }
                var keep: (currentPage: Int, createdAt: String?)? = nil
                if existing != nil {
                    keep = try db.query("SELECT current_page, created_at FROM books WHERE id = ?", id).first
                        .map { ($0.int("current_page") ?? 0, $0.text("created_at")) }
                    // The row stays: the reader's quotes, notes and progress point at it.
                    try library.clearForReplaceInTransaction(bookID: id)
                }
                // A new version of a stored file: the same source, another id.
                var replacedOld: String?
                if !book.source.isEmpty,
                   let old = try db.scalarText("SELECT id FROM books WHERE source = ? AND id != ? ORDER BY created_at DESC LIMIT 1", book.source, id) {
                    replacedOld = old
                    if keep == nil {
                        let oldPage = try db.scalarInt("SELECT current_page FROM books WHERE id = ?", old) ?? 0
                        keep = (oldPage, nil)
                    }
                }
                try insertBook(book, prepared, model: model, dim: dim,
                               currentPage: prepared.currentPage ?? keep?.currentPage ?? 0, createdAt: keep?.createdAt)
                if let old = replacedOld {
                    try library.moveReaderData(from: old, to: id)
                    try library.removeBookInTransaction(bookID: old)
                    summary.replaced.append((old, id))
                    report("book \(id) '\(book.title)' replaces \(old) (same source \(book.source))")
                }
                summary.stored.append(id)
                summary.vectorsStored += prepared.vectors.count
                let missing = prepared.chunks.count - prepared.vectors.count
                summary.chunksWithoutVectors += missing
                if missing > 0 {
                    report("book \(id) '\(book.title)': \(missing) of \(counted(prepared.chunks.count, "chunk")) \(missing == 1 ? "has" : "have") no embedding; fill them with: ib-index export --missing-embeddings | ib-embed | ib-index")
                }
            }
        } catch let error as IBError {
            throw error
        } catch {
            throw library.describe(error, outcome: "nothing of the current book was stored")
        }
    }

    /// The library's model and dimension, checked against the book's vectors
    /// (and recorded, with their precision, when these are the library's first).
    func checkModel(_ p: Prepared) throws -> (String?, Int?) {
        guard let dim = p.dim else { return (nil, nil) }
        if let (libraryModel, libraryDim) = try library.embeddingModel() {
            let model = p.model ?? libraryModel
            if model != libraryModel {
                throw IBError("book \(p.id): embeddings from model \(model), but the library holds \(libraryModel) vectors; embed with \(libraryModel) or use another --db. Nothing of the book was stored")
            }
            if dim != libraryDim {
                throw IBError("book \(p.id): \(dim)-dimensional embeddings, but the library's \(libraryModel) vectors have \(libraryDim) dimensions. Nothing of the book was stored")
            }
            try checkPrecision(p, library: try library.embeddingPrecision() ?? "fp32")
            return (model, dim)
        }
        let model = p.model ?? "unknown"
        try library.setMeta("embedding_model", model)
        try library.setMeta("embedding_dim", String(dim))
        // The book's first precision (prepare() let others in only with allowMixedPrecision).
        try library.setMeta(Library.precisionKey, p.precisions.first ?? "fp32")
        return (model, dim)
    }

    /// Refuses vectors in another precision than the library's, unless allowMixedPrecision.
    func checkPrecision(_ p: Prepared, library precision: String) throws {
        guard !allowMixedPrecision, let other = p.precisions.first(where: { $0 != precision }) else { return }
        throw IBError("book \(p.id): \(other) embeddings, but the library holds \(precision) vectors; embed with --precision \(precision), or store them anyway with --mixed-precision. Nothing of the book was stored")
    }

    /// Once the book's vectors are written: notes precisions other than the library's
    /// (allowMixedPrecision let them in) in meta, and says so. The library keeps its own.
    func noteMixedPrecisions(_ p: Prepared) throws {
        let precision = try library.embeddingPrecision() ?? "fp32"
        let others = p.precisions.filter { $0 != precision }
        guard let other = others.first else { return }
        try library.addMixedPrecisions(others)
        report("book \(p.id): \(other) embeddings stored beside the library's \(precision) vectors (--mixed-precision); queries stay in \(precision)")
    }

    func insertBook(_ book: BookRecord, _ p: Prepared, model: String?, dim: Int?, currentPage: Int, createdAt: String?) throws {
        let db = library.db
        let now = Timestamp.iso8601()
        var extra: [UInt8] = []
        JSON.object(book.extra).write(to: &extra)
        try db.run("""
            INSERT INTO books (id, title, status, current_page, embedding_provider, embedding_dimension, created_at, updated_at,
                               language, format, source, sha256, page_count, extra)
            VALUES (?, ?, 'ingesting', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET title = excluded.title, status = excluded.status, current_page = excluded.current_page,
              embedding_provider = excluded.embedding_provider, embedding_dimension = excluded.embedding_dimension,
              created_at = excluded.created_at, updated_at = excluded.updated_at, language = excluded.language,
              format = excluded.format, source = excluded.source, sha256 = excluded.sha256,
              page_count = excluded.page_count, extra = excluded.extra
            """, book.id, book.title, currentPage, model, dim, createdAt ?? now, now,
                   book.language, book.format, book.source, book.sha256, book.pageCount, String(decoding: extra, as: UTF8.self))
        for (position, name) in book.authors.enumerated() {
            try db.run("INSERT INTO authors (name) VALUES (?) ON CONFLICT(name) DO NOTHING", name)
            try db.run("INSERT INTO book_authors (book_id, author_id, position) SELECT ?, id, ? FROM authors WHERE name = ?", book.id, position, name)
        }
        let insertPage = try db.prepare("INSERT INTO pages (book_id, page, label, section_index, section_title, text, extra) VALUES (?, ?, ?, ?, ?, ?, ?)")
        for page in p.pages {
            insertPage.reset()
            try insertPage.bind(1, book.id)
            try insertPage.bind(2, page.page)
            try insertPage.bind(3, page.label)
            try insertPage.bind(4, page.sectionIndex.sqlValue)
            try insertPage.bind(5, page.sectionTitle)
            try insertPage.bind(6, page.text)
            try insertPage.bind(7, Self.extraText(page.extra))
            try insertPage.execute()
        }
        try insertChunks(bookID: book.id, p.chunks, createdAt: now)
        try library.storeSections(bookID: book.id)
        if let model, let dim {
            try VectorBlocks.write(db, bookID: book.id, model: model, dim: dim, entries: p.vectors, quantize: try library.meta("quantize"))
            try noteMixedPrecisions(p)
        }
        try db.run("UPDATE books SET status = 'ready' WHERE id = ?", book.id)
    }

    func insertChunks(bookID: String, _ chunks: [ChunkRecord], createdAt: String) throws {
        let db = library.db
        var seq = try db.scalarInt("SELECT max(seq) FROM chunks") ?? 0
        let insertChunk = try db.prepare("""
            INSERT INTO chunks (id, book_id, content, start_page, end_page, chunk_index, created_at,
                                start_offset, end_offset, token_count, extra, seq, windows)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertText = try db.prepare("INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)")
        for chunk in chunks {
            seq += 1
            insertChunk.reset()
            try insertChunk.bind(1, chunk.id)
            try insertChunk.bind(2, bookID)
            try insertChunk.bind(3, chunk.text)
            try insertChunk.bind(4, chunk.startPage)
            try insertChunk.bind(5, chunk.endPage)
            try insertChunk.bind(6, chunk.index)
            try insertChunk.bind(7, createdAt)
            try insertChunk.bind(8, chunk.startOffset)
            try insertChunk.bind(9, chunk.endOffset)
            try insertChunk.bind(10, chunk.tokenCount)
            try insertChunk.bind(11, Self.extraText(chunk.extra))
            try insertChunk.bind(12, seq)
            try insertChunk.bind(13, Self.windowsValue(chunk))
            try insertChunk.execute()
            insertText.reset()
            try insertText.bind(1, seq)
            try insertText.bind(2, FullText.segment(chunk.text))
            try insertText.execute()
        }
    }

    /// The chunk's window codes as a blob, or NULL (none, or no embedding beside them).
    static func windowsValue(_ chunk: ChunkRecord) -> SQLValue {
        guard !chunk.windows.isEmpty, chunk.embedding != nil else { return .null }
        return .blob(chunk.windows.map { UInt8(bitPattern: $0) })
    }

    static func extraText(_ extra: JSONObject) -> String {
        if extra.entries.isEmpty { return "{}" }
        var out: [UInt8] = []
        JSON.object(extra).write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A stored book seen again: adds embeddings for its chunks that have none.
    func fillVectors(_ p: Prepared, model: String?, dim: Int?) throws {
        let db = library.db
        guard let model, let dim, !p.vectors.isEmpty else {
            summary.unchanged.append(p.id)
            if p.book != nil { report("book \(p.id) is already in the library; nothing to do (use --replace to store it again)") }
            return
        }
        var existing = try VectorBlocks.read(db, bookID: p.id)
        let have = Set(existing.map(\.key))
        var endPages: [Int: Int] = [:]
        let select = try db.prepare("SELECT chunk_index, end_page FROM chunks WHERE book_id = ?")
        try select.bind(1, p.id)
        while try select.step() { endPages[select.int(0)] = select.int(1) }
        var added = 0, unknown = 0
        var addedKeys = Set<Int>()
        for v in p.vectors where !have.contains(v.key) {
            guard let endPage = endPages[v.key] else { unknown += 1; continue }
            existing.append(VectorEntry(key: v.key, endPage: endPage, vector: v.vector))
            addedKeys.insert(v.key)
            added += 1
        }
        if unknown > 0 { report("book \(p.id): \(counted(unknown, "embedding")) for chunks the library does not have \(unknown == 1 ? "was" : "were") ignored") }
        guard added > 0 else {
            summary.unchanged.append(p.id)
            report("book \(p.id) is already in the library with these embeddings; nothing to do")
            return
        }
        try VectorBlocks.delete(db, bookID: p.id)
        try VectorBlocks.write(db, bookID: p.id, model: model, dim: dim, entries: existing, quantize: try library.meta("quantize"))
        try noteMixedPrecisions(p)
        for chunk in p.chunks where addedKeys.contains(chunk.index) && !chunk.windows.isEmpty {
            try db.run("UPDATE chunks SET windows = ? WHERE book_id = ? AND chunk_index = ?", Self.windowsValue(chunk), p.id, chunk.index)
        }
        try db.run("UPDATE books SET embedding_provider = ?, embedding_dimension = ?, updated_at = ? WHERE id = ?",
                   model, dim, Timestamp.iso8601(), p.id)
        summary.vectorsAdded += added
        let missing = endPages.count - existing.count
        report("book \(p.id): added \(counted(added, "embedding"))" + (missing > 0 ? " (\(counted(missing, "chunk")) still \(missing == 1 ? "has" : "have") none)" : ""))
    }

    // MARK: reader records

    private var tableColumns: [String: [String: String]] = [:]

    /// Column name -> declared type for a table.
    func columns(_ table: String) throws -> [String: String] {
        if let cached = tableColumns[table] { return cached }
        var out: [String: String] = [:]
        for row in try library.db.query("SELECT name, type FROM pragma_table_info(?)", table) {
            if let name = row.text("name") { out[name] = row.text("type") ?? "" }
        }
        tableColumns[table] = out
        return out
    }

    /// Inserts the reader's records (ids kept; a row with the same id is left alone).
    func storeReaderRecords() throws {
        guard !readerRecords.isEmpty else { return }
        let db = library.db
        var index = 0
        while index < readerRecords.count {
            let batch = readerRecords[index..<min(index + 2000, readerRecords.count)]
            do {
                try db.write {
                    let generic = Set(try library.readerTablesWithBookID())
                    for (type, object) in batch {
                        var table = Self.readerTables[type] ?? ""
                        if type == Self.tableRowType {
                            guard let name = object["table"]?.stringValue, generic.contains(name) else {
                                throw IBError("\(type) record for table '\(object["table"]?.stringValue ?? "?")', which this library does not have")
                            }
                            table = name
                        }
                        let columns = try self.columns(table)
                        var names: [String] = [], values: [SQLValue] = []
                        for (key, value) in object.entries where key != "type" && !(type == Self.tableRowType && key == "table") && columns[key] != nil {
                            names.append(key)
                            values.append(Self.sqlValue(value))
                        }
                        guard !names.isEmpty else { continue }
                        let sql = "INSERT OR IGNORE INTO \"\(table)\" (\(names.map { "\"\($0)\"" }.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
                        do {
                            try db.run(sql, values)
                        } catch let error as SQLiteError {
                            throw IBError("\(type) record \(object["id"].map { JSON.serialize($0) } ?? ""): \(error.message)")
                        }
                        summary.readerRecords += 1
                    }
                }
            } catch let error as IBError { throw error } catch { throw library.describe(error, outcome: "nothing of the current book was stored") }
            index += batch.count
        }
        readerRecords.removeAll()
    }

    static func sqlValue(_ json: JSON) -> SQLValue {
        switch json {
        case .null: return .null
        case .bool(let b): return .int(b ? 1 : 0)
        case .number(let n): return n.rounded() == n && abs(n) < 9e15 ? .int(Int64(n)) : .double(n)
        case .string(let s): return .text(s)
        case .array, .object: return .text(JSON.serialize(json))
        }
    }
}

extension JSON {
    static func serialize(_ json: JSON) -> String {
        var out: [UInt8] = []
        json.write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension Database {
    /// Runs one statement with an array of arguments.
    @discardableResult
    public func run(_ sql: String, _ arguments: [SQLValue]) throws(SQLiteError) -> Int {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        while try statement.step() {}
        return changes
    }
}
