// The typed queries ib-capture and ib-embed use: reader records in a real
// library, and the embedding cache's file.
import XCTest
import Foundation
import IBCore
@testable import IBStore

/// In LibraryTests' temporary directory.
extension LibraryTests {
    var now: String { "2026-11-22T10:00:00Z" }

    func testBooksAuthorsAndTheReadingPosition() throws {
        let records = ReaderRecords(try Library.open(path: directory + "/library.db"))
        XCTAssertNil(try records.onlyBookID())
        try records.addPhysicalBook(id: "aaaa000000000000", title: "Meditations", author: "Marcus Aurelius", source: "capture:Meditations", pageCount: 254, now: now)
        XCTAssertEqual(try records.onlyBookID(), "aaaa000000000000")
        try records.addPhysicalBook(id: "bbbb000000000000", title: "Letters", author: nil, source: "capture:Letters", pageCount: nil, now: now)
        XCTAssertNil(try records.onlyBookID(), "two books: neither is the only one")
        XCTAssertEqual(try records.book(id: "aaaa000000000000"),
                       BookSummary(id: "aaaa000000000000", title: "Meditations", authors: ["Marcus Aurelius"], currentPage: 0, pageCount: 254))
        XCTAssertNil(try records.book(id: "nope"))
        XCTAssertEqual(try records.titleEntries().sorted { $0.id < $1.id },
                       [TitleMatcher.Entry(id: "aaaa000000000000", title: "Meditations", authors: ["Marcus Aurelius"]),
                        TitleMatcher.Entry(id: "bbbb000000000000", title: "Letters", authors: [])])
        try records.setPageCount(bookID: "bbbb000000000000", 90)
        try records.setPosition(bookID: "bbbb000000000000", 12, now: now)
        XCTAssertEqual(try records.book(id: "bbbb000000000000")?.pageCount, 90)
        XCTAssertEqual(try records.book(id: "bbbb000000000000")?.currentPage, 12)
    }

    func testReadingStateKeepsTheFirstStartAndTheLatestActivity() throws {
        let records = ReaderRecords(try Library.open(path: directory + "/library.db"))
        try records.addPhysicalBook(id: "aaaa000000000000", title: "Meditations", author: nil, source: "s", pageCount: nil, now: now)
        XCTAssertNil(try records.readingState(of: "aaaa000000000000"))
        try records.setReadingState(bookID: "aaaa000000000000", "reading", startedAt: "2026-11-01", finishedAt: nil, activeAt: "2026-11-01")
        try records.setReadingState(bookID: "aaaa000000000000", "reading", startedAt: "2026-11-05", finishedAt: nil, activeAt: "2026-11-05")
        XCTAssertEqual(try records.readingState(of: "aaaa000000000000"), "reading")
        XCTAssertEqual(try records.latestReadingBookID(), "aaaa000000000000")
        try records.setReadingState(bookID: "aaaa000000000000", "finished", startedAt: nil, finishedAt: "2026-11-09", activeAt: "2026-11-09")
        XCTAssertNil(try records.latestReadingBookID(), "a finished book is not being read")
        let row = try XCTUnwrap(try records.db.query("SELECT started_at, finished_at, active_at FROM reading_state").first)
        XCTAssertEqual([row.text("started_at"), row.text("finished_at"), row.text("active_at")], ["2026-11-01", "2026-11-09", "2026-11-09"])
    }

    func testCapturesReadBackForStatusAndExport() throws {
        let records = ReaderRecords(try Library.open(path: directory + "/library.db"))
        try records.addPhysicalBook(id: "aaaa000000000000", title: "Meditations", author: nil, source: "s", pageCount: nil, now: now)
        let first = try records.addQuote(bookID: "aaaa000000000000", text: "The view from above.", page: 40, tags: ["stoic"], now: now)
        _ = try records.addQuote(bookID: "aaaa000000000000", text: "Unpaged.", page: nil, tags: [], now: now)
        try records.setQuoteNote(id: first, "mine")
        XCTAssertTrue(try records.quoteExists(bookID: "aaaa000000000000", text: "Unpaged.", page: nil))
        XCTAssertFalse(try records.quoteExists(bookID: "aaaa000000000000", text: "Unpaged.", page: 3))
        XCTAssertEqual(try records.quoteCount(), 2)
        XCTAssertEqual(try records.quote(atOffset: 0)?.bookTitle, "Meditations")
        XCTAssertEqual(try records.quote(atOffset: 1)?.text, "Unpaged.")
        XCTAssertNil(try records.quote(atOffset: 2))
        XCTAssertEqual(try records.allQuotes().map(\.text), ["The view from above.", "Unpaged."], "paged first")
        XCTAssertEqual(try records.allQuotes().first?.note, "mine")
        XCTAssertEqual(try records.allQuotes().first?.tags, ["stoic"])

        XCTAssertNil(try records.latestNote())
        _ = try records.addNote(bookID: "aaaa000000000000", text: "Why?", page: 3, chapter: "2", kind: "question", tags: [], now: now)
        XCTAssertTrue(try records.noteExists(bookID: "aaaa000000000000", text: "Why?", page: 3))
        XCTAssertEqual(try records.latestNote()?.kind, "question")
        XCTAssertEqual(try records.allNotes().first?.chapter, "2")

        _ = try records.addProgress(bookID: "aaaa000000000000", page: 10, pagesRead: 10, kind: "page", now: now)
        _ = try records.addProgress(bookID: "aaaa000000000000", page: 10, pagesRead: 0, kind: "started", now: now)
        XCTAssertEqual(try records.pagesRead(since: "2026-11-01T00:00:00Z").map(\.pages), [10], "events that read nothing are left out")
        XCTAssertEqual(try records.pagesRead(since: "2026-12-01T00:00:00Z").count, 0)
        XCTAssertEqual(try records.latestProgressBookID(), "aaaa000000000000")

        _ = try records.addPlan(title: "finish", due: "2026-12-31", bookIDs: ["aaaa000000000000"], startDate: "2026-11-22",
                                pagesAtStart: 244, dailyPages: 7, now: now)
        XCTAssertEqual(try records.activePlans(),
                       [StoredPlan(id: 1, title: "finish", targetDate: "2026-12-31", bookIDs: ["aaaa000000000000"], dailyPages: 7)])
    }

    func testEmbeddingCacheFileRoundTripsVectorsAndWindows() throws {
        let path = directory + "/embeddings.db"
        let file = try EmbeddingCacheFile(path: path)
        let key: [UInt8] = Array(repeating: 7, count: 32)
        try file.store(model: "m", vectors: [(key, [1, -2.5, .pi])])
        try file.store(model: "m+w", windowed: [(key, [0.5, 0.25], [1, -1, 127, -128])])
        XCTAssertEqual(try file.vectors(model: "m", digests: [key, [1]]), [[1, -2.5, .pi], nil])
        let windowed = try file.windowedVectors(model: "m+w", digests: [key])
        XCTAssertEqual(windowed[0]?.vector, [0.5, 0.25])
        XCTAssertEqual(windowed[0]?.windows, [1, -1, 127, -128])
        XCTAssertEqual(try file.vectors(model: "m+w", digests: [key]), [nil], "a windowed blob is not a plain vector")
        XCTAssertEqual(file.count(), 2)
        XCTAssertEqual(file.count(model: "m"), 1)
        file.close()
        XCTAssertEqual(try file.vectors(model: "m", digests: [key]), [nil], "closed: nothing found")
        XCTAssertEqual(file.count(), 0)
    }

    func testEmbeddingCacheFileErrorsNameTheCache() {
        XCTAssertThrowsError(try EmbeddingCacheFile(path: directory + "/missing/folder/embeddings.db")) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot open the embedding cache "), "\(error)")
        }
        let notSQLite = directory + "/text.db"
        XCTAssertTrue(FileManager.default.createFile(atPath: notSQLite, contents: Data(repeating: 65, count: 4096)))
        XCTAssertThrowsError(try EmbeddingCacheFile(path: notSQLite)) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot use the embedding cache \(notSQLite): "), "\(error)")
        }
    }
}
