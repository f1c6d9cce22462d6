// The reader's own words outlive the book's text: --replace, a new version,
// delete (detached, with the title) and migration 0140 keep every row; only
// --purge removes them. And text after a NUL is stored whole.
import XCTest
import IBCore
@testable import IBStore

extension LibraryTests {
    /// A quote, a note, a progress event, a reading state and a conversation for `bookID`.
    func addReaderWords(_ library: Library, bookID: String) throws {
        let records = ReaderRecords(library)
        let now = "2026-11-22T10:00:00Z"
        _ = try records.addQuote(bookID: bookID, text: "keep me", page: 2, tags: ["t"], now: now)
        _ = try records.addNote(bookID: bookID, text: "my thought", page: 3, chapter: nil, kind: "note", tags: [], now: now)
        try records.addProgress(bookID: bookID, page: 4, pagesRead: 4, kind: "page", now: now)
        try records.setReadingState(bookID: bookID, "reading", startedAt: now, finishedAt: nil, activeAt: now)
        try ConversationTables(library.db).append([ChatMessageRow(id: "m-" + bookID, role: "user", content: "why?")],
                                                  conversationID: "c-" + bookID, bookID: bookID, newTitle: "talk", createdAt: now)
    }

    func readerCounts(_ library: Library, where condition: String = "1") throws -> [Int] {
        try ["quotes", "notes", "progress_events", "reading_state", "conversations", "chat_messages"].map {
            try library.db.scalarInt("SELECT count(*) FROM \($0) WHERE \($0 == "chat_messages" ? "1" : condition)") ?? -1
        }
    }

    func testReplaceKeepsTheReadersWordsAndUpdatesTheBookInPlace() throws {
        let a = Self.book(1)
        try store(a)
        let library = try Library.open(path: dbPath)
        try addReaderWords(library, bookID: bookID(a))
        let before = try readerCounts(library, where: "book_id = '\(bookID(a))'")
        XCTAssertEqual(before, [1, 1, 1, 1, 1, 1])
        // The same id with another title and fewer chunks: stored again under the same row.
        var again = Self.book(1, chunks: 6)
        if case .book(var b) = again[0] { b.title = "Book Number 1, revised"; b.authors = ["Cy"]; again[0] = .book(b) }
        XCTAssertEqual(try store(again, replace: true).stored, [bookID(a)])
        XCTAssertEqual(try readerCounts(library, where: "book_id = '\(bookID(a))'"), before)
        XCTAssertEqual(try library.book(id: bookID(a))?.title, "Book Number 1, revised")
        XCTAssertEqual(try library.book(id: bookID(a))?.authors, ["Cy"])
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks"), 6)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM authors"), 1, "the old authors went with the old text")
        // A plain re-ingest of the same book changes nothing.
        try store(again)
        XCTAssertEqual(try readerCounts(library, where: "book_id = '\(bookID(a))'"), before)
    }

    func testDeleteKeepsTheReadersWordsDetachedWithTheTitle() throws {
        let a = Self.book(1), b = Self.book(2)
        try store(a + b)
        let library = try Library.open(path: dbPath)
        try addReaderWords(library, bookID: bookID(a))
        try library.db.run("INSERT INTO reading_plans (title, book_ids, created_at) VALUES ('plan', json_array(?, ?), 'x')", bookID(a), bookID(b))
        let counts = try library.delete(bookID: bookID(a))
        XCTAssertEqual(counts, ReaderWordCounts(quotes: 1, notes: 1, progressEvents: 1, readingStates: 1, conversations: 1))
        XCTAssertNil(try library.book(id: bookID(a)))
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks WHERE book_id = ?", bookID(a)), 0)
        XCTAssertEqual(try readerCounts(library, where: "book_id IS NULL AND book_title = 'Book Number 1' AND book_author = 'Ann Author, Bo 1'"),
                       [1, 1, 1, 1, 1, 1])
        XCTAssertEqual(try library.db.scalarText("SELECT book_ids FROM reading_plans"), "[\"\(bookID(b))\"]")
        // Still listed, searched and exported.
        let records = ReaderRecords(library)
        XCTAssertEqual(try records.allQuotes().map(\.bookTitle), ["Book Number 1"])
        XCTAssertEqual(try records.quote(atOffset: 0)?.bookTitle, "Book Number 1")
        XCTAssertEqual(try records.latestNote()?.text, "my thought")
        XCTAssertEqual(try library.quotesToSearch().map(\.keptBookTitle), ["Book Number 1"])
        XCTAssertEqual(try library.notesToSearch().count, 1)
        XCTAssertNil(try records.latestReadingBookID(), "a deleted book is not the current one")
        XCTAssertNil(try records.latestProgressBookID())
        // The store works on: a new quote for the other book; the same book stored again.
        try addReaderWords(library, bookID: bookID(b))
        try store(a)
        XCTAssertEqual(try readerCounts(library, where: "book_id IS NULL"), [1, 1, 1, 1, 1, 2])
    }

    func testPurgeRemovesTheReadersWordsAndCountsThem() throws {
        let a = Self.book(1), b = Self.book(2)
        try store(a + b)
        let library = try Library.open(path: dbPath)
        try addReaderWords(library, bookID: bookID(a))
        _ = try ReaderRecords(library).addQuote(bookID: bookID(a), text: "second", page: nil, tags: [], now: "x")
        _ = try ReaderRecords(library).addQuote(bookID: bookID(b), text: "other book", page: nil, tags: [], now: "x")
        let counts = try library.delete(bookID: bookID(a), purge: true)
        XCTAssertEqual(counts.description, "2 quotes, 1 note, 1 progress event, 1 reading state, 1 conversation")
        XCTAssertEqual(try readerCounts(library), [1, 0, 0, 0, 0, 0])
        XCTAssertEqual(try library.db.scalarText("SELECT text FROM quotes"), "other book")
    }

    func testMigration140KeepsEveryRowAndIndex() throws {
        // A library as the build before 0140 left it, with the reader's words in it.
        do {
            let db = try Database(path: dbPath)
            try db.write {
                try db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT (datetime('now')))")
                for m in EmbeddedMigrations.all where m.version < 140 {
                    try db.execute(m.sql)
                    try db.run("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", m.version, m.name)
                }
                try db.execute("""
                    INSERT INTO books (id, title, status) VALUES ('b1', 'Moby Dick', 'ready');
                    INSERT INTO quotes (id, book_id, text, page, page_label, note, tags, created_at) VALUES (7, 'b1', 'Call me', 1, 'i', 'n', '["a"]', 't1');
                    INSERT INTO notes (id, book_id, text, kind, created_at) VALUES (3, 'b1', 'whale?', 'question', 't2');
                    INSERT INTO progress_events (id, book_id, page, pages_read, kind, created_at) VALUES (5, 'b1', 10, 10, 'page', 't3');
                    INSERT INTO reading_state (book_id, state, started_at, active_at) VALUES ('b1', 'reading', 's', 't4');
                    INSERT INTO conversations (id, book_id, title, created_at) VALUES ('c1', 'b1', 'talk', 't5');
                    INSERT INTO chat_messages (id, conversation_id, role, content, created_at) VALUES ('m1', 'c1', 'user', 'hi', 't6');
                    """)
            }
        }
        let library = try Library.open(path: dbPath)
        XCTAssertEqual(try library.db.scalarInt("SELECT max(version) FROM schema_migrations"), Migrations.latestVersion)
        let dump = """
            SELECT (SELECT group_concat(id || book_id || text || page || page_label || note || tags || created_at) FROM quotes)
                || (SELECT group_concat(id || book_id || text || kind || created_at) FROM notes)
                || (SELECT group_concat(id || book_id || page || pages_read || kind || created_at) FROM progress_events)
                || (SELECT group_concat(book_id || state || started_at || active_at) FROM reading_state)
                || (SELECT group_concat(id || book_id || title || created_at) FROM conversations)
                || (SELECT group_concat(id || conversation_id || role || content || created_at) FROM chat_messages)
            """
        XCTAssertEqual(try library.db.scalarText(dump), #"7b1Call me1in["a"]t1"# + "3b1whale?questiont2" + "5b11010paget3" + "b1readingst4" + "c1b1talkt5" + "m1c1userhit6")
        let indexes = Set(try library.db.query("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'idx_%'").compactMap { $0.text("name") })
        for name in ["idx_quotes_book", "idx_notes_book", "idx_progress_events_book", "idx_progress_events_created",
                     "idx_reading_state_active", "idx_conversations_book_id", "idx_chat_messages_conversation_id"] {
            XCTAssertTrue(indexes.contains(name), name)
        }
        XCTAssertEqual(try library.db.query("PRAGMA foreign_key_check").count, 0)
        try library.delete(bookID: "b1")
        XCTAssertEqual(try readerCounts(library, where: "book_id IS NULL AND book_title = 'Moby Dick'"), [1, 1, 1, 1, 1, 1])
    }

    func testTextAfterANULIsStoredAndReadBackWhole() throws {
        let id = "0123456789abcdef"
        let pageText = "before\u{0}after the nul"
        let records: [Record] = [
            .book(BookRecord(id: id, title: "Nul", authors: [], language: nil, format: "txt", source: "", sha256: "", pageCount: 1)),
            .page(PageRecord(bookID: id, page: 1, text: pageText)),
            .chunk(ChunkRecord(bookID: id, index: 0, startPage: 1, endPage: 1, startOffset: 0,
                               endOffset: pageText.unicodeScalars.count, tokenCount: 4, text: pageText)),
        ]
        try store(records)
        let library = try Library.open(path: dbPath)
        XCTAssertEqual(try library.page(bookID: id, page: 1)?.text, pageText)
        XCTAssertEqual(try library.chunks(bookID: id).first?.text, pageText)
        XCTAssertEqual(try library.db.scalarInt("SELECT length(CAST(text AS BLOB)) FROM pages"), pageText.utf8.count)
        XCTAssertEqual(try library.db.scalarText("SELECT ?", "a\u{0}b"), "a\u{0}b")
        XCTAssertEqual(try library.db.scalarText("SELECT ?", ""), "", "the empty text is text, not NULL")
        _ = try ReaderRecords(library).addQuote(bookID: id, text: "A\u{0}hidden tail", page: nil, tags: [], now: "x")
        XCTAssertEqual(try ReaderRecords(library).allQuotes().first?.text, "A\u{0}hidden tail")
    }
}
