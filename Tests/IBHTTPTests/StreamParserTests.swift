import XCTest
@testable import IBHTTP

final class StreamParserTests: XCTestCase {
    /// Feeds `text` split at every possible point (two pieces) and byte by byte; all must agree.
    private func parseAllSplits(_ text: String) -> [SSEEvent] {
        let bytes = Array(text.utf8)
        var whole = SSEParser()
        let expected = whole.feed(bytes)
        for cut in 0...bytes.count {
            var p = SSEParser()
            let got = p.feed(bytes[0..<cut]) + p.feed(bytes[cut...])
            XCTAssertEqual(got, expected, "split at \(cut)")
        }
        var single = SSEParser()
        var got: [SSEEvent] = []
        for b in bytes { got += single.feed([b]) }
        XCTAssertEqual(got, expected, "byte by byte")
        return expected
    }

    func testFieldsMultilineDataCommentsAndDefaults() {
        let events = parseAllSplits(": keep-alive\nevent: message_start\ndata: {\"a\":1}\n\ndata: line one\ndata:line two\ndata\n\nid: 7\nretry: 1500\ndata: x\n\nevent: ignored-no-data\n\ndata: after\n\n")
        XCTAssertEqual(events, [
            SSEEvent(event: "message_start", data: #"{"a":1}"#),
            SSEEvent(event: "message", data: "line one\nline two\n"),
            SSEEvent(event: "message", data: "x", id: "7", retry: 1500),
            SSEEvent(event: "message", data: "after", id: "7"),
        ])
    }

    func testCRLFAndCRLineEndings() {
        XCTAssertEqual(parseAllSplits("event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\rdata: 3\n\n"), [
            SSEEvent(event: "a", data: "1"),
            SSEEvent(event: "b", data: "2"),
            SSEEvent(event: "message", data: "3"),
        ])
    }

    func testBOMAndUTF8SplitAcrossChunks() {
        let events = parseAllSplits("\u{FEFF}data: café ☕ 📚\n\n")
        XCTAssertEqual(events, [SSEEvent(data: "café ☕ 📚")])
    }

    func testOnlyOneLeadingSpaceIsRemovedAndBadRetryIgnored() {
        XCTAssertEqual(parseAllSplits("data:  two spaces\nretry: 12a\n\n"), [SSEEvent(data: " two spaces")])
    }

    func testPendingEventDetectsCutStream() {
        var p = SSEParser()
        XCTAssertEqual(p.feed(Array("data: complete\n\ndata: part".utf8)).count, 1)
        XCTAssertTrue(p.hasPendingEvent)
        XCTAssertEqual(p.finish(), [])
        var q = SSEParser()
        _ = q.feed(Array("data: complete\n\n".utf8))
        XCTAssertFalse(q.hasPendingEvent)
    }

    func testLineSplitterAllSplits() throws {
        let text = "{\"a\":1}\n\r\n{\"b\":\"é\"}\r\n   \n{\"c\":3}"
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var s = LineSplitter()
            var lines = try s.feed(bytes[0..<cut]) + s.feed(bytes[cut...])
            if let last = s.finish() { lines.append(last) }
            XCTAssertEqual(lines.map { String(decoding: $0, as: UTF8.self) }, [#"{"a":1}"#, #"{"b":"é"}"#, #"{"c":3}"#], "cut \(cut)")
        }
        var s = LineSplitter()
        _ = try s.feed(Array("{\"partial\"".utf8))
        XCTAssertTrue(s.hasPartialLine)
    }

    func testLineSplitterLimit() {
        var s = LineSplitter(maxLineBytes: 10)
        XCTAssertThrowsError(try s.feed([UInt8](repeating: 65, count: 11)))
    }
}
