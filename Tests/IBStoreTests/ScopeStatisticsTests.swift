import XCTest
import IBCore
@testable import IBStore

/// ScopeStatistics and ib_concepts' row count, on LibraryTests' books: ten
/// chunks each, chunk i of book b reading "chunk i of b: plain words".
extension LibraryTests {
    func testATermIsCountedInTheScopesBooksOnly() throws {
        let first = Self.book(1), second = Self.book(2)
        try store(first + second)
        let library = try Library.open(path: dbPath)
        // The whole library has no statistics of its own: the table's are its.
        XCTAssertNil(try library.scopeStatistics(nil))
        XCTAssertNil(try library.scopeStatistics(SearchScope([.init(id: bookID(first), lastPage: nil), .init(id: bookID(second), lastPage: nil)])))
        // A reading position does not change a book's statistics.
        let one = try XCTUnwrap(try library.scopeStatistics(SearchScope([.init(id: bookID(first), lastPage: 2)])))
        XCTAssertEqual(one.rows, 10)
        // "1" is in every chunk of book 1 ("of 1") and in chunk 1 of book 2.
        XCTAssertEqual(try library.documentFrequencies(phrases: ["\"1\"", "\"plain\"", "\"4\"", "\"absent\""], in: one), [10, 10, 1, 0])
        let two = try XCTUnwrap(try library.scopeStatistics(SearchScope([.init(id: bookID(second), lastPage: nil)])))
        XCTAssertEqual(try library.documentFrequencies(phrases: ["\"1\""], in: two), [1])
    }

    func testTheIDFCountsAgainstTheScopesRows() throws {
        let first = Self.book(1), second = Self.book(2)
        try store(first + second)
        let library = try Library.open(path: dbPath)
        let scope = SearchScope([.init(id: bookID(first), lastPage: nil)])
        // "4" in one chunk of book 1's ten, against one in the library's twenty.
        let own = try library.fullTextCandidates(match: "\"4\"", concepts: "0:1:1", rows: 10, in: scope, limit: 5)
        let table = try library.fullTextCandidates(match: "\"4\"", concepts: "0:1:1", in: scope, limit: 5)
        XCTAssertEqual(own.map(\.index), [4])
        XCTAssertEqual(table.map(\.index), [4])
        let ratio = try XCTUnwrap(own.first?.score) / XCTUnwrap(table.first?.score)
        XCTAssertEqual(ratio, log(9.5 / 1.5) / log(19.5 / 1.5), accuracy: 1e-9)
    }
}
