import XCTest
#if canImport(Glibc)
import Glibc
#endif
import IBCore
import IBStore
@testable import IBCapture

/// Suggestions from a reading history kept in a real library (times in UTC).
final class SuggestionsTests: XCTestCase {
    var dir = ""
    var path: String { dir + "/library.db" }
    var savedTZ: String? = nil

    override func setUp() {
        var template = Array("/tmp/ib-suggest-test-XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        savedTZ = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", "UTC", 1); tzset()
    }

    override func tearDown() {
        if let savedTZ { setenv("TZ", savedTZ, 1) } else { unsetenv("TZ") }
        tzset()
        _ = unlink(path); _ = unlink(path + "-wal"); _ = unlink(path + "-shm"); _ = rmdir(dir)
    }

    /// Captures `line` as if at `time` (ISO-8601, UTC).
    func capture(_ line: String, at time: String) throws {
        var o = CaptureOptions()
        o.now = Timestamp.parse(time)!
        o.today = Day(iso: time)
        o.create = true
        _ = try CaptureEngine(options: o, store: try CaptureStore.open(path: path)).capture(line)
    }

    func suggestions(at time: String) throws -> [JSON] {
        let store = try CaptureStore.open(path: path)
        let status = try StatusReport.build(store, today: Day(iso: time)!, privateMode: false, now: Timestamp.parse(time)!)
        return status["suggestions"]?.arrayValue ?? []
    }

    /// Meditations at 21:00 and Sapiens at 08:00 on ten days, 2026-11-01 to 11-10.
    func logTenDays() throws {
        try capture("Reading Meditations by Marcus Aurelius, 254 pages", at: "2026-10-31T12:00:00Z")
        try capture("Reading Sapiens by Harari (443 pages)", at: "2026-10-31T12:05:00Z")
        for day in 1...10 {
            let d = day < 10 ? "0\(day)" : "\(day)"
            try capture("read 10 pages of Meditations", at: "2026-11-\(d)T21:00:00Z")
            try capture("read 15 pages of Sapiens", at: "2026-11-\(d)T08:00:00Z")
        }
        try capture("Quote p. 12 of Meditations: \"Waste no more time arguing what a good man should be. Be one.\"", at: "2026-11-10T21:05:00Z")
    }

    func testTheBookReadAtThisHourComesFirst() throws {
        try logTenDays()
        let evening = try suggestions(at: "2026-11-11T20:55:00Z")
        XCTAssertEqual(evening.first?["kind"]?.stringValue, "continue", "\(evening)")
        XCTAssertEqual(evening.first?["title"]?.stringValue, "Meditations")
        XCTAssertEqual(evening.first?["days"]?.intValue, 10)
        XCTAssertEqual(evening.first?["usual_time"]?.stringValue, "21:00")
        XCTAssertTrue(evening.first?["reason"]?.stringValue?.contains("21:00") ?? false)
        let morning = try suggestions(at: "2026-11-11T08:10:00Z")
        XCTAssertEqual(morning.first?["title"]?.stringValue, "Sapiens", "\(morning)")
        // Mid-afternoon is neither habit: no "continue", but the quote of the day is still there.
        let afternoon = try suggestions(at: "2026-11-11T15:00:00Z")
        XCTAssertFalse(afternoon.contains { $0["kind"]?.stringValue == "continue" }, "\(afternoon)")
        XCTAssertTrue(afternoon.contains { $0["kind"]?.stringValue == "quote" })
        XCTAssertTrue(afternoon.allSatisfy { !($0["reason"]?.stringValue ?? "").isEmpty }, "every suggestion says why")
    }

    func testAPlanBehindGivesThePagesPerDayNeeded() throws {
        try capture("Reading Sapiens by Harari (443 pages)", at: "2026-11-01T09:00:00Z")
        try capture("Plan: finish Sapiens by 2026-11-30", at: "2026-11-01T09:01:00Z")
        // Nothing read for three weeks: 443 pages in the 8 days left (to the 30th, inclusive).
        let s = try suggestions(at: "2026-11-23T09:00:00Z")
        let behind = try XCTUnwrap(s.first { $0["kind"]?.stringValue == "plan_behind" }, "\(s)")
        XCTAssertEqual(behind["pages_per_day"]?.intValue, 56)
        XCTAssertEqual(behind["days_left"]?.intValue, 8)
        XCTAssertTrue(behind["text"]?.stringValue?.contains("56 pages a day") ?? false)
        // On the day it was made it is on track: no suggestion about it.
        XCTAssertFalse(try suggestions(at: "2026-11-01T10:00:00Z").contains { $0["kind"]?.stringValue == "plan_behind" })
        // Left alone for three weeks, the book is named as untouched.
        XCTAssertTrue(s.contains { $0["kind"]?.stringValue == "untouched" && $0["title"]?.stringValue == "Sapiens" }, "\(s)")
    }

    func testAFinishedBookIsNeverSuggested() throws {
        try logTenDays()
        try capture("Plan: finish Meditations by 2026-11-20", at: "2026-11-10T21:30:00Z")
        try capture("finished Meditations", at: "2026-11-10T22:00:00Z")
        for time in ["2026-11-11T20:55:00Z", "2026-12-20T21:00:00Z"] {
            let s = try suggestions(at: time)
            XCTAssertFalse(s.contains { $0["kind"]?.stringValue != "quote" && $0["title"]?.stringValue == "Meditations" }, "\(time): \(s)")
        }
        XCTAssertEqual(try suggestions(at: "2026-11-11T08:05:00Z").first?["title"]?.stringValue, "Sapiens")
    }

    func testIBNowMustBeATime() {
        setenv("IB_NOW", "tomorrow", 1)
        defer { unsetenv("IB_NOW") }
        XCTAssertThrowsError(try Suggestions.nowFromEnvironment()) { e in
            XCTAssertTrue("\(e)".contains("IB_NOW"), "\(e)")
        }
        setenv("IB_NOW", "2026-11-11T20:55:00Z", 1)
        XCTAssertEqual(try Suggestions.nowFromEnvironment(), Timestamp.parse("2026-11-11T20:55:00Z"))
    }
}
