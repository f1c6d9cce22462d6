// Capture loses nothing and guesses nothing (issue 29): NUL is refused, not cut;
// an ambiguous line waits in the library and each answer settles one line once;
// pages written oddly, backwards ranges and negative counts are refused naming
// the text; a question does not change the current book; "done" needs the book
// or --yes; a first position is no reading; a plan names each book once and is
// capped. On real SQLite files.
import XCTest
import IBCore
import IBStore
@testable import IBCapture

final class NothingLostTests: XCTestCase {
    var dir = ""
    var path: String { dir + "/library.db" }
    var savedLanguage = Messages.current

    override func setUp() {
        var template = Array("/tmp/ib-capture-lost-XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        savedLanguage = Messages.current
        Messages.current = .en
    }

    override func tearDown() {
        Messages.current = savedLanguage
        _ = system("rm -rf '\(dir)'")
    }

    func engine(_ now: String = "2026-11-22T10:00:00Z", yes: Bool = false) throws -> CaptureEngine {
        var o = CaptureOptions()
        o.now = Timestamp.parse(now)!
        o.today = Day(iso: now)
        o.yes = yes
        return CaptureEngine(options: o, store: try CaptureStore.open(path: path))
    }

    func count(_ sql: String) throws -> Int {
        try Library.open(path: path).db.scalarInt(sql) ?? -1
    }

    func refusal(_ e: CaptureEngine, _ line: String, file: StaticString = #filePath, line l: UInt = #line) -> CaptureFailure? {
        do {
            let record = try e.capture(line)
            XCTFail("'\(line)' was captured: \(record.serialized)", file: file, line: l)
        } catch let f as CaptureFailure {
            return f
        } catch {
            XCTFail("'\(line)': \(error)", file: file, line: l)
        }
        return nil
    }

    func testNULIsRefusedNotCut() throws {
        let e = try engine()
        _ = try e.capture("Reading Meditations by Marcus Aurelius")
        let f = refusal(e, "Note: A\u{0}hidden tail")
        XCTAssertTrue(f?.error.message.contains("NUL") == true, f?.error.message ?? "")
        XCTAssertEqual(try count("SELECT count(*) FROM notes"), 0)
    }

    func testEachAnswerSettlesOnePendingLineOnce() throws {
        let e = try engine()
        _ = try e.capture("Reading Meditations by Marcus Aurelius")
        _ = try e.capture("Want to read Meditations on First Philosophy by Descartes")
        for line in ["Quote p. 1 of Meditat: \"first\"", "Quote p. 2 of Meditat: \"second\""] {
            let f = refusal(e, line)
            XCTAssertEqual(f?.error.code, .ambiguous)
            let ids = f?.json?["candidates"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            try e.savePending(line: line, candidates: ids)
        }
        XCTAssertEqual(try count("SELECT count(*) FROM pending_captures"), 2)
        // Two answers from two processes: each its own line, the newest first.
        XCTAssertEqual(try engine().settlePending(answer: "1")?["text"], "second")
        XCTAssertEqual(try engine().settlePending(answer: "Descartes")?["text"], "first")
        XCTAssertNil(try engine().settlePending(answer: "1"), "nothing left to settle")
        XCTAssertEqual(try count("SELECT count(*) FROM quotes"), 2)
        XCTAssertEqual(try count("SELECT count(*) FROM pending_captures"), 0)
        // An hour later a pending line is gone.
        try e.savePending(line: "Quote p. 3 of Meditat: \"third\"", candidates: ["x"])
        XCTAssertNil(try engine("2026-11-22T11:00:01Z").settlePending(answer: "1"))
    }

    func testPagesWrittenOddlyAreRefusedNamingThem() throws {
        let e = try engine()
        _ = try e.capture("Reading Meditations by Marcus Aurelius")
        for (line, named) in [("Quote pp. 9-3: \"x\"", "9-3"), ("Quote pp. 5-1000000000000000000000: \"x\"", "5-1000000000000000000000"),
                              ("摘录 第一千亿页：「x」", "一千亿"), ("Quote p. 0x10: \"x\"", "0x10"), ("Quote p. 1e3: \"x\"", "1e3"),
                              ("Quote p. ١٢: \"x\"", "١٢"), ("摘录 第9-3页：「x」", "9-3")] {
            let f = refusal(e, line)
            XCTAssertEqual(f?.error.code, .failure, line)
            XCTAssertTrue(f?.error.message.contains(named) == true, "\(line): \(f?.error.message ?? "")")
        }
        let negative = refusal(e, "Reading Neg Book, -5 pages")
        XCTAssertTrue(negative?.error.message.contains("-5") == true, negative?.error.message ?? "")
        XCTAssertEqual(try count("SELECT count(*) FROM quotes"), 0)
        XCTAssertEqual(try count("SELECT count(*) FROM books WHERE title = 'Neg Book'"), 0)
        // Plain forms still read.
        XCTAssertEqual(try e.capture("Quote pp. 147-8: \"x\"")["page_end"]?.intValue, 148)
        XCTAssertEqual(try e.capture("Quote p. 12f: \"y\"")["page"]?.intValue, 12)
    }

    func testOnlyProgressOrReadingChangesTheCurrentBook() throws {
        _ = try engine("2026-11-22T10:00:00Z").capture("Reading Meditations by Marcus Aurelius, 254 pages")
        _ = try engine("2026-11-22T10:01:00Z").capture("Want to read Dracula by Bram Stoker")
        _ = try engine("2026-11-22T10:02:00Z").capture("Question about Dracula: who is the count?")
        let note = try engine("2026-11-22T10:03:00Z").capture("Note: the inner citadel")
        XCTAssertEqual(note["book_title"], "Meditations")
        // "done" alone finishes nothing without --yes.
        let f = refusal(try engine("2026-11-22T10:04:00Z"), "done")
        XCTAssertTrue(f?.error.message.contains("--yes") == true, f?.error.message ?? "")
        XCTAssertEqual(try count("SELECT count(*) FROM reading_state WHERE state = 'finished'"), 0)
        XCTAssertEqual(try engine("2026-11-22T10:05:00Z", yes: true).capture("done")["finished"], true)
    }

    func testAFirstPositionIsNotReading() throws {
        let e = try engine()
        _ = try e.capture("Want to read Moby Dick by Herman Melville")
        let first = try e.capture("on page 100 of Moby Dick")
        XCTAssertEqual(first["pages_read"]?.intValue, 0)
        XCTAssertEqual(first["page"]?.intValue, 100)
        XCTAssertEqual(try e.capture("on page 130 of Moby Dick")["pages_read"]?.intValue, 30)
    }

    func testAPlanNamesEachBookOnceAndIsCapped() throws {
        let e = try engine()
        _ = try e.capture("Want to read Moby Dick by Herman Melville, 600 pages")
        let plan = try e.capture("Plan: finish Moby Dick, Moby Dick and Moby Dick by 2027-01-31")
        XCTAssertEqual(plan["pages_left"]?.intValue, 600)
        XCTAssertEqual(plan["books"]?.arrayValue?.count, 1)
        let many = (0...1000).map { "Saga \($0)" }.joined(separator: ", ")
        let f = refusal(e, "Plan: finish \(many) by 2027-01-31")
        XCTAssertTrue(f?.error.message.contains("at most 1000") == true, f?.error.message ?? "")
        XCTAssertEqual(try count("SELECT count(*) FROM reading_plans"), 1)
    }

    /// What `export` writes to a file, for a terminal or not.
    func exported(_ format: String, forTerminal: Bool) throws -> String {
        let file = dir + "/export-\(format)-\(forTerminal)"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let out = OutputStream(fd: fd)
        try Exporter.export(try CaptureStore.open(path: path), format: format, to: out, forTerminal: forTerminal)
        out.flush()
        close(fd)
        return try FileSystem.readText(file)
    }

    func testControlCharactersAreShownNotRunOnATerminal() throws {
        let e = try engine()
        _ = try e.capture("Reading Meditations by Marcus Aurelius")
        _ = try e.capture("Quote p. 5: \"red \u{1B}[31mALERT\u{1B}]0;owned\u{07} \u{9B}2J end\"")
        for format in ["markdown", "csv"] {
            let shown = try exported(format, forTerminal: true)
            XCTAssertFalse(shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, format)
            XCTAssertTrue(shown.contains("\\x1B[31mALERT"), shown)
            XCTAssertTrue(shown.contains("\\u{9B}2J"), shown)
        }
        // JSON keeps the exact text (escaped by JSON); so does a pipe.
        let json = try exported("json", forTerminal: true)
        XCTAssertTrue(json.contains("\\u001b[31mALERT") || json.contains("\\u001B[31mALERT"), json)
        XCTAssertTrue(try exported("markdown", forTerminal: false).unicodeScalars.contains { $0.value == 0x1B })
        // Status lines go through the same filter.
        XCTAssertEqual(TerminalText.safe("a\u{1B}b\tc\nd\u{202E}"), "a\\x1Bb\tc\nd\\u{202E}")
    }

    func testYesterdaysReadingIsDatedYesterday() throws {
        let e = try engine()
        _ = try e.capture("Reading Moby Dick by Herman Melville")
        let r = try e.capture("read 30 pages yesterday")
        XCTAssertEqual(StatusReport.localDay(r["created_at"]?.stringValue ?? ""), Day(iso: "2026-11-21"), r.serialized)
        XCTAssertEqual(try e.capture("昨天读了20页")["created_at"], r["created_at"])
        let status = try StatusReport.build(try CaptureStore.open(path: path), today: Day(iso: "2026-11-22")!, privateMode: false)
        XCTAssertEqual(status["pages_today"]?.intValue, 0, status.serialized)
        XCTAssertEqual(try e.capture("read 5 pages")["created_at"]?.stringValue?.hasPrefix("2026-11-22"), true)
    }

    func testAnEnglishLineWithABracketedTitleIsAQuote() throws {
        let e = try engine()
        _ = try e.capture("Reading The Adventures of Sherlock Holmes, 300 pages")
        _ = try e.capture("on page 120")
        let r = try e.capture("Quote p. 3 of 《sherlock》: \"x\"")
        XCTAssertEqual(r["type"], "quote", r.serialized)
        XCTAssertEqual(r["page"]?.intValue, 3)
        XCTAssertEqual(try count("SELECT current_page FROM books"), 120, "the position stays")
    }

    func testDryRunNamesTheBookItWouldUse() throws {
        _ = try engine("2026-11-22T10:00:00Z").capture("Reading Meditations by Marcus Aurelius")
        _ = try engine("2026-11-22T10:01:00Z").capture("Want to read Dracula by Bram Stoker")
        var o = CaptureOptions()
        o.now = Timestamp.parse("2026-11-22T10:02:00Z")!
        o.dryRun = true
        let e = CaptureEngine(options: o, store: try CaptureStore.open(path: path))
        XCTAssertEqual(try e.capture("Quote p. 3: \"x\"")["book_title"], "Meditations")
        XCTAssertEqual(try e.capture("Note about Dracula: y")["book_title"], "Dracula")
        XCTAssertEqual(try count("SELECT count(*) FROM quotes") + count("SELECT count(*) FROM notes"), 0, "a dry run writes nothing")
    }

    func testALineReadTwoWaysIsRefusedWithBoth() throws {
        let e = try engine()
        _ = try e.capture("Reading Meditations by Marcus Aurelius")
        for line in ["Note: 读了20页", "Quote 第3页: \"x\""] {
            let f = refusal(e, line)
            XCTAssertEqual(f?.error.code, .ambiguous, line)
            XCTAssertTrue(f?.error.message.contains("progress book=") == true && f?.error.message.contains("|") == true,
                          f?.error.message ?? "")
        }
        XCTAssertEqual(try count("SELECT count(*) FROM progress_events WHERE kind != 'started'"), 0)
        XCTAssertEqual(try count("SELECT count(*) FROM notes") + count("SELECT count(*) FROM quotes"), 0)
    }
}
