import XCTest
import IBCore
@testable import IBStore

/// The typed queries ib-search and ib-ask read the library with (ChunkQueries,
/// FullTextQueries, BookQueries, Conversations), on LibraryTests' books: ten
/// chunks over five pages, chunk i ending on page 1, 2, 2, 3, 3, 4, ...
extension LibraryTests {
    func testAScopeHidesEveryChunkEndingPastItsPage() throws {
        let first = Self.book(1), second = Self.book(2)
        try store(first + second)
        let library = try Library.open(path: dbPath)
        let id = bookID(first)
        let toPage2 = SearchScope([.init(id: id, lastPage: 2)])
        XCTAssertEqual(try library.chunkCount(in: nil, cap: 100), 20)
        XCTAssertEqual(try library.chunkCount(in: toPage2, cap: 100), 3)
        XCTAssertEqual(try library.chunkCount(in: toPage2, cap: 2), 2)
        XCTAssertEqual(try library.chunkCount(in: SearchScope([.init(id: id, lastPage: nil)]), cap: 100), 10)

        let words = try library.fullTextCandidates(match: "chunk", concepts: nil, in: toPage2, limit: 10)
        XCTAssertEqual(words.map(\.index).sorted(), [0, 1, 2])
        XCTAssertTrue(words.allSatisfy { $0.bookID == id })
        XCTAssertEqual(try library.fullTextCandidates(match: "chunk", concepts: nil, in: nil, limit: 7).count, 7)

        guard case .chunk(let own) = first[first.count - 9], let vector = own.embedding else { return XCTFail("chunk 1") }
        let near = try library.nearestChunks(to: vector, k: 3, in: toPage2)
        XCTAssertEqual(near.first?.index, 1)
        XCTAssertTrue(near.allSatisfy { $0.bookID == id && $0.index <= 2 })
    }

    func testDocumentFrequenciesFollowTheLibraryAsItChanges() throws {
        let first = Self.book(1), second = Self.book(2, text: "other words")
        try store(first)
        let library = try Library.open(path: dbPath)
        XCTAssertEqual(try library.documentFrequencies([("plain", false), ("word", true), ("other", false)]), [10, 10, 0])
        XCTAssertEqual(try library.documentFrequencies([("plain", false)]), [10], "asked again: the same count")
        // Another connection adds a book: the counts this one kept are read again.
        _ = try store(second)
        XCTAssertEqual(try library.documentFrequencies([("plain", false), ("word", true), ("other", false)]), [10, 20, 10])
        // This connection deletes one: so are they.
        _ = try library.delete(bookID: bookID(first))
        XCTAssertEqual(try library.documentFrequencies([("plain", false), ("word", true), ("other", false)]), [0, 10, 10])
    }

    /// The N of BM25's rarity is the number of chunks, after books come and go
    /// (the highest seq, used before, stayed at 20 here while 10 were left).
    func testChunkTotalCountsChunksAfterAReplaceAndADelete() throws {
        let first = Self.book(1), second = Self.book(2, text: "other words")
        try store(first)
        let library = try Library.open(path: dbPath)
        XCTAssertEqual(try library.chunkTotal(), 10)
        _ = try store(second)
        XCTAssertEqual(try library.chunkTotal(), 20, "another connection's book is counted")
        _ = try store(Self.book(1, chunks: 6), replace: true)
        XCTAssertEqual(try library.chunkTotal(), 16)
        _ = try library.delete(bookID: bookID(second))
        XCTAssertEqual(try library.chunkTotal(), 6)
        XCTAssertGreaterThan(try library.db.scalarInt("SELECT max(seq) FROM chunks") ?? 0, 6)
    }

    func testAChunkRefNamesOneChunk() throws {
        let records = Self.book(1)
        try store(records)
        let library = try Library.open(path: dbPath)
        let id = bookID(records)
        let ref = try XCTUnwrap(try library.chunkRef(bookID: id, index: 4))
        XCTAssertEqual(try library.chunk(ref)?.text, "chunk 4 of 1: plain words")
        let located = try library.locations(of: [ref, ChunkRef(seq: -1)])
        XCTAssertEqual(located.count, 1)
        XCTAssertEqual(located[ref]?.bookID, id)
        XCTAssertEqual(located[ref]?.index, 4)
        XCTAssertNil(try library.chunkRef(bookID: id, index: 99))
    }

    func testBooksPagesAndConversations() throws {
        let records = Self.book(1)
        try store(records)
        let library = try Library.open(path: dbPath)
        let id = bookID(records)
        try library.setPage(bookID: id, page: 3)
        let books = try library.bookSummaries(readyOnly: true)
        XCTAssertEqual(books, [BookSummary(id: id, title: "Book Number 1", authors: ["Ann Author", "Bo 1"], currentPage: 3, pageCount: 5)])
        XCTAssertEqual(try library.bookCount(), 1)
        XCTAssertEqual(try library.readingPosition(bookID: id)?.currentPage, 3)
        XCTAssertEqual(try library.pageLabels(bookID: id)[1], "i")
        XCTAssertEqual(try library.pageText(bookID: id, page: 2), "page 2 plain words")
        XCTAssertNil(try library.lastLoggedPage(bookID: id))

        let tables = ConversationTables(library.db)
        try tables.append([ChatMessageRow(id: "m1", role: "user", content: "Who?"), ChatMessageRow(id: "m2", role: "assistant", content: "Her.")],
                          conversationID: "c1", bookID: id, newTitle: "Who?", createdAt: "2026-01-01T00:00:00Z")
        try tables.append([ChatMessageRow(id: "m3", role: "user", content: "Why?")],
                          conversationID: "c1", bookID: id, newTitle: nil, createdAt: "2026-01-01T00:00:01Z")
        let listed = try tables.list(bookID: id, limit: 10)
        XCTAssertEqual(listed.map(\.messageCount), [3])
        XCTAssertEqual(listed.first?.bookTitle, "Book Number 1")
        XCTAssertEqual(try tables.messages(of: "c1").map(\.content), ["Who?", "Her.", "Why?"])
        XCTAssertEqual(try tables.list(bookID: "other", limit: 10).count, 0)
    }
}
