import XCTest
import IBCore
#if canImport(Glibc)
import Glibc
#endif
@testable import IBStore

/// The sections table and chunks.section_ord, from page records' structure marks.
final class SectionsTests: XCTestCase {
    var directory = ""
    override func setUp() {
        var template = Array("/tmp/ibstore-sections-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }
    override func tearDown() { _ = system("rm -rf '\(directory)'") }
    var dbPath: String { directory + "/library.db" }

    func store(_ records: [Record]) throws {
        let indexer = Indexer(library: try Library.open(path: dbPath))
        for record in records { _ = try indexer.add(record) }
        try indexer.finish()
    }

    func bookID(_ records: [Record]) -> String {
        if case .book(let b) = records[0] { return b.id }
        fatalError()
    }

    /// Book 1 of LibraryTests.book with marks: chapter "I" on page 1, a dated entry inside it
    /// at page 2 offset 3, chapter "II" on page 4.
    func withStructure(_ records: [Record]) -> [Record] {
        records.map { record in
            guard case .page(var page) = record else { return record }
            var marks: [StructureMark] = []
            if page.page == 1 { marks = [StructureMark(at: 0, depth: 0, kind: "chapter", number: 1, title: "I", voice: "Jonathan Harker")] }
            if page.page == 2 { marks = [StructureMark(at: 3, depth: 1, kind: "entry", title: "3 May. Bistritz.", date: "--05-03", place: "Bistritz")] }
            if page.page == 4 { marks = [StructureMark(at: 0, depth: 0, kind: "chapter", number: 2, title: "II")] }
            if !marks.isEmpty { page.extra["structure"] = .array(marks.map(\.json)) }
            return .page(page)
        }
    }

    func check(_ library: Library, _ id: String) throws {
        let sections = try library.sections(bookID: id)
        XCTAssertEqual(sections.map(\.path), [["I"], ["I", "3 May. Bistritz."], ["II"]])
        XCTAssertEqual(sections.map(\.parent), [nil, 0, nil])
        XCTAssertEqual(sections[1].dateFrom, "--05-03")
        XCTAssertEqual(sections[1].voice, "Jonathan Harker")  // the chapter's voice, inherited
        XCTAssertEqual(sections[1].place, "Bistritz")
        // Chunks i start on page i/2+1 at offset 0, odd ones running to the next page's end: 0,1 in I;
        // 2 (page 2, before offset 3) in I; 3 opens with chunk 2's page, its own text is page 3's, in
        // the entry, as is 4 (page 3); 5 opens with chunk 4's page 3, its own text is page 4's, in II; 6-9 in II.
        XCTAssertEqual(sections.map(\.firstChunk), [0, 3, 5])
        XCTAssertEqual(sections.map(\.lastChunk), [4, 4, 9])
        let refs = try library.db.query("SELECT seq, chunk_index FROM chunks WHERE book_id = ? ORDER BY chunk_index", id)
            .map { (ChunkRef(seq: $0.int("seq")!), $0.int("chunk_index")!) }
        let ords = try library.sectionOrds(forChunks: refs.map(\.0))
        XCTAssertEqual(refs.map { ords[$0.0] }, [0, 0, 0, 1, 1, 2, 2, 2, 2, 2])
    }

    func testIndexingFillsSectionsAndChunkSections() throws {
        let records = withStructure(LibraryTests.book(1))
        try store(records)
        try check(try Library.open(path: dbPath), bookID(records))
    }

    func testRestructureAddsThemWithoutTouchingVectors() throws {
        let plain = LibraryTests.book(1)
        try store(plain)
        let library = try Library.open(path: dbPath)
        let id = bookID(plain)
        XCTAssertEqual(try library.sections(bookID: id), [])
        let vectorsBefore = try library.db.scalarInt("SELECT count(*) FROM vector_blocks")
        let pages = withStructure(plain).compactMap { record -> PageRecord? in if case .page(let p) = record { return p }; return nil }
        XCTAssertEqual(try library.restructure(bookID: id, pages: pages), 3)
        try check(library, id)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM vector_blocks"), vectorsBefore)
        // A page count that does not match changes nothing.
        XCTAssertThrowsError(try library.restructure(bookID: id, pages: Array(pages.dropLast())))
        XCTAssertEqual(try library.sections(bookID: id).count, 3)
    }

    /// Two short entries on page 3, where chunk 4 starts and whose end chunk 5's own text
    /// (page 4, chapter II) follows: no chunk starts in them, and each holds chunk 4, the
    /// one its start lies in (as the migrations 0200 and 0230 fill in for a library
    /// indexed before).
    func testAUnitNoChunkStartsInHoldsTheChunkItLiesIn() throws {
        let records = withStructure(LibraryTests.book(1)).map { record -> Record in
            guard case .page(var page) = record, page.page == 3 else { return record }
            let marks = [StructureMark(at: 5, depth: 1, kind: "entry", title: "4 May.", date: "--05-04"),
                         StructureMark(at: 9, depth: 1, kind: "entry", title: "5 May.", date: "--05-05")]
            page.extra["structure"] = .array(marks.map(\.json))
            return .page(page)
        }
        try store(records)
        let library = try Library.open(path: dbPath)
        let id = bookID(records)
        var sections = try library.sections(bookID: id)
        XCTAssertEqual(sections.map(\.title), ["I", "3 May. Bistritz.", "4 May.", "5 May.", "II"])
        XCTAssertEqual(sections.map(\.firstChunk), [0, 3, 4, 4, 5])
        XCTAssertEqual(sections.map(\.lastChunk), [4, 4, 4, 4, 9])
        // A library indexed before: the migrations give the same.
        _ = try library.db.run("UPDATE sections SET first_chunk = NULL, last_chunk = NULL WHERE ord IN (2, 3)")
        let migration = try XCTUnwrap(EmbeddedMigrations.all.first { $0.name == "0200_sections_chunkless.sql" })
        try library.db.execute(migration.sql)
        try Migrations.afterSQL(version: 230, library.db)
        sections = try library.sections(bookID: id)
        XCTAssertEqual(sections.map(\.firstChunk), [0, 3, 4, 4, 5])
        XCTAssertEqual(sections.map(\.lastChunk), [4, 4, 4, 4, 9])
    }

    /// An end mark closes a letter quoted in a chapter: the chunks after it are the
    /// chapter's again, and the letter's range stops at its last chunk.
    func testAnEndMarkHandsTheTextBackToTheChapter() throws {
        let records = LibraryTests.book(1).map { record -> Record in
            guard case .page(var page) = record else { return record }
            var marks: [StructureMark] = []
            if page.page == 1 { marks = [StructureMark(at: 0, depth: 0, kind: "chapter", number: 1, title: "I", voice: "Esther")] }
            if page.page == 2 { marks = [StructureMark(at: 0, depth: 1, kind: "letter", title: "Letter", date: "--05-09", voice: "Kenge")] }
            if page.page == 3 { marks = [.end(at: 0, depth: 1)] }
            if !marks.isEmpty { page.extra["structure"] = .array(marks.map(\.json)) }
            return .page(page)
        }
        try store(records)
        let library = try Library.open(path: dbPath)
        let id = bookID(records)
        let sections = try library.sections(bookID: id)
        XCTAssertEqual(sections.map(\.title), ["I", "Letter"])
        // Chunk 1's own text is page 2 (the letter's), chunk 3's the rest of page 2; page 3 on is the chapter's.
        XCTAssertEqual(sections.map(\.firstChunk), [0, 1])
        XCTAssertEqual(sections.map(\.lastChunk), [9, 3])
        let placed = try library.db.query("SELECT section_ord FROM chunks WHERE book_id = ? ORDER BY chunk_index", id).map { $0.int("section_ord") }
        XCTAssertEqual(placed, [0, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    }

    /// A chunk opens with the last lines of the one before (ib-chunk's overlap); its
    /// own text starts where that one ended, and a heading in the overlap or right at
    /// its end ("6 October, morning." after the lines that close 5 October) makes the
    /// chunk that heading's unit's. A heading further into the chunk's own text
    /// leaves it in the unit before. Migration 0230 places a library's chunks so.
    func testAChunkIsPlacedWhereItsOwnTextStarts() throws {
        // Page 1: "page 1 plain words"; chunk 0 is 0..<13, chunk 1 is 7..<18 (its own text: "words").
        for (heading, unitOfChunk1) in [(13, 1), (10, 1), (15, 0)] {
            tearDown(); setUp()
            let records = LibraryTests.book(1, chunks: 2).map { record -> Record in
                switch record {
                case .page(var page):
                    let marks = [StructureMark(at: 0, depth: 0, kind: "entry", title: "5 October.", date: "--10-05"),
                                 StructureMark(at: heading, depth: 0, kind: "entry", title: "6 October, morning.", date: "--10-06")]
                    page.extra["structure"] = .array(marks.map(\.json))
                    return .page(page)
                case .chunk(var chunk):
                    (chunk.startOffset, chunk.endOffset) = chunk.index == 0 ? (0, 13) : (7, 18)
                    return .chunk(chunk)
                default: return record
                }
            }
            try store(records)
            let library = try Library.open(path: dbPath)
            let id = bookID(records)
            func placed() throws -> [Int?] {
                try library.db.query("SELECT section_ord FROM chunks WHERE book_id = ? ORDER BY chunk_index", id).map { $0.int("section_ord") }
            }
            XCTAssertEqual(try placed(), [0, unitOfChunk1], "heading at \(heading)")
            // Either way "6 October" holds chunk 1: it starts there, or its heading lies in it.
            XCTAssertEqual(try library.sections(bookID: id).map(\.firstChunk), [0, 1], "heading at \(heading)")
            // A library placed by the chunks' starts: migration 0230 places it again.
            _ = try library.db.run("UPDATE chunks SET section_ord = 0 WHERE book_id = ?", id)
            let migration = try XCTUnwrap(EmbeddedMigrations.all.first { $0.name == "0230_sections_own_text.sql" })
            try library.db.execute(migration.sql)
            try Migrations.afterSQL(version: 230, library.db)
            XCTAssertEqual(try placed(), [0, unitOfChunk1], "migrated, heading at \(heading)")
        }
    }

    /// A short unit (a plain diary's day) whose opening lines end a chunk that
    /// started in the day before holds that chunk too, when most of it is the
    /// unit's, and so do the units around it; a unit starting in a chunk's last
    /// lines, or a long one, does not by itself.
    func testAShortUnitHoldsTheChunkItsOpeningLiesIn() throws {
        let sha = SHA256.hex("a diary in chunks of a hundred")
        let id = BookRecord.id(forSHA256: sha)
        let text = String(repeating: "word ", count: 160)   // 800 characters
        var page = PageRecord(bookID: id, page: 1, text: text)
        let marks = [StructureMark(at: 0, depth: 0, title: "MAY 1660", date: "1660-05"),
                     StructureMark(at: 20, depth: 1, kind: "entry", title: "May 1st", date: "--05-01"),
                     StructureMark(at: 170, depth: 1, kind: "entry", title: "May 2nd", date: "--05-02"),
                     StructureMark(at: 220, depth: 1, kind: "entry", title: "May 3rd", date: "--05-03"),
                     StructureMark(at: 405, depth: 0, title: "JUNE 1660", date: "1660-06"),
                     StructureMark(at: 410, depth: 1, kind: "entry", title: "June 1st", date: "--06-01"),
                     StructureMark(at: 520, depth: 1, kind: "entry", title: "June 2nd", date: "--06-02")]
        page.extra["structure"] = .array(marks.map(\.json))
        var records: [Record] = [.book(BookRecord(id: id, title: "Diary", authors: [], language: nil, format: "epub",
                                                  source: "/d", sha256: sha, pageCount: 1)), .page(page)]
        for i in 0..<8 {   // chunk i holds characters 100i..<100(i+1)
            records.append(.chunk(ChunkRecord(bookID: id, index: i, startPage: 1, endPage: 1, startOffset: i * 100,
                                              endOffset: (i + 1) * 100, tokenCount: 20, text: "chunk \(i)")))
        }
        try store(records)
        let sections = try Library.open(path: dbPath).sections(bookID: id)
        XCTAssertEqual(sections.map(\.title), ["MAY 1660", "May 1st", "May 2nd", "May 3rd", "JUNE 1660", "June 1st", "June 2nd"])
        // May 1st: 80 of chunk 0's 100 characters; May 2nd: chunk 1's last 30 (too few);
        // May 3rd (chunks 3 and 4 start in it): 80 of chunk 2's. JUNE 1660, where three
        // chunks start, is long, but holds chunk 4 through June 1st (90 of its 100).
        XCTAssertEqual(sections.map(\.firstChunk), [0, 0, 2, 2, 4, 4, 5])
        XCTAssertEqual(sections.map(\.lastChunk), [4, 1, 2, 4, 7, 5, 7])
    }

    /// Migration 0210: sections an earlier ib-parse made chapters by a number
    /// spelled out or a roman numeral before a word lose their kind and number;
    /// bare numerals keep theirs.
    func testSpelledNumbersAreNoChapterNumbers() throws {
        let titles = ["First Epilogue: 1813\u{2013}20", "XIV: The Masthead", "I Wandered Lonely as a Cloud", "III", "Twenty-One",
                      "12 Loomings", "IV. Sounds"]
        let numbers = [1, 14, 1, 3, 21, 12, 4]
        let records = LibraryTests.book(1).map { record -> Record in
            guard case .page(var page) = record, page.page == 1 else { return record }
            let marks = titles.indices.map { StructureMark(at: $0, depth: 0, kind: "chapter", number: numbers[$0], title: titles[$0]) }
            page.extra["structure"] = .array(marks.map(\.json))
            return .page(page)
        }
        try store(records)
        let library = try Library.open(path: dbPath)
        let migration = try XCTUnwrap(EmbeddedMigrations.all.first { $0.name == "0210_sections_spelled_numbers.sql" })
        try library.db.execute(migration.sql)
        let sections = try library.sections(bookID: bookID(records))
        XCTAssertEqual(sections.map(\.title), titles)
        XCTAssertEqual(sections.map(\.kind), [nil, "chapter", nil, "chapter", nil, "chapter", "chapter"])
        XCTAssertEqual(sections.map(\.number), [nil, 14, nil, 3, nil, 12, 4])
    }

    /// Migration 0220: a numbered poem an earlier ib-parse left without a kind
    /// ("Sonnet XVIII", "Psalm 23") becomes a chapter with its number, as ib-parse
    /// now reads it; a poem titled by words ("Song of Myself") stays as it was.
    func testNumberedPoemsBecomeChapters() throws {
        let titles = ["Sonnet XVIII", "Psalm 23", "Elegy IX. Of His Mistress", "Song of Myself", "Ode to a Nightingale", "IV. Sounds"]
        let kinds: [String?] = [nil, nil, nil, nil, nil, "chapter"]
        let numbers: [Int?] = [nil, nil, nil, nil, nil, 4]
        let records = LibraryTests.book(1).map { record -> Record in
            guard case .page(var page) = record, page.page == 1 else { return record }
            let marks = titles.indices.map { StructureMark(at: $0, depth: 0, kind: kinds[$0], number: numbers[$0], title: titles[$0]) }
            page.extra["structure"] = .array(marks.map(\.json))
            return .page(page)
        }
        try store(records)
        let library = try Library.open(path: dbPath)
        XCTAssertEqual(try library.sections(bookID: bookID(records)).map(\.kind), kinds, "stored as an earlier ib-parse read them")
        let migration = try XCTUnwrap(EmbeddedMigrations.all.first { $0.name == "0220_sections_numbered_poems.sql" })
        try library.db.execute(migration.sql)
        let sections = try library.sections(bookID: bookID(records))
        XCTAssertEqual(sections.map(\.title), titles)
        XCTAssertEqual(sections.map(\.kind), ["chapter", "chapter", "chapter", nil, nil, "chapter"])
        XCTAssertEqual(sections.map(\.number), [18, 23, 9, nil, nil, 4])
    }
}
