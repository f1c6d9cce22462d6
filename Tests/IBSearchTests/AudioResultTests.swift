// A passage of an audio book is shown by its times: JSON results carry
// start_time, end_time and time_label, the terminal listing shows the times
// where a page would be; other books are unchanged.
import XCTest
import IBCore
import IBStore
@testable import IBSearch

final class AudioResultTests: XCTestCase {
    func result(start: Double?, end: Double?) -> SearchResult {
        SearchResult(rank: 1, score: 0.5, bookID: "b", title: "Persuasion", authors: [], chunkIndex: 3, startPage: 63, endPage: 64,
                     startLabel: "1:02:10", endLabel: "1:03:12", chunkRef: ChunkRef(seq: 4), text: "t", snippet: "the «letter»",
                     startTime: start, endTime: end)
    }

    func testAudioResultsCarryTimes() {
        let json = Render.json(result(start: 3750.4, end: 3801), explain: false).objectValue!
        XCTAssertEqual(json["start_time"]?.doubleValue, 3750.4)
        XCTAssertEqual(json["end_time"]?.doubleValue, 3801)
        XCTAssertEqual(json["time_label"]?.stringValue, "1:02:30")
        let line = Render.terminal(result(start: 3750.4, end: 3801), explain: false, bold: false)
        XCTAssertTrue(line.hasPrefix("1. Persuasion — 1:02:30–1:03:21\n"), line)
    }

    func testOtherBooksHaveNoTimes() {
        let json = Render.json(result(start: nil, end: nil), explain: false).objectValue!
        XCTAssertNil(json["start_time"])
        XCTAssertNil(json["time_label"])
        XCTAssertTrue(Render.terminal(result(start: nil, end: nil), explain: false, bold: false).hasPrefix("1. Persuasion — pp. 1:02:10–1:03:12"))
    }
}
