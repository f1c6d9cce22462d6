import XCTest
@testable import IBSearch

/// The engine's memo of query vectors: a text asked again gets the vector it
/// was given, and only the last `capacity` texts are kept.
final class QueryVectorMemoTests: XCTestCase {
    func testKeepsTheLastTextsAndForgetsTheOldest() {
        var memo = QueryVectorMemo()
        XCTAssertNil(memo.vector("first"))
        memo.remember("first", [1, 0])
        memo.remember("first", [1, 0])   // already known: kept once, in its place
        for i in 1..<QueryVectorMemo.capacity { memo.remember("text \(i)", [Float(i)]) }
        XCTAssertEqual(memo.vector("first"), [1, 0], "still within capacity")
        memo.remember("one more", [7])
        XCTAssertNil(memo.vector("first"), "the oldest went")
        XCTAssertEqual(memo.vector("text 1"), [1])
        XCTAssertEqual(memo.vector("one more"), [7])
    }
}
