import XCTest
@testable import IBCore

/// Record fields outside sane bounds are refused where records are read, as FILE:LINE errors.
final class RecordLimitsTests: XCTestCase {
    func error(_ line: String) -> String? {
        do { _ = try Record(JSON.parse(line)); return nil } catch { return "\(error)" }
    }

    func testBookIDsMustBePlainIdentifiers() {
        XCTAssertNil(error(#"{"type":"book","id":"3f2a9c01b2d4e5f6","title":"t"}"#))
        XCTAssertNil(error(#"{"type":"page","book_id":"my-book_2.0","page":1,"text":""}"#))
        let long = String(repeating: "x", count: 129)
        for (id, why) in [("", "is empty"), ("../../x", "path separator"), ("..", "'..'"), ("a\\\\b", "path separator"),
                          ("a\\nb", "control character"), ("a\\u0000b", "control character"), ("a\\u009bb", "control character"),
                          (long, "129 bytes")] {
            let message = error(#"{"type":"book","id":""# + id + #"","title":"t"}"#)
            XCTAssertTrue(message?.contains(why) == true, "\(id): \(message ?? "accepted")")
            let page = error(#"{"type":"page","book_id":""# + id + #"","page":1,"text":""}"#)
            XCTAssertTrue(page?.contains("'book_id'") == true, "\(id): \(page ?? "accepted")")
        }
    }

    func testNumbersOutsideTheirRangeAreRefused() {
        let chunk = #"{"type":"chunk","book_id":"b","index":%@,"start_page":%@,"end_page":%@,"start_offset":%@,"end_offset":%@,"token_count":%@,"text":"x"}"#
        func line(_ index: String = "0", _ start: String = "1", _ end: String = "1", _ so: String = "0", _ eo: String = "5", _ tokens: String = "2") -> String {
            var s = chunk
            for v in [index, start, end, so, eo, tokens] { s = s.replacingOccurrences(of: "%@", with: v, options: [], range: s.range(of: "%@")) }
            return s
        }
        XCTAssertNil(error(line()))
        XCTAssertNil(error(line("3", "2", "4", "900", "10")), "offsets on different pages are not ordered")
        for (bad, field) in [(line("-1"), "index"), (line("0", "0"), "start_page"), (line("0", "1", "20000000"), "end_page"),
                             (line("0", "1", "1", "-5"), "start_offset"), (line("0", "1", "1", "0", "1000000000000"), "end_offset"),
                             (line("0", "1", "1", "0", "5", "-100"), "token_count"), (line("0", "1", "1", "9", "5"), "end_offset 5 is before")] {
            XCTAssertTrue(error(bad)?.contains(field) == true, "\(bad): \(error(bad) ?? "accepted")")
        }
        XCTAssertTrue(error(#"{"type":"page","book_id":"b","page":10000001,"text":""}"#)?.contains("'page'") == true)
        XCTAssertTrue(error(#"{"type":"page","book_id":"b","page":0,"text":""}"#)?.contains("'page'") == true)
        XCTAssertTrue(error(#"{"type":"book","id":"b","title":"t","page_count":-3}"#)?.contains("'page_count'") == true)
    }

    func testTheReaderNamesFileAndLine() throws {
        let path = NSTemporaryDirectory() + "ibcore-limits-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = #"{"type":"book","id":"b","title":"t"}"# + "\n" + #"{"type":"page","book_id":"../../x","page":1,"text":""}"# + "\n"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        XCTAssertThrowsError(try RecordReader(path: path).forEach { _, _ in }) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(path):2: page record: field 'book_id'"), "\(error)")
        }
    }

    /// A one-page chunk without end_offset (found by the records fuzzer): what it
    /// writes back must read again.
    func testChunkWithoutEndOffsetRoundTrips() throws {
        let record = try Record(JSON.parse(#"{"type":"chunk","book_id":"b","index":2,"start_page":3,"end_page":3,"start_offset":817,"text":"x"}"#))
        var out: [UInt8] = []
        record.write(to: &out)
        XCTAssertNoThrow(try Record(JSON.parse(out)), String(decoding: out, as: UTF8.self))
    }
}
