// The library: one SQLite file holding books, pages, chunks, vectors and the
// reader's own material. Library.open finds the file (--db, $IB_DB,
// $XDG_DATA_HOME/ib/library.db), opens it in WAL mode with foreign keys on,
// registers ibvec and applies pending migrations.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

/// A book as stored, with what the library knows about it. The book record's
/// fields read as the info's own (`info.title` is `info.record.title`).
@dynamicMemberLookup
public struct BookInfo: Sendable, Equatable {
    /// The book record as ib-parse wrote it (with unknown fields kept).
    public var record: BookRecord
    public var status: String
    /// The reading position; 0 when unset.
    public var currentPage: Int
    public var createdAt: String
    public var updatedAt: String
    public var chunkCount: Int
    public var vectorCount: Int
    public var embeddingModel: String?
    public var embeddingDimension: Int?
    /// The library's precision (one for all its vectors), nil when the book has none.
    public var embeddingPrecision: String?

    public init(record: BookRecord, status: String, currentPage: Int, createdAt: String, updatedAt: String,
                chunkCount: Int, vectorCount: Int, embeddingModel: String?, embeddingDimension: Int?,
                embeddingPrecision: String? = nil) {
        self.record = record; self.status = status; self.currentPage = currentPage
        self.createdAt = createdAt; self.updatedAt = updatedAt; self.chunkCount = chunkCount; self.vectorCount = vectorCount
        self.embeddingModel = embeddingModel; self.embeddingDimension = embeddingDimension
        self.embeddingPrecision = embeddingPrecision
    }

    public subscript<T>(dynamicMember field: KeyPath<BookRecord, T>) -> T { record[keyPath: field] }

    /// The book record plus the library's fields, for `list` and `show`.
    public var json: JSON {
        guard case .object(var o) = record.json else { return record.json }
        o.set(["status": .string(status), "current_page": JSON(currentPage), "chunks": JSON(chunkCount),
               "embedded": JSON(vectorCount), "model": JSON(embeddingModel), "dim": JSON(embeddingDimension),
               "precision": JSON(embeddingPrecision),
               "created_at": .string(Library.normalizedDate(createdAt)), "updated_at": .string(Library.normalizedDate(updatedAt))])
        return .object(o)
    }
}

public final class Library {
    public let db: Database
    public var path: String { db.path }

    /// Opens the library at `path` (or Config.databasePath()) and migrates it.
    /// A writer (`create`) makes a new library in an existing folder (the default
    /// location's folder is made too). A reader never creates anything: a missing
    /// file is "no library at PATH", and a library it may not write (a read-only
    /// file, folder or disk) opens read-only. Either way the path is checked before
    /// SQLite sees it, so that /dev/null or a typo'd folder is refused, not used.
    public static func open(path: String? = nil, create: Bool = true) throws(IBError) -> Library {
        let location = LibraryLocation(flag: path)
        try location.check(creating: create)
        if create, !FileSystem.exists(location.path), location.origin == nil {
            try FileSystem.createDirectories(location.folder)
        }
        if !create && !location.isWritable {
            return try openReadOnly(location)
        }
        let db = try Database(path: location.path, create: create)
        do {
            try Migrations.migrate(db)
        } catch {
            throw Database.describe(error, path: location.path)
        }
        return Library(db: db)
    }

    /// A library in a folder or on a disk this process may not write: read as it
    /// stands. With no -shm file SQLite cannot share the write-ahead log's index,
    /// so the file is opened immutable (nothing can be writing it: nobody here may);
    /// a non-empty log without its index would be ignored that way, so it is refused.
    static func openReadOnly(_ location: LibraryLocation) throws(IBError) -> Library {
        let immutable = !FileSystem.exists(location.path + "-shm")
        if immutable && FileSystem.size(location.path + "-wal") ?? 0 > 0 {
            throw IBError("cannot read the library \(location.path): its write-ahead log (\(location.path)-wal) was left unfinished "
                          + "and the folder is read-only; open the library once with write access")
        }
        let db = try Database(path: location.path, readOnly: true, immutable: immutable)
        do {
            try Migrations.checkCurrent(db)
        } catch {
            throw Database.describe(error, path: location.path)
        }
        return Library(db: db, readOnlyImmutable: immutable)
    }

    /// Whether this library was opened immutable (read-only folder): a second
    /// connection for the same search must open it the same way.
    let immutable: Bool

    /// documentFrequencies' answers while the library stays as it is (FullTextQueries).
    var documentFrequencyMemo = DocumentFrequencyMemo()
    /// The postings ranked from memory, when keepPostings turned that on (PostingsMemo).
    var postingsMemo: PostingsMemo? = nil
    public init(db: Database) { self.db = db; immutable = false }
    init(db: Database, readOnlyImmutable: Bool) { self.db = db; immutable = readOnlyImmutable }

    /// Turns any error into a clear IBError naming the library.
    public func describe(_ error: any Error, outcome: String? = nil) -> IBError {
        Database.describe(error, path: path, outcome: outcome)
    }

    // MARK: meta

    public func meta(_ key: String) throws -> String? {
        try db.scalarText("SELECT value FROM meta WHERE key = ?", key)
    }

    public func setMeta(_ key: String, _ value: String?) throws {
        if let value {
            try db.run("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
        } else {
            try db.run("DELETE FROM meta WHERE key = ?", key)
        }
    }

    /// The library's embedding model and dimension, recorded with the first vectors.
    public func embeddingModel() throws -> (model: String, dim: Int)? {
        guard let model = try meta("embedding_model"), let dimText = try meta("embedding_dim"), let dim = Int(dimText) else { return nil }
        return (model, dim)
    }

    /// The precision of the library's vectors ("fp32", "bf16", "int8"), recorded with
    /// the first vectors; a library made before precisions were recorded reads as
    /// fp32. nil while the library has no vectors.
    public func embeddingPrecision() throws -> String? {
        guard try embeddingModel() != nil else { return nil }
        return try meta(Self.precisionKey) ?? "fp32"
    }

    /// Other precisions stored with --mixed-precision (the library and its queries keep embeddingPrecision).
    public func mixedPrecisions() throws -> [String] {
        try meta(Self.mixedPrecisionKey).map { $0.split(separator: ",").map(String.init) } ?? []
    }

    /// Notes `precisions` as stored beside the library's own (--mixed-precision).
    func addMixedPrecisions(_ precisions: [String]) throws {
        let all = Set(try mixedPrecisions()).union(precisions)
        try setMeta(Self.mixedPrecisionKey, all.sorted().joined(separator: ","))
    }

    static let precisionKey = "embedding_precision"
    static let mixedPrecisionKey = "embedding_precision_mixed"

    // MARK: books

    static let bookColumns = """
        b.id, b.title, b.language, b.format, b.source, b.sha256, b.page_count, b.status, b.current_page,
        b.created_at, b.updated_at, b.embedding_provider, b.embedding_dimension, b.extra,
        (SELECT count(*) FROM chunks c WHERE c.book_id = b.id) AS chunk_count,
        (SELECT coalesce(sum(v.count), 0) FROM vector_blocks v WHERE v.book_id = b.id) AS vector_count,
        (SELECT value FROM meta WHERE key = '\(precisionKey)') AS embedding_precision,
        (SELECT json_group_array(a.name) FROM (SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id
            WHERE ba.book_id = b.id ORDER BY ba.position) a) AS authors
        """

    func bookInfo(_ row: Row) -> BookInfo {
        var authors: [String] = []
        if let text = row.text("authors"), let json = try? JSON.parse(text), let array = json.arrayValue {
            authors = array.compactMap(\.stringValue)
        }
        var extra = JSONObject()
        if let text = row.text("extra"), let json = try? JSON.parse(text), let object = json.objectValue { extra = object }
        var record = BookRecord(id: row.text("id") ?? "", title: row.text("title") ?? "", authors: authors,
                                language: row.text("language"), format: row.text("format") ?? "unknown",
                                source: row.text("source") ?? "", sha256: row.text("sha256") ?? "",
                                pageCount: row.int("page_count") ?? 0)
        record.extra = extra
        return BookInfo(record: record, status: row.text("status") ?? "pending", currentPage: row.int("current_page") ?? 0,
                        createdAt: row.text("created_at") ?? "", updatedAt: row.text("updated_at") ?? "",
                        chunkCount: row.int("chunk_count") ?? 0, vectorCount: row.int("vector_count") ?? 0,
                        embeddingModel: row.text("embedding_provider"), embeddingDimension: row.int("embedding_dimension"),
                        embeddingPrecision: (row.int("vector_count") ?? 0) > 0 ? row.text("embedding_precision") ?? "fp32" : nil)
    }

    /// Books in the library, oldest first. Only `ready` books unless `all`.
    public func books(all: Bool = false) throws -> [BookInfo] {
        let sql = "SELECT \(Self.bookColumns) FROM books b \(all ? "" : "WHERE b.status = 'ready'") ORDER BY b.created_at, b.title"
        return try db.query(sql).map(bookInfo)
    }

    public func book(id: String) throws -> BookInfo? {
        try db.query("SELECT \(Self.bookColumns) FROM books b WHERE b.id = ?", id).first.map(bookInfo)
    }

    /// BOOK on the command line: an id, an id prefix, or a (fuzzy) title.
    /// Several matches: an error listing them, exit code 3. None: exit code 1.
    public func resolveBook(_ query: String) throws -> BookInfo { try resolveBookMatch(query).book }

    /// How BOOK named the book: by id (or id prefix), by its whole title, or by
    /// a partial or misspelt title (which a deletion will not take on trust).
    public enum BookNaming: Sendable { case id, exactTitle, partialTitle }

    /// `resolveBook`, telling also how the book was named.
    public func resolveBookMatch(_ query: String) throws -> (book: BookInfo, naming: BookNaming) {
        let query = query.trimmingSpaces
        guard !query.isEmpty else { throw IBError.usage("BOOK is empty") }
        if let exact = try book(id: query) { return (exact, .id) }
        let books = try self.books(all: true)
        let lowered = query.lowercased()
        if lowered.count >= 4, lowered.allSatisfy(\.isHexDigit) {
            let byPrefix = books.filter { $0.id.lowercased().hasPrefix(lowered) }
            if byPrefix.count == 1 { return (byPrefix[0], .id) }
            if byPrefix.count > 1 { throw Self.ambiguous(query, byPrefix) }
        }
        let sameTitle = books.filter { $0.title.trimmingSpaces.lowercased() == lowered }
        if sameTitle.count == 1 { return (sameTitle[0], .exactTitle) }
        if sameTitle.count > 1 { throw Self.ambiguous(query, sameTitle) }
        let matcher = TitleMatcher(books.map { TitleMatcher.Entry(id: $0.id, title: $0.title, authors: $0.authors) })
        switch matcher.match(query) {
        case .unique(let match):
            return (books.first { $0.id == match.id }!, .partialTitle)
        case .ambiguous(let matches):
            throw Self.ambiguous(query, matches.compactMap { m in books.first { $0.id == m.id } })
        case .none(let suggestions):
            // No title fits: an author's name ("melville") names their one book.
            let byAuthor = matcher.byAuthor(query).compactMap { e in books.first { $0.id == e.id } }
            if byAuthor.count == 1 { return (byAuthor[0], .partialTitle) }
            if byAuthor.count > 1 { throw Self.ambiguous(query, byAuthor) }
            var message = "no book in the library matches '\(query)'"
            let near = suggestions.prefix(3).compactMap { m in books.first { $0.id == m.id } }
            if !near.isEmpty { message += "; did you mean:" + Self.candidateLines(near) }
            throw IBError(message)
        }
    }

    /// Several books for one BOOK (exit 3), each told apart by candidateLines.
    public static func ambiguous(_ query: String, _ candidates: [BookInfo]) -> IBError {
        IBError("'\(query)' matches \(candidates.count) books; use an id (or a longer prefix):" + candidateLines(candidates), code: .ambiguous)
    }

    /// One line per book: id, title, authors, and what tells two editions of
    /// one title apart (format, file name, pages).
    public static func candidateLines(_ books: [BookInfo]) -> String {
        books.map { b in
            let authors = b.authors.isEmpty ? "" : " by " + b.authors.joined(separator: ", ")
            return "\n  \(b.id)  \(b.title)\(authors) \(edition(b))"
        }.joined()
    }

    /// "(epub, moby-dick.epub, 9 pages)": what tells two editions of one title apart.
    public static func edition(_ b: BookInfo) -> String {
        let file = b.source.split(separator: "/").last.map(String.init) ?? b.source
        return "(\(b.format), \(file.isEmpty ? "-" : file), \(counted(b.pageCount, "page")))"
    }

    // MARK: reading position

    /// Sets the reading position (0 clears it). Pages beyond the book are refused.
    public func setPage(bookID: String, page: Int) throws {
        guard page >= 0 else { throw IBError.usage("the page must be 0 (clear) or more") }
        try db.write {
            guard let book = try book(id: bookID) else { throw IBError("no book \(bookID)") }
            if book.pageCount > 0 && page > book.pageCount {
                throw IBError("'\(book.title)' has \(counted(book.pageCount, "page")); page \(page) is past its end")
            }
            try db.run("UPDATE books SET current_page = ?, updated_at = ? WHERE id = ?", page, Timestamp.iso8601(), bookID)
        }
    }

    // MARK: delete

    /// Removes the book's text: pages, chunks, their full-text rows, vectors,
    /// section summaries. The reader's own words (quotes, notes, progress,
    /// reading state, conversations) stay, detached from the text with the
    /// book's title kept on them (trigger books_keep_reader_words), unless
    /// `purge`. Returns how many of the reader's rows were kept or removed.
    /// The space goes to the freelist (reclaimed by VACUUM).
    @discardableResult
    public func delete(bookID: String, purge: Bool = false) throws -> ReaderWordCounts {
        try db.write {
            let counts = try readerWordCounts(bookID: bookID)
            if purge { try purgeReaderWordsInTransaction(bookID: bookID) }
            try removeBookInTransaction(bookID: bookID)
            return counts
        }
    }

    /// The reader's rows that belong to a book.
    public func readerWordCounts(bookID: String) throws -> ReaderWordCounts {
        func count(_ table: String) throws -> Int { try db.scalarInt("SELECT count(*) FROM \(table) WHERE book_id = ?", bookID) ?? 0 }
        return ReaderWordCounts(quotes: try count("quotes"), notes: try count("notes"), progressEvents: try count("progress_events"),
                                readingStates: try count("reading_state"), conversations: try count("conversations"))
    }

    func purgeReaderWordsInTransaction(bookID: String) throws {
        try db.run("DELETE FROM quotes WHERE book_id = ?", bookID)
        try db.run("DELETE FROM notes WHERE book_id = ?", bookID)
        try db.run("DELETE FROM progress_events WHERE book_id = ?", bookID)
        try db.run("DELETE FROM reading_state WHERE book_id = ?", bookID)
        try db.run("DELETE FROM chat_messages WHERE conversation_id IN (SELECT id FROM conversations WHERE book_id = ?)", bookID)
        try db.run("DELETE FROM conversations WHERE book_id = ?", bookID)
    }

    /// Deletes the book row and its text; the reader's rows still pointing at
    /// it are detached by the trigger. Plans stop counting its pages.
    func removeBookInTransaction(bookID: String) throws {
        try clearTextInTransaction(bookID: bookID)
        try db.run("""
            UPDATE reading_plans SET book_ids = (SELECT json_group_array(value) FROM json_each(reading_plans.book_ids) WHERE value != ?1)
            WHERE json_valid(book_ids) AND EXISTS (SELECT 1 FROM json_each(reading_plans.book_ids) WHERE value = ?1)
            """, bookID)
        // Before book_authors goes: the trigger names the authors on detached rows.
        try db.run("DELETE FROM books WHERE id = ?", bookID)
        try db.run("DELETE FROM book_authors WHERE book_id = ?", bookID)
        try db.run("DELETE FROM authors WHERE id NOT IN (SELECT author_id FROM book_authors)")
    }

    /// Makes way for the book's text stored again under the same row
    /// (`--replace`): its text and authors go, the reader's rows stay attached.
    func clearForReplaceInTransaction(bookID: String) throws {
        try clearTextInTransaction(bookID: bookID)
        try db.run("DELETE FROM book_authors WHERE book_id = ?", bookID)
        try db.run("DELETE FROM authors WHERE id NOT IN (SELECT author_id FROM book_authors)")
    }

    /// Everything derived from the book's file, leaving the book row and the
    /// reader's rows alone.
    func clearTextInTransaction(bookID: String) throws {
        try VectorBlocks.delete(db, bookID: bookID)
        try db.run("DELETE FROM chunks_fts WHERE rowid IN (SELECT seq FROM chunks WHERE book_id = ?)", bookID)
        try db.run("DELETE FROM chunks WHERE book_id = ?", bookID)
        try db.run("DELETE FROM pages WHERE book_id = ?", bookID)
        try db.run("DELETE FROM section_summaries WHERE book_id = ?", bookID)
    }

    /// Points the reader's material of `old` at `new` (a new version of the same book).
    func moveReaderData(from old: String, to new: String) throws {
        for table in try readerTablesWithBookID() {
            try db.run("UPDATE \(table) SET book_id = ? WHERE book_id = ?", new, old)
        }
        try db.run("""
            UPDATE reading_plans SET book_ids = (SELECT json_group_array(CASE WHEN value = ?1 THEN ?2 ELSE value END) FROM json_each(reading_plans.book_ids))
            WHERE json_valid(book_ids) AND EXISTS (SELECT 1 FROM json_each(reading_plans.book_ids) WHERE value = ?1)
            """, old, new)
    }

    /// Tables whose rows belong to the reader, not to the book's content: the
    /// known ones plus any later migration's table with a book_id column
    /// (ib-capture's reading_state, ...). They move to a new version of a book.
    public func readerTablesWithBookID() throws -> [String] {
        let content: Set<String> = ["books", "chunks", "pages", "book_authors", "section_summaries", "vector_blocks", "sections"]
        let rows = try db.query("""
            SELECT m.name FROM sqlite_schema m WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
              AND m.name NOT LIKE 'chunks_fts%' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'book_id')
            ORDER BY m.name
            """)
        return rows.compactMap { $0.text("name") }.filter { !content.contains($0) }
    }

    // MARK: maintenance

    /// Sets the vector index (i8: int8 codes, the default of a new library; bits; off) for every block now and later.
    public func setQuantize(_ mode: String) throws {
        guard Quantization.modes.contains(mode) else {
            throw IBError.usage("quantize must be one of \(Quantization.modes.joined(separator: ", ")), not '\(mode)'")
        }
        try db.write {
            try setMeta("quantize", mode)
            try Quantization.fill(db, bookID: nil, mode: mode)
        }
    }

    /// Merges the full-text index, VACUUMs and truncates the WAL: gives deleted space back to the file system.
    public func vacuum() throws {
        _ = try db.write { try db.run("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')") }
        try db.withBusyRetry { () throws(SQLiteError) in try db.execute("VACUUM") }
        try truncateWAL()
    }

    /// Copies the WAL into the file and empties it.
    public func truncateWAL() throws {
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Counts and sizes, as one JSON object.
    public func stats() throws -> JSON {
        try db.read {
            var o = JSONObject()
            o["path"] = .string(path)
            o["books"] = JSON(try db.scalarInt("SELECT count(*) FROM books WHERE status = 'ready'"))
            let notReady = try db.scalarInt("SELECT count(*) FROM books WHERE status != 'ready'") ?? 0
            if notReady > 0 { o["books_not_ready"] = JSON(notReady) }
            o["pages"] = JSON(try db.scalarInt("SELECT count(*) FROM pages"))
            o["chunks"] = JSON(try db.scalarInt("SELECT count(*) FROM chunks"))
            o["vectors"] = JSON(try db.scalarInt("SELECT coalesce(sum(count), 0) FROM vector_blocks"))
            o["vector_blocks"] = JSON(try db.scalarInt("SELECT count(*) FROM vector_blocks"))
            let model = try embeddingModel()
            o["model"] = JSON(model?.model)
            o["dim"] = JSON(model?.dim)
            o["precision"] = JSON(try embeddingPrecision())
            let mixed = try mixedPrecisions()
            if !mixed.isEmpty { o["mixed_precision"] = JSON(mixed) }
            o["quantize"] = .string(try meta("quantize") ?? "off")
            o["quotes"] = JSON(try db.scalarInt("SELECT count(*) FROM quotes"))
            o["notes"] = JSON(try db.scalarInt("SELECT count(*) FROM notes"))
            o["progress_events"] = JSON(try db.scalarInt("SELECT count(*) FROM progress_events"))
            o["reading_plans"] = JSON(try db.scalarInt("SELECT count(*) FROM reading_plans"))
            o["conversations"] = JSON(try db.scalarInt("SELECT count(*) FROM conversations"))
            o["schema_version"] = JSON(try db.scalarInt("SELECT max(version) FROM schema_migrations"))
            let pageSize = try db.scalarInt("PRAGMA page_size") ?? 4096
            let pageCount = try db.scalarInt("PRAGMA page_count") ?? 0
            o["page_size"] = JSON(pageSize)
            o["page_count"] = JSON(pageCount)
            o["freelist_count"] = JSON(try db.scalarInt("PRAGMA freelist_count"))
            o["file_bytes"] = JSON(Self.fileSize(path))
            o["wal_bytes"] = JSON(Self.fileSize(path + "-wal"))
            return .object(o)
        }
    }

    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    // MARK: reading chunks and pages (for ib-search, ib-ask)

    static func chunkRecord(_ s: Statement) -> ChunkRecord {
        // Columns: book_id, chunk_index, start_page, end_page, start_offset, end_offset, token_count, content, extra
        var chunk = ChunkRecord(bookID: s.text(0), index: s.int(1), startPage: s.int(2), endPage: s.int(3),
                                startOffset: s.int(4), endOffset: s.int(5), tokenCount: s.int(6), text: s.text(7))
        if let extraText = s.optionalText(8), extraText != "{}", let json = try? JSON.parse(extraText), let object = json.objectValue {
            chunk.extra = object
        }
        return chunk
    }

    static let chunkColumns = "book_id, chunk_index, start_page, end_page, start_offset, end_offset, token_count, content, extra"

    /// One chunk (without its embedding).
    public func chunk(bookID: String, index: Int) throws -> ChunkRecord? {
        let s = try db.prepare("SELECT \(Self.chunkColumns) FROM chunks WHERE book_id = ? AND chunk_index = ?")
        try s.bind(1, bookID); try s.bind(2, index)
        guard try s.step() else { return nil }
        let chunk = Self.chunkRecord(s)
        s.reset()
        return chunk
    }

    /// All chunks of a book in order (without embeddings).
    public func chunks(bookID: String) throws -> [ChunkRecord] {
        let s = try db.prepare("SELECT \(Self.chunkColumns) FROM chunks WHERE book_id = ? ORDER BY chunk_index")
        try s.bind(1, bookID)
        var out: [ChunkRecord] = []
        while try s.step() { out.append(Self.chunkRecord(s)) }
        return out
    }

    /// Window codes (see ChunkRecord.windows) of a book's chunks that have them, by chunk index.
    public func windows(bookID: String) throws -> [Int: [Int8]] {
        let s = try db.prepare("SELECT chunk_index, windows FROM chunks WHERE book_id = ? AND windows IS NOT NULL")
        try s.bind(1, bookID)
        var out: [Int: [Int8]] = [:]
        while try s.step() { out[s.int(0)] = s.blob(1).map { Int8(bitPattern: $0) } }
        return out
    }

    /// Window codes of the given chunks (those that have them), read by primary key.
    public func windows(of keys: [(book: String, index: Int)]) throws -> [String: [Int8]] {
        let s = try db.prepare("SELECT windows FROM chunks WHERE id = ? AND windows IS NOT NULL")
        var out: [String: [Int8]] = [:]
        for key in keys {
            let id = "\(key.book):\(key.index)"
            s.reset()
            try s.bind(1, id)
            if try s.step() { out[id] = s.blob(0).map { Int8(bitPattern: $0) } }
        }
        s.reset()
        return out
    }

    /// The chunk whose chunks_fts rowid is `seq`.
    public func chunk(seq: Int) throws -> ChunkRecord? {
        let s = try db.prepare("SELECT \(Self.chunkColumns) FROM chunks WHERE seq = ?")
        try s.bind(1, seq)
        guard try s.step() else { return nil }
        let chunk = Self.chunkRecord(s)
        s.reset()
        return chunk
    }

    public func page(bookID: String, page: Int) throws -> PageRecord? {
        let rows = try db.query("SELECT page, label, section_index, section_title, text FROM pages WHERE book_id = ? AND page = ?", bookID, page)
        guard let row = rows.first else { return nil }
        return PageRecord(bookID: bookID, page: row.int("page") ?? page, label: row.text("label"),
                          sectionIndex: row.int("section_index"), sectionTitle: row.text("section_title"), text: row.text("text") ?? "")
    }

    /// The printed label of a page, when the book has one.
    public func pageLabel(bookID: String, page: Int) throws -> String? {
        try db.scalarText("SELECT label FROM pages WHERE book_id = ? AND page = ?", bookID, page)
    }

    // MARK: dates

    /// Any accepted date form (Z, +00:00, fractions, SQLite's "YYYY-MM-DD HH:MM:SS") as ISO-8601 UTC "…Z".
    public static func normalizedDate(_ text: String) -> String {
        guard let seconds = Timestamp.parse(text) else { return text }
        return Timestamp.iso8601(seconds)
    }
}

extension String {
    var trimmingSpaces: String { TextClasses.trim(self, where: \.isWhitespace) }
}
