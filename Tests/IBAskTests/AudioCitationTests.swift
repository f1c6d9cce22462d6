// An audio book's passages are cited by time, "(1:02:30)", and such a citation
// is checked against the pages heard: an exact page start, a time inside a
// page, a range; a time past the pages retrieved is unsupported.
import XCTest
@testable import IBAsk

final class AudioCitationTests: XCTestCase {
    var book: BookContext {
        var b = BookContext(id: "b", title: "Persuasion", labels: [1: "0:00", 2: "1:01", 3: "2:03", 4: "1:02:30"])
        b.isAudio = true
        return b
    }

    func testAudioPassagesAreCitedByTime() {
        XCTAssertEqual(book.citation(4, 4), "1:02:30")
        XCTAssertEqual(book.citation(2, 3), "1:01-2:03")
        XCTAssertEqual(Prompts.formatPassages([Passage(bookID: "b", chunkIndex: 0, startPage: 4, endPage: 4, text: "x")], book: book),
                       "[1] (1:02:30)\nx")
    }

    func testTimeCitationsAreChecked() {
        let answer = "She waits (1:02:30). He leaves (1:30). They meet (1:01-2:03). Later (3:00:00). Still (p. 7)."
        let found = Citations.check(answer, book: book, retrieved: [2, 3, 4])
        XCTAssertEqual(found.map(\.text), ["(1:02:30)", "(1:30)", "(1:01-2:03)", "(3:00:00)", "(p. 7)"])
        XCTAssertEqual(found.map(\.pages), [[4], [2], [2, 3], [4], [7]])
        XCTAssertEqual(found.map(\.supported), [true, true, true, true, false])
        XCTAssertFalse(Citations.check("Early (0:30).", book: book, retrieved: [2]).first!.supported)
        // A plain book does not read times as citations.
        XCTAssertTrue(Citations.check("At (1:30) it rains.", book: BookContext(id: "b", title: "T"), retrieved: [1]).isEmpty)
    }
}
