import XCTest
import IBCore
@testable import IBStore
#if canImport(Glibc)
import Glibc
#endif

/// Library operations on real SQLite files in a temporary directory.
final class LibraryTests: XCTestCase {
    var directory = ""

    override func setUp() {
        var template = Array("/tmp/ibstore-test-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    override func tearDown() {
        _ = directory.withCString { dir in
            system("rm -rf '\(String(cString: dir))'")
        }
    }

    var dbPath: String { directory + "/library.db" }

    // MARK: helpers

    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E3779B97F4A7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
            z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
            return z ^ (z >> 31)
        }
    }

    static func unitVector(_ dim: Int, _ g: inout Generator) -> [Float] {
        var v = (0..<dim).map { _ in Float.random(in: -1...1, using: &g) }
        let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        for i in v.indices { v[i] /= norm }
        return v
    }

    /// A book with `chunks` chunks over chunks/2 pages; `embedded` of them with vectors.
    static func book(_ n: Int, chunks: Int = 10, dim: Int = 16, embedded: Int? = nil, model: String = "test-model",
                     source: String? = nil, title: String? = nil, text: String = "plain words") -> [Record] {
        let sha = SHA256.hex("book \(n) \(title ?? "") \(source ?? "")")
        let id = BookRecord.id(forSHA256: sha)
        let pages = max(1, chunks / 2)
        var records: [Record] = [.book(BookRecord(id: id, title: title ?? "Book Number \(n)", authors: ["Ann Author", "Bo \(n)"],
                                                  language: "en", format: "txt", source: source ?? "/books/\(n).txt",
                                                  sha256: sha, pageCount: pages))]
        for p in 1...pages {
            records.append(.page(PageRecord(bookID: id, page: p, label: p == 1 ? "i" : String(p - 1), sectionIndex: 0,
                                            sectionTitle: "Chapter", text: "page \(p) \(text)")))
        }
        var g = Generator(state: UInt64(n) &* 7919)
        for i in 0..<chunks {
            let start = min(pages, i / 2 + 1)
            let end = min(pages, start + i % 2)
            // Chunks end where their end page's text ends: the stream looks whole.
            var chunk = ChunkRecord(bookID: id, index: i, startPage: start, endPage: end,
                                    startOffset: 0, endOffset: "page \(end) \(text)".unicodeScalars.count, tokenCount: 3,
                                    text: "chunk \(i) of \(n): \(text)")
            if i < (embedded ?? chunks) {
                chunk.embedding = unitVector(dim, &g)
                chunk.model = model
            }
            records.append(.chunk(chunk))
        }
        return records
    }

    @discardableResult
    func store(_ records: [Record], library: Library? = nil, replace: Bool = false) throws -> IndexSummary {
        let library = try library ?? Library.open(path: dbPath)
        let indexer = Indexer(library: library)
        indexer.replace = replace
        for record in records { try indexer.add(record) }
        try indexer.finish()
        return indexer.summary
    }

    func bookID(_ records: [Record]) -> String {
        if case .book(let b) = records[0] { return b.id }
        fatalError()
    }

    // MARK: migrations

    func testGeneratedMigrationsAreCurrent() throws {
        // Sources/IBStore/Migrations.generated.swift must match shared/schema/*.sql (run scripts/gen-migrations).
        let root = String(#filePath).components(separatedBy: "/Tests/IBStoreTests/")[0]
        let schema = root + "/shared/schema"
        guard let dir = opendir(schema) else { return XCTFail("no \(schema)") }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.hasSuffix(".sql"), name.first?.isNumber == true { names.append(name) }
        }
        closedir(dir)
        names.sort()
        XCTAssertEqual(Migrations.all.map(\.name), names, "run scripts/gen-migrations")
        for (migration, name) in zip(Migrations.all, names) {
            var text = try FileSystem.readText(schema + "/" + name)
            while text.hasSuffix("\n") { text.removeLast() }
            XCTAssertEqual(migration.sql, text, "\(name) changed: run scripts/gen-migrations")
            XCTAssertEqual(migration.version, Int(name.prefix { $0.isNumber }))
        }
    }

    func testFreshLibraryHasSchemaAndSettings() throws {
        let library = try Library.open(path: dbPath)
        let versions = try library.db.query("SELECT version FROM schema_migrations ORDER BY version").compactMap { $0.int("version") }
        XCTAssertEqual(versions, Migrations.all.map(\.version).sorted())
        let tables = Set(try library.db.query("SELECT name FROM sqlite_schema WHERE type = 'table'").compactMap { $0.text("name") })
        for table in ["books", "chunks", "conversations", "chat_messages", "section_summaries", "pages", "authors", "book_authors",
                      "vector_blocks", "quotes", "notes", "progress_events", "reading_plans", "meta", "chunks_fts", "schema_migrations"] {
            XCTAssertTrue(tables.contains(table), table)
        }
        XCTAssertEqual(try library.db.scalarText("PRAGMA journal_mode"), "wal")
        XCTAssertEqual(try library.db.scalarInt("PRAGMA foreign_keys"), 1)
        // Opening again applies nothing new.
        let again = try Library.open(path: dbPath)
        XCTAssertEqual(try again.db.scalarInt("SELECT count(*) FROM schema_migrations"), versions.count)
    }

    func testNewerSchemaIsRefused() throws {
        let library = try Library.open(path: dbPath)
        try library.db.run("INSERT INTO schema_migrations (version, name) VALUES (999, '999_future.sql')")
        XCTAssertThrowsError(try Library.open(path: dbPath)) { error in
            XCTAssertTrue("\(error)".contains("newer"), "\(error)")
        }
    }

    func testCorruptFileIsAClearError() throws {
        let garbage = [UInt8](repeating: 0x41, count: 8192)
        let fd = open(dbPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = garbage.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        close(fd)
        XCTAssertThrowsError(try Library.open(path: dbPath)) { error in
            XCTAssertTrue("\(error)".contains("not an ib library"), "\(error)")
        }
    }

    // MARK: storing

    func testStoreListShowAndResolve() throws {
        let a = Self.book(1, title: "The Name of the Rose"), b = Self.book(2, title: "Rose Madder"), c = Self.book(3, embedded: 4)
        try store(a + b + c)
        let library = try Library.open(path: dbPath)
        let books = try library.books()
        XCTAssertEqual(books.count, 3)
        let first = try XCTUnwrap(books.first { $0.id == bookID(a) })
        XCTAssertEqual(first.status, "ready")
        XCTAssertEqual(first.authors, ["Ann Author", "Bo 1"])
        XCTAssertEqual(first.chunkCount, 10)
        XCTAssertEqual(first.vectorCount, 10)
        XCTAssertEqual(first.embeddingModel, "test-model")
        XCTAssertNotNil(Timestamp.parse(first.createdAt))
        XCTAssertEqual(try library.book(id: bookID(c))?.vectorCount, 4)

        XCTAssertEqual(try library.resolveBook(bookID(b)).id, bookID(b))
        XCTAssertEqual(try library.resolveBook(String(bookID(b).prefix(6))).id, bookID(b))
        XCTAssertEqual(try library.resolveBook("name of the rose").id, bookID(a))
        XCTAssertThrowsError(try library.resolveBook("Rose")) { error in
            let e = error as? IBError
            XCTAssertEqual(e?.code, .ambiguous)
            XCTAssertTrue(e?.message.contains(bookID(a)) == true && e?.message.contains(bookID(b)) == true, "\(error)")
        }
        XCTAssertThrowsError(try library.resolveBook("Zebra Quantum")) { error in
            XCTAssertEqual((error as? IBError)?.code, .failure)
        }

        // Chunks and pages read back.
        let chunk = try XCTUnwrap(library.chunk(bookID: bookID(a), index: 3))
        XCTAssertEqual(chunk.text, "chunk 3 of 1: plain words")
        XCTAssertEqual(chunk.endPage, 3)
        XCTAssertEqual(try library.pageLabel(bookID: bookID(a), page: 1), "i")
        // Vectors are in one block with the right keys and end pages.
        let vectors = try VectorBlocks.read(library.db, bookID: bookID(a))
        XCTAssertEqual(vectors.map(\.key), Array(0..<10))
        XCTAssertEqual(vectors[3].endPage, 3)
        XCTAssertEqual(vectors[3].vector.count, 16)
    }

    func testSameBookAgainIsANoOpAndReplaceRestores() throws {
        let a = Self.book(1)
        try store(a)
        let library = try Library.open(path: dbPath)
        try library.setPage(bookID: bookID(a), page: 4)
        let summary = try store(a)
        XCTAssertEqual(summary.stored, [])
        XCTAssertEqual(summary.unchanged, [bookID(a)])
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks"), 10)
        XCTAssertEqual(try library.db.scalarInt("SELECT sum(count) FROM vector_blocks"), 10)
        let replaced = try store(Self.book(1, chunks: 6), replace: true)
        XCTAssertEqual(replaced.stored, [bookID(a)])
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks"), 6)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks_fts"), 6)
        XCTAssertEqual(try library.db.scalarInt("SELECT sum(count) FROM vector_blocks"), 6)
        XCTAssertEqual(try library.book(id: bookID(a))?.currentPage, 4, "the reading position survives --replace")
    }

    func testNewVersionOfTheSameSourceReplacesTheOld() throws {
        let old = Self.book(1, source: "/books/rose.pdf", title: "Rose v1")
        try store(old)
        let library = try Library.open(path: dbPath)
        try library.setPage(bookID: bookID(old), page: 3)
        try library.db.run("INSERT INTO quotes (book_id, text, page, created_at) VALUES (?, 'a quote', 2, ?)", bookID(old), Timestamp.iso8601())
        try library.db.execute("CREATE TABLE test_marks (book_id TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE, mark TEXT)")
        try library.db.run("INSERT INTO test_marks VALUES (?, 'm')", bookID(old))
        let new = Self.book(2, source: "/books/rose.pdf", title: "Rose v2")
        let summary = try store(new)
        XCTAssertEqual(summary.replaced.first?.old, bookID(old))
        XCTAssertNil(try library.book(id: bookID(old)))
        let book = try XCTUnwrap(library.book(id: bookID(new)))
        XCTAssertEqual(book.title, "Rose v2")
        XCTAssertEqual(book.currentPage, 3)
        XCTAssertEqual(try library.db.scalarText("SELECT book_id FROM quotes"), bookID(new))
        XCTAssertEqual(try library.db.scalarText("SELECT book_id FROM test_marks"), bookID(new), "reader tables of later migrations move too")
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM vector_blocks WHERE book_id = ?", bookID(old)), 0)
    }

    func testMissingEmbeddingsAreFilledLater() throws {
        let a = Self.book(1, chunks: 12, embedded: 5)
        let summary = try store(a)
        XCTAssertEqual(summary.chunksWithoutVectors, 7)
        let library = try Library.open(path: dbPath)
        // Export the chunks without vectors, "embed" them, store them again.
        let path = directory + "/missing.jsonl"
        let out = OutputStream(fd: open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644))
        var exporter = Exporter(library: library)
        exporter.missingEmbeddings = true
        try exporter.export(to: out)
        var records: [Record] = []
        var g = Generator(state: 42)
        try RecordReader(path: path).forEach { record, _ in
            if case .chunk(var chunk) = record {
                chunk.embedding = Self.unitVector(16, &g)
                chunk.model = "test-model"
                records.append(.chunk(chunk))
            } else {
                records.append(record)
            }
        }
        XCTAssertEqual(records.filter { if case .chunk = $0 { return true }; return false }.count, 7)
        let filled = try store(records)
        XCTAssertEqual(filled.vectorsAdded, 7)
        let vectors = try VectorBlocks.read(library.db, bookID: bookID(a))
        XCTAssertEqual(vectors.map(\.key), Array(0..<12))
        XCTAssertEqual(try library.book(id: bookID(a))?.vectorCount, 12)
    }

    // MARK: bad input leaves nothing half-written

    func assertNothingStored(_ records: [Record], contains text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertThrowsError(try store(records), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
        let library = try Library.open(path: dbPath)
        XCTAssertNil(try library.book(id: bookID(records)), file: file, line: line)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks WHERE book_id = ?", bookID(records)), 0, file: file, line: line)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM pages WHERE book_id = ?", bookID(records)), 0, file: file, line: line)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM vector_blocks WHERE book_id = ?", bookID(records)), 0, file: file, line: line)
    }

    func testWrongDimensionOtherModelAndNaNAreRefused() throws {
        try store(Self.book(1, dim: 16))
        try assertNothingStored(Self.book(2, dim: 32), contains: "dimensions")
        try assertNothingStored(Self.book(3, model: "other-model"), contains: "other-model")
        var mixed = Self.book(4)
        if case .chunk(var c) = mixed[9] { c.embedding = Array(c.embedding!.prefix(8)); mixed[9] = .chunk(c) }
        try assertNothingStored(mixed, contains: "dimensional")
        var nan = Self.book(5)
        if case .chunk(var c) = nan[8] { c.embedding![2] = .nan; nan[8] = .chunk(c) }
        try assertNothingStored(nan, contains: "NaN")
        var inf = Self.book(6)
        if case .chunk(var c) = inf[8] { c.embedding![0] = .infinity; inf[8] = .chunk(c) }
        try assertNothingStored(inf, contains: "infinite")
        XCTAssertEqual(try Library.open(path: dbPath).books().count, 1)
    }

    func testFullDiskLeavesNothingAndTheLibraryWorks() throws {
        try store(Self.book(1))
        let library = try Library.open(path: dbPath)
        let pages = try XCTUnwrap(library.db.scalarInt("PRAGMA page_count"))
        // Emulates a full disk: the file may not grow past its current size.
        _ = try library.db.scalarInt("PRAGMA max_page_count = \(pages + 1)")
        let big = Self.book(2, chunks: 400, dim: 16, text: String(repeating: "long text ", count: 100))
        XCTAssertThrowsError(try store(big, library: library)) { error in
            XCTAssertTrue("\(error)".contains("full"), "\(error)")
        }
        XCTAssertNil(try library.book(id: bookID(big)))
        XCTAssertEqual(try library.db.scalarText("PRAGMA integrity_check"), "ok")
        _ = try library.db.scalarInt("PRAGMA max_page_count = 1000000000")
        try store(big, library: library)
        XCTAssertEqual(try library.book(id: bookID(big))?.status, "ready")
    }

    // MARK: delete, set-page, export

    func testDeleteRemovesEverythingAndVacuumShrinks() throws {
        var all: [Record] = []
        for n in 1...12 { all += Self.book(n, chunks: 200, dim: 384, text: String(repeating: "words ", count: 60)) }
        try store(all)
        let library = try Library.open(path: dbPath)
        let victim = bookID(Self.book(5, chunks: 200, dim: 384, text: String(repeating: "words ", count: 60)))
        try library.db.run("INSERT INTO quotes (book_id, text, created_at) VALUES (?, 'q', ?)", victim, Timestamp.iso8601())
        try library.db.run("INSERT INTO notes (book_id, text, created_at) VALUES (?, 'n', ?)", victim, Timestamp.iso8601())
        try library.db.run("INSERT INTO progress_events (book_id, page, kind, created_at) VALUES (?, 3, 'page', ?)", victim, Timestamp.iso8601())
        try library.db.run("INSERT INTO conversations (id, book_id, title) VALUES ('c1', ?, 'talk')", victim)
        try library.db.run("INSERT INTO chat_messages (id, conversation_id, role, content) VALUES ('m1', 'c1', 'user', 'hi')")
        try library.db.run("INSERT INTO reading_plans (title, book_ids, created_at) VALUES ('plan', json_array(?, 'other'), ?)", victim, Timestamp.iso8601())
        try library.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let freeBefore = try XCTUnwrap(library.db.scalarInt("PRAGMA freelist_count"))
        let sizeBefore = Library.fileSize(dbPath)

        let others = try library.db.scalarInt("SELECT count(*) FROM chunks WHERE book_id != ?", victim)
        try library.delete(bookID: victim, purge: true)
        for table in ["books WHERE id = ?", "chunks WHERE book_id = ?", "pages WHERE book_id = ?", "vector_blocks WHERE book_id = ?",
                      "quotes WHERE book_id = ?", "notes WHERE book_id = ?", "progress_events WHERE book_id = ?",
                      "conversations WHERE book_id = ?", "book_authors WHERE book_id = ?"] {
            XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM \(table)", victim), 0, table)
        }
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chat_messages"), 0)
        XCTAssertEqual(try library.db.scalarText("SELECT book_ids FROM reading_plans"), "[\"other\"]")
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks_fts"), others)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks"), others)
        XCTAssertEqual(try library.books().count, 11)
        try library.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let freeAfter = try XCTUnwrap(library.db.scalarInt("PRAGMA freelist_count"))
        XCTAssertGreaterThan(freeAfter, freeBefore, "deleted pages go to the freelist")
        try library.vacuum()
        let sizeAfter = Library.fileSize(dbPath)
        XCTAssertLessThan(sizeAfter, sizeBefore, "VACUUM gives the space back")
        XCTAssertEqual(try library.db.scalarInt("PRAGMA freelist_count"), 0)
        // chunks_fts still maps to chunks after VACUUM (seq, not the implicit rowid).
        let hit = try library.db.scalarInt("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'words' LIMIT 1")
        XCTAssertNotNil(try library.chunk(seq: XCTUnwrap(hit)))
    }

    func testSetPage() throws {
        let a = Self.book(1)
        try store(a)
        let library = try Library.open(path: dbPath)
        try library.setPage(bookID: bookID(a), page: 5)
        XCTAssertEqual(try library.book(id: bookID(a))?.currentPage, 5)
        XCTAssertThrowsError(try library.setPage(bookID: bookID(a), page: 6))
        try library.setPage(bookID: bookID(a), page: 0)
        XCTAssertEqual(try library.book(id: bookID(a))?.currentPage, 0)
    }

    func testExportCopiesALibrary() throws {
        let a = Self.book(1, embedded: 7), b = Self.book(2, title: "東京の本", text: "東京都庁の話")
        try store(a + b)
        let library = try Library.open(path: dbPath)
        try library.setPage(bookID: bookID(b), page: 2)
        try library.db.run("INSERT INTO quotes (book_id, text, page, tags, created_at) VALUES (?, 'q', 2, '[\"x\"]', '2026-01-02 03:04:05')", bookID(a))
        try library.db.run("INSERT INTO reading_plans (title, book_ids, created_at) VALUES ('p', json_array(?), ?)", bookID(a), Timestamp.iso8601())
        // A table a later migration adds beside the book travels as generic rows.
        try library.db.execute("CREATE TABLE test_marks (book_id TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE, mark TEXT)")
        try library.db.run("INSERT INTO test_marks VALUES (?, 'm')", bookID(b))
        let path = directory + "/export.jsonl"
        try Exporter(library: library).export(to: OutputStream(fd: open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)))
        var records: [Record] = []
        try RecordReader(path: path).forEach { record, _ in records.append(record) }
        let copy = try Library.open(path: directory + "/copy.db")
        try copy.db.execute("CREATE TABLE test_marks (book_id TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE, mark TEXT)")
        try store(records, library: copy)
        XCTAssertEqual(try copy.db.scalarText("SELECT book_id || mark FROM test_marks"), bookID(b) + "m")
        for table in ["books", "pages", "chunks", "chunks_fts", "quotes", "reading_plans", "authors"] {
            XCTAssertEqual(try copy.db.scalarInt("SELECT count(*) FROM \(table)"), try library.db.scalarInt("SELECT count(*) FROM \(table)"), table)
        }
        XCTAssertEqual(try VectorBlocks.read(copy.db, bookID: bookID(a)), try VectorBlocks.read(library.db, bookID: bookID(a)))
        XCTAssertEqual(try copy.book(id: bookID(b))?.currentPage, 2)
        XCTAssertEqual(try copy.db.scalarText("SELECT tags FROM quotes"), "[\"x\"]")
        // A second export of the copy is identical.
        let path2 = directory + "/export2.jsonl"
        try Exporter(library: copy).export(to: OutputStream(fd: open(path2, O_WRONLY | O_CREAT | O_TRUNC, 0o644)))
        XCTAssertEqual(try FileSystem.read(path), try FileSystem.read(path2))
    }

    func testWindowsAreStoredExportedFilledAndDeleted() throws {
        var records = Self.book(1, chunks: 6, dim: 4, embedded: 4)
        var expected: [Int: [Int8]] = [:]
        for i in records.indices {
            guard case .chunk(var chunk) = records[i], chunk.embedding != nil, chunk.index % 2 == 0 else { continue }
            chunk.windows = (0..<8).map { Int8($0 * 10 - chunk.index) }   // two windows of 4
            expected[chunk.index] = chunk.windows
            records[i] = .chunk(chunk)
        }
        try store(records)
        let library = try Library.open(path: dbPath)
        let id = bookID(records)
        XCTAssertEqual(try library.windows(bookID: id), expected)
        XCTAssertEqual(try library.windows(of: [(id, 0), (id, 1), (id, 2), ("nobook", 0)]),
                       ["\(id):0": expected[0]!, "\(id):2": expected[2]!])
        // export | index carries them.
        let path = directory + "/export.jsonl"
        try Exporter(library: library).export(to: OutputStream(fd: open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)))
        var exported: [Record] = []
        try RecordReader(path: path).forEach { record, _ in exported.append(record) }
        let copy = try Library.open(path: directory + "/copy.db")
        try store(exported, library: copy)
        XCTAssertEqual(try copy.windows(bookID: id), expected)
        // Embeddings filled in later bring their windows.
        var later: [Record] = []
        let full = Self.book(1, chunks: 6, dim: 4)
        for record in full {
            guard case .chunk(var chunk) = record, chunk.index == 4 else { continue }
            chunk.windows = [1, 2, 3, 4]
            later.append(.chunk(chunk))
        }
        try store(later)
        XCTAssertEqual(try library.windows(bookID: id)[4], [1, 2, 3, 4])
        try library.delete(bookID: id)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks WHERE windows IS NOT NULL"), 0)
    }

    // MARK: full text and dates

    func testFullTextFindsCJKAndWords() throws {
        XCTAssertEqual(FullText.segment("東京都庁 in Tokyo"), " 東京 京都 都庁  in Tokyo")
        XCTAssertEqual(FullText.segment("plain"), "plain")
        XCTAssertEqual(FullText.matchExpression("東京 \"rose\""), "\"東京\" \"rose\"")
        let a = Self.book(1, title: "東京の本", text: "東京都庁の話 and roses")
        try store(a)
        let library = try Library.open(path: dbPath)
        for query in ["都庁", "東京", "roses", "京都庁"] {
            let hits = try library.db.scalarInt("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", FullText.matchExpression(query))
            XCTAssertEqual(hits, 10, query)
        }
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", FullText.matchExpression("大阪")), 0)
    }

    func testDatesReadBackInEveryAcceptedForm() throws {
        let a = Self.book(1)
        try store(a)
        let library = try Library.open(path: dbPath)
        for (stored, expected) in [("2026-01-02 03:04:05", "2026-01-02T03:04:05Z"), ("2026-01-02T03:04:05.123456+00:00", "2026-01-02T03:04:05Z"),
                                   ("2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z")] {
            try library.db.run("UPDATE books SET created_at = ?", stored)
            let book = try XCTUnwrap(library.book(id: bookID(a)))
            XCTAssertEqual(book.json["created_at"]?.stringValue, expected)
        }
    }
    // MARK: ibvec on IBStore's connections

    /// Migration 120 rewrites a library's vector_blocks with the small columns
    /// before the float vectors: the same rows, bytes and search results, and
    /// deleting a book still deletes its vectors.
    func testVectorBlocksMigrationKeepsEveryBlock() throws {
        let a = Self.book(1, chunks: 30), b = Self.book(2, chunks: 30)
        try store(a + b)
        let dump = "SELECT id, book_id, model, dim, count, hex(keys) AS k, hex(end_pages) AS e, hex(vectors) AS v, hex(vectors_i8) AS i, hex(scales) AS s, hex(bits) AS b FROM vector_blocks ORDER BY id"
        func rows(_ library: Library) throws -> [String] {
            try library.db.query(dump).map { r in ["id", "book_id", "model", "dim", "count", "k", "e", "v", "i", "s", "b"].map { r.text($0) ?? "\(r.int($0) ?? -1)" }.joined(separator: "|") }
        }
        func columns(_ library: Library) throws -> [String] {
            try library.db.query("SELECT name FROM pragma_table_info('vector_blocks') ORDER BY cid").compactMap { $0.text("name") }
        }
        let knn = "SELECT book_id, key, distance FROM ibvec_knn(?, 5, NULL, NULL)"
        func hits(_ library: Library, _ q: [UInt8]) throws -> [String] {
            try library.db.query(knn, q).map { "\($0.text("book_id") ?? ""):\($0.int("key") ?? -1):\($0.double("distance") ?? -1)" }
        }
        let before: [String], beforeHits: [String]
        var query: [UInt8] = []
        do {
            let library = try Library.open(path: dbPath)
            try library.setQuantize("i8")
            XCTAssertEqual(try columns(library), ["id", "book_id", "model", "dim", "count", "keys", "end_pages", "scales", "bits", "vectors_i8", "vectors"])
            before = try rows(library)
            for f in try VectorBlocks.read(library.db, bookID: bookID(b))[7].vector { withUnsafeBytes(of: f.bitPattern.littleEndian) { query += $0 } }
            beforeHits = try hits(library, query)
            XCTAssertEqual(beforeHits.first?.hasPrefix("\(bookID(b)):7:"), true)
            // Put the library back in its pre-120 shape: the old column order.
            try library.db.write {
                try library.db.execute("""
                    DROP TRIGGER books_delete_vectors;
                    CREATE TABLE old_blocks (id INTEGER PRIMARY KEY, book_id TEXT NOT NULL, model TEXT NOT NULL,
                      dim INTEGER NOT NULL, count INTEGER NOT NULL, keys BLOB NOT NULL, end_pages BLOB NOT NULL,
                      vectors BLOB NOT NULL, vectors_i8 BLOB, scales BLOB, bits BLOB);
                    INSERT INTO old_blocks SELECT id, book_id, model, dim, count, keys, end_pages, vectors, vectors_i8, scales, bits FROM vector_blocks;
                    DROP TABLE vector_blocks;
                    ALTER TABLE old_blocks RENAME TO vector_blocks;
                    CREATE INDEX vector_blocks_book ON vector_blocks(book_id);
                    CREATE TRIGGER books_delete_vectors AFTER DELETE ON books BEGIN
                        DELETE FROM vector_blocks WHERE book_id = old.id;
                    END;
                    DELETE FROM schema_migrations WHERE version = 120;
                    """)
            }
            XCTAssertEqual(try columns(library).last, "bits")
            XCTAssertEqual(try rows(library), before)
            XCTAssertEqual(try hits(library, query), beforeHits)
        }
        // Opening it again runs migration 120.
        let library = try Library.open(path: dbPath)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM schema_migrations WHERE version = 120"), 1)
        XCTAssertEqual(try columns(library).last, "vectors")
        XCTAssertEqual(try rows(library), before)
        XCTAssertEqual(try hits(library, query), beforeHits)
        try library.delete(bookID: bookID(a))
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM vector_blocks WHERE book_id = ?", bookID(a)), 0)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM vector_blocks WHERE book_id = ?", bookID(b)), 1)
    }

    func testIbvecSearchesStoredBlocks() throws {
        let a = Self.book(1, chunks: 40), b = Self.book(2, chunks: 40)
        try store(a + b)
        let library = try Library.open(path: dbPath)
        let target = try VectorBlocks.read(library.db, bookID: bookID(b))[17]
        var query: [UInt8] = []
        for f in target.vector { withUnsafeBytes(of: f.bitPattern.littleEndian) { query += $0 } }
        let rows = try library.db.query("SELECT book_id, key, end_page, distance FROM ibvec_knn(?, 5, NULL, NULL)", query)
        XCTAssertEqual(rows.count, 5)
        XCTAssertEqual(rows.first?.text("book_id"), bookID(b))
        XCTAssertEqual(rows.first?.int("key"), 17)
        // In-scan page filter: only book a, only chunks ending on page <= 3.
        let scoped = try library.db.query("SELECT key, end_page FROM ibvec_knn(?, 5, ?, NULL)", query, "{\"\(bookID(a))\": 3}")
        XCTAssertEqual(scoped.count, 5)
        XCTAssertTrue(scoped.allSatisfy { ($0.int("end_page") ?? 99) <= 3 })
        // The opt-in quantised index fills the block columns.
        try library.setQuantize("i8")
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM vector_blocks WHERE vectors_i8 IS NULL"), 0)
        try store(Self.book(3, chunks: 5))
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM vector_blocks WHERE vectors_i8 IS NULL OR scales IS NULL"), 0)
        // written with the block (one INSERT), and the same as the block functions make
        XCTAssertEqual(try library.db.scalarInt("""
            SELECT count(*) FROM vector_blocks WHERE vectors_i8 IS NOT vec_block_i8(vectors, dim)
               OR scales IS NOT vec_block_scales(vectors, dim) OR bits IS NOT NULL
            """), 0)
        let quantised = try library.db.query("SELECT key FROM ibvec_knn(?, 1, NULL, 'int8')", query)
        XCTAssertEqual(quantised.first?.int("key"), 17)
        // exact search with the int8 codes present: the same rows and distances
        let exactAgain = try library.db.query("SELECT book_id, key, end_page, distance FROM ibvec_knn(?, 5, NULL, NULL)", query)
        XCTAssertEqual(exactAgain.map { $0.double("distance") }, rows.map { $0.double("distance") })
        XCTAssertEqual(exactAgain.map { $0.int("key") }, rows.map { $0.int("key") })
        try library.setQuantize("bits")
        try store(Self.book(4, chunks: 5))
        XCTAssertEqual(try library.db.scalarInt("""
            SELECT count(*) FROM vector_blocks WHERE bits IS NOT vec_block_bits(vectors, dim)
               OR vectors_i8 IS NOT NULL OR scales IS NOT NULL
            """), 0)
        try library.setQuantize("off")
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM vector_blocks WHERE vectors_i8 IS NOT NULL"), 0)
    }
}

extension LibraryTests {
    func testAWriterWithALeftoverReadStillWrites() throws {
        // Regression: a scalar query returning NULL left its statement active,
        // pinning an old snapshot; BEGIN IMMEDIATE then failed forever once another process wrote.
        let a = try Library.open(path: dbPath), b = try Library.open(path: dbPath)
        XCTAssertNil(try a.db.scalarInt("SELECT max(seq) FROM chunks"))
        try store(Self.book(1), library: b)
        a.db.writeWaitLimit = 5
        try store(Self.book(2), library: a)
        XCTAssertEqual(try a.books().count, 2)
    }
}

extension LibraryTests {
    func testACutShortStreamIsRefused() throws {
        // An upstream stage killed mid-run ends the stream at a line boundary.
        let whole = Self.book(1, chunks: 12)
        try assertNothingStored(Array(whole.dropLast(3)), contains: "incomplete")
        // A page missing.
        try assertNothingStored(whole.enumerated().filter { $0.offset != 3 }.map(\.element), contains: "pages arrived")
        // A chunk missing in the middle.
        try assertNothingStored(whole.enumerated().filter { $0.offset != whole.count - 5 }.map(\.element), contains: "missing")
        // Pages with text but no chunks at all.
        try assertNothingStored(whole.filter { if case .chunk = $0 { return false }; return true }, contains: "no chunks")
        // Only the book record.
        try assertNothingStored([whole[0]], contains: "only its book record")
        // The whole stream is fine, also without page records (nothing to check against).
        try store(whole)
        try store(Self.book(2).filter { if case .page = $0 { return false }; return true })
        XCTAssertEqual(try Library.open(path: dbPath).books().count, 2)
    }
}
