// Capture never guesses (issue 16): a page below 1 or past the book's last
// page is refused, naming the value; an author's name that fits several books
// is exit 3 with the candidates (English or Chinese), unless the current book
// is one of them, which then wins and says so on stderr. On real SQLite files.
import XCTest
import IBCore
import IBStore
@testable import IBCapture

final class CaptureNoGuessTests: XCTestCase {
    var dir = ""
    var path: String { dir + "/library.db" }
    var savedLanguage = Messages.current

    override func setUp() {
        var template = Array("/tmp/ib-capture-noguess-XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        savedLanguage = Messages.current
        Messages.current = .en
    }

    override func tearDown() {
        Messages.current = savedLanguage
        for f in ["", "-wal", "-shm"] { _ = unlink(path + f) }
        _ = unlink(dir + "/stderr")
        _ = rmdir(dir)
    }

    func engine(_ now: String = "2026-11-22T10:00:00Z", dryRun: Bool = false) throws -> CaptureEngine {
        var o = CaptureOptions()
        o.now = Timestamp.parse(now)!
        o.today = Day(iso: now)
        o.dryRun = dryRun
        return CaptureEngine(options: o, store: dryRun ? nil : try CaptureStore.open(path: path))
    }

    func count(_ table: String) throws -> Int {
        try Library.open(path: path).db.scalarInt("SELECT count(*) FROM \(table)") ?? -1
    }

    /// The failure a line gives (nothing else may happen).
    func refusal(_ e: CaptureEngine, _ line: String, file: StaticString = #filePath, line l: UInt = #line) -> CaptureFailure? {
        do {
            let record = try e.capture(line)
            XCTFail("'\(line)' was captured: \(record.serialized)", file: file, line: l)
        } catch let f as CaptureFailure {
            return f
        } catch {
            XCTFail("'\(line)': not a CaptureFailure: \(error)", file: file, line: l)
        }
        return nil
    }

    /// Runs `body` with stderr going to a file; returns what was written there.
    func stderr(_ body: () throws -> Void) rethrows -> String {
        let file = dir + "/stderr"
        let saved = dup(2)
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        dup2(fd, 2)
        defer { dup2(saved, 2); close(saved); close(fd) }
        try body()
        return (try? FileSystem.readText(file)) ?? ""
    }

    func testPagesBelowOneOrPastTheEndAreRefused() throws {
        let e = try engine()
        _ = try e.capture("Reading Crime and Punishment by Fyodor Dostoevsky, 500 pages")
        for (line, value) in [("Quote p. -3: \"x\"", "-3"), ("Quote p. 0: \"Pain and suffering\"", "0"),
                              ("Note p. -1: a thought", "-1"), ("Question p. -7: why the axe?", "-7"),
                              ("\"Too far\" p. 99999999999", "99999999999"), ("摘录 第-3页：「痛苦」", "-3")] {
            let f = refusal(e, line)
            XCTAssertEqual(f?.error.code, .failure, line)
            XCTAssertTrue(f?.error.message.contains("page \(value)") == true || f?.error.message.contains("第 \(value) 页") == true,
                          "\(line): \(f?.error.message ?? "")")
        }
        // Past the book's page count (500), alone or as the end of a range.
        for (line, value) in [("Quote p. 501: \"Beyond the end\"", "501"), ("Quote pp. 499-503: \"Across the end\"", "503"),
                              ("Note p. 9000: far", "9000"), ("on page 600", "600")] {
            let f = refusal(e, line)
            XCTAssertEqual(f?.error.code, .failure, line)
            XCTAssertTrue(f?.error.message.contains("page \(value)") == true && f?.error.message.contains("500 pages") == true,
                          "\(line): \(f?.error.message ?? "")")
        }
        XCTAssertEqual(try count("quotes"), 0, "nothing was written")
        XCTAssertEqual(try count("notes"), 0, "nothing was written")
        // The first and last pages are pages.
        XCTAssertEqual(try e.capture("Quote p. 1: \"On an exceptionally hot evening\"")["page"]?.intValue, 1)
        XCTAssertEqual(try e.capture("Quote p. 500: \"The end\"")["page"]?.intValue, 500)
        // A book without a page count: any page from 1 is taken.
        _ = try e.capture("Reading Notes from Underground by Fyodor Dostoevsky")
        XCTAssertEqual(try e.capture("Quote p. 9000: \"I am a sick man\"")["page"]?.intValue, 9000)
        // In Chinese when the locale says so; --dry-run refuses too (no library needed).
        Messages.current = .zh
        let zh = refusal(try engine(dryRun: true), "Quote p. -3: \"x\"")
        XCTAssertEqual(zh?.error.code, .failure)
        XCTAssertTrue(zh?.error.message.contains("没有第 -3 页") == true, zh?.error.message ?? "")
    }

    func testAnAuthorOfSeveralBooksIsAskedAboutNotGuessed() throws {
        // One engine per minute: the current book is the one most recently active.
        _ = try engine("2026-11-22T10:00:00Z").capture("Reading Crime and Punishment by Fyodor Dostoevsky, 500 pages")
        _ = try engine("2026-11-22T10:01:00Z").capture("Reading The Idiot by Fyodor Dostoevsky, 600 pages")
        let e = try engine("2026-11-22T10:02:00Z")
        _ = try e.capture("Reading War and Peace by Leo Tolstoy, 1200 pages")   // the current book
        let line = "Quote p. 9 of Dostoevsky: \"Beauty will save the world\""
        let f = refusal(e, line)
        XCTAssertEqual(f?.error.code, .ambiguous)
        let message = f?.error.message ?? ""
        XCTAssertTrue(message.contains("“Dostoevsky” is the author of 2 books"), message)
        XCTAssertTrue(message.contains("Crime and Punishment") && message.contains("The Idiot"), message)
        XCTAssertFalse(message.contains("War and Peace"), message)
        XCTAssertEqual(f?.json?["by"]?.stringValue, "author")
        XCTAssertEqual(Set(f?.json?["candidates"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []),
                       ["Crime and Punishment", "The Idiot"])
        XCTAssertEqual(try count("quotes"), 0, "nothing was written")

        // In Chinese when the locale says so.
        Messages.current = .zh
        let zh = refusal(e, line)
        XCTAssertEqual(zh?.error.code, .ambiguous)
        let zhMessage = zh?.error.message ?? ""
        XCTAssertTrue(zhMessage.contains("书库中有 2 本“Dostoevsky”的书") && zhMessage.contains("The Idiot"), zhMessage)
        Messages.current = .en

        // The current book is one of them: it wins, and stderr says so.
        let later = try engine("2026-11-22T10:03:00Z")
        _ = try later.capture("on page 20 of The Idiot")
        var record: JSON = .null
        let err = try stderr { record = try later.capture(line) }
        XCTAssertEqual(record["book_title"]?.stringValue, "The Idiot")
        XCTAssertEqual(record["page"]?.intValue, 9)
        XCTAssertTrue(err.contains("using the current one, “The Idiot”"), err)
        Messages.current = .zh
        let zhErr = try stderr { _ = try later.capture("Note p. 10 of Dostoevsky: the prince") }
        XCTAssertTrue(zhErr.contains("使用当前在读的《The Idiot》"), zhErr)
        Messages.current = .en

        // One book by the author: that book, quietly; no book by them: unknown (exit 1).
        var quiet: JSON = .null
        let none = try stderr { quiet = try later.capture("Quote p. 5 of Tolstoy: \"All happy families\"") }
        XCTAssertEqual(quiet["book_title"]?.stringValue, "War and Peace")
        XCTAssertEqual(none, "")
        XCTAssertEqual(refusal(later, "Quote p. 5 of Nabokov: \"Lolita, light of my life\"")?.error.code, .failure)
        XCTAssertEqual(try count("quotes"), 2)
    }
}
