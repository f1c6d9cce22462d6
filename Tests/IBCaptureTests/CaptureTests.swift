import XCTest
import IBCore
import IBStore
@testable import IBCapture

final class MessagesTests: XCTestCase {
    func testEveryMessageHasBothLanguagesAndTheSamePlaceholders() {
        XCTAssertGreaterThan(Messages.catalogue.count, 20)
        for (key, entry) in Messages.catalogue {
            XCTAssertFalse(entry.en.isEmpty, "\(key): no English")
            XCTAssertFalse(entry.zh.isEmpty, "\(key): no Chinese")
            XCTAssertTrue(entry.zh.unicodeScalars.contains { $0.value >= 0x4E00 && $0.value <= 0x9FFF }, "\(key): the Chinese text has no Chinese")
            func placeholders(_ s: String) -> Set<String> {
                Set((0..<6).map { "{\($0)}" }.filter { s.contains($0) })
            }
            XCTAssertEqual(placeholders(entry.en), placeholders(entry.zh), "\(key): placeholders differ")
        }
    }

    func testEveryKeyUsedInTheSourcesIsInTheCatalogue() throws {
        // Scan the sources for Messages.text("key" and fail on a key without both languages.
        let dir = #filePath.replacingAll("Tests/IBCaptureTests/CaptureTests.swift", "Sources/IBCapture/")
        var keys: Set<String> = []
        for file in ["Capture.swift", "Tool.swift", "Report.swift", "Store.swift", "Parser.swift", "VoiceCapture.swift"] {
            let text = try FileSystem.readText(dir + file)
            for marker in ["Messages.text(\"", "fail(\""] {
                for part in text.splitting(marker).dropFirst() {
                    if let end = part.firstIndex(of: "\"") { keys.insert(String(part[..<end])) }
                }
            }
        }
        XCTAssertGreaterThan(keys.count, 10)
        for key in keys where !key.hasPrefix("kind_") {
            XCTAssertNotNil(Messages.catalogue[key], "message '\(key)' is missing from the catalogue")
        }
    }

    func testHelpExistsInBothLanguagesWithEveryOption() {
        for option in ["--db", "--dry-run", "--json", "--create", "--ask", "--today", "--now", "--format", "--private", "--help", "--version", "--audio", "--model", "--spoken"] {
            XCTAssertTrue(CaptureTool.help.contains(option), "English help lacks \(option)")
            XCTAssertTrue(CaptureTool.helpChinese.contains(option), "Chinese help lacks \(option)")
        }
    }

    func testLanguageFollowsTheEnvironment() {
        XCTAssertEqual(Messages.text("status_today", arguments: ["5"], language: .en), "5 pages today")
        XCTAssertEqual(Messages.text("status_today", arguments: ["5"], language: .zh), "今天读了 5 页")
    }
}

final class DateTests: XCTestCase {
    let today = Day(year: 2026, month: 11, day: 22)!  // a Sunday

    func testCivilArithmetic() {
        XCTAssertEqual(Day(year: 1970, month: 1, day: 1)!.serial, 0)
        XCTAssertEqual(today.weekday, 7)
        XCTAssertEqual(Day(year: 2027, month: 1, day: 31)!.description, "2027-01-31")
        XCTAssertEqual(Day(year: 2028, month: 2, day: 29)!.adding(days: 1).description, "2028-03-01")
        XCTAssertNil(Day(year: 2027, month: 2, day: 29))
        XCTAssertEqual(Day(year: 2027, month: 1, day: 31)!.adding(months: 1).description, "2027-02-28")
    }

    func testRelativeAndAbsolute() {
        let cases: [(String, String?)] = [
            ("2027-01-31", "2027-01-31"), ("2027/1/31", "2027-01-31"), ("1/31/2027", "2027-01-31"), ("31.01.2027", "2027-01-31"),
            ("Jan 31", "2027-01-31"), ("January 31st", "2027-01-31"), ("31 January 2027", "2027-01-31"), ("Dec 1", "2026-12-01"),
            ("tomorrow", "2026-11-23"), ("today", "2026-11-22"), ("Friday", "2026-11-27"), ("next Friday", "2026-11-27"),
            ("this friday", "2026-11-27"), ("in 2 weeks", "2026-12-06"), ("in two weeks", "2026-12-06"), ("in 3 days", "2026-11-25"),
            ("in a month", "2026-12-22"), ("end of month", "2026-11-30"), ("end of the year", "2026-12-31"),
            ("end of next month", "2026-12-31"), ("end of January", "2027-01-31"), ("March", "2027-03-31"), ("next week", "2026-11-29"),
            ("the weekend", "2026-11-22"), ("10 days from now", "2026-12-02"),
            ("2027年1月31日", "2027-01-31"), ("1月31日", "2027-01-31"), ("12月1号", "2026-12-01"), ("下周五", "2026-11-27"),
            ("周五", "2026-11-27"), ("星期三", "2026-11-25"), ("下星期一", "2026-11-23"), ("月底", "2026-11-30"),
            ("下个月底", "2026-12-31"), ("年底", "2026-12-31"), ("明天", "2026-11-23"), ("后天", "2026-11-24"),
            ("三天后", "2026-11-25"), ("两周后", "2026-12-06"), ("一个月后", "2026-12-22"), ("十二月底", "2026-12-31"),
            ("someday", nil), ("", nil), ("Feb 30", nil), ("blue", nil),
        ]
        var failures: [String] = []
        for (text, expected) in cases {
            let got = DateParser.parse(text, today: today)?.description
            if got != expected { failures.append("\(text): expected \(expected ?? "nil"), got \(got ?? "nil")") }
        }
        XCTAssertEqual(failures, [])
    }

    func testChineseNumbers() {
        XCTAssertEqual(ChineseNumber.parse("二十"), 20)
        XCTAssertEqual(ChineseNumber.parse("一百二十"), 120)
        XCTAssertEqual(ChineseNumber.parse("十五"), 15)
        XCTAssertEqual(ChineseNumber.parse("两"), 2)
        XCTAssertEqual(ChineseNumber.parse("47"), 47)
        XCTAssertNil(ChineseNumber.parse("abc"))
    }
}

/// The whole flow on a real SQLite library in a temporary directory.
final class CaptureStoreTests: XCTestCase {
    var dir = ""
    var path: String { dir + "/library.db" }

    override func setUp() {
        var template = Array("/tmp/ib-capture-test-XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    override func tearDown() {
        _ = unlink(path); _ = unlink(path + "-wal"); _ = unlink(path + "-shm"); _ = rmdir(dir)
    }

    func engine(_ now: String = "2026-11-22T10:00:00Z", create: Bool = false) throws -> CaptureEngine {
        var o = CaptureOptions()
        o.now = Timestamp.parse(now)!
        o.today = Day(iso: now)
        o.create = create
        return CaptureEngine(options: o, store: try CaptureStore.open(path: path))
    }

    func testCaptureFlowAmbiguityAndStatus() throws {
        var e = try engine()
        _ = try e.capture("Reading Meditations by Marcus Aurelius, 254 pages")
        _ = try e.capture("Want to read Meditations on First Philosophy by Descartes")
        _ = try e.capture("Started Sapiens (443 pages)")
        // Current book: the most recent one being read.
        let progress = try e.capture("read 20 pages")
        XCTAssertEqual(progress["book_title"]?.stringValue, "Sapiens")
        XCTAssertEqual(progress["page"]?.intValue, 20)
        // Exact title wins over a near-duplicate.
        let q = try e.capture("\"Waste no more time arguing\" - Meditations, p. 12")
        XCTAssertEqual(q["book_title"]?.stringValue, "Meditations")
        XCTAssertEqual(q["page"]?.intValue, 12)
        // Ambiguous: nothing written, exit code 3, candidates.
        let lib = try Library.open(path: path)
        let notesBefore = try lib.db.scalarInt("SELECT count(*) FROM notes")
        XCTAssertThrowsError(try e.capture("Note about Meditat: which one?")) { error in
            guard let f = error as? CaptureFailure else { return XCTFail("\(error)") }
            XCTAssertEqual(f.error.code, .ambiguous)
            XCTAssertEqual(f.json?["candidates"]?.arrayValue?.count, 2)
        }
        XCTAssertEqual(try lib.db.scalarInt("SELECT count(*) FROM notes"), notesBefore)
        // The more specific line settles it.
        let n = try e.capture("Note about Meditations on First Philosophy: the cogito")
        XCTAssertEqual(n["book_title"]?.stringValue, "Meditations on First Philosophy")
        // Unknown book for a quote: a clear error, or --create.
        XCTAssertThrowsError(try e.capture("\"Fear is the mind-killer\" - Dune, p. 8")) { error in
            XCTAssertTrue(((error as? CaptureFailure)?.error.message ?? "").contains("--create"))
        }
        e = try engine(create: true)
        XCTAssertEqual(try e.capture("\"Fear is the mind-killer\" - Dune, p. 8")["book_title"]?.stringValue, "Dune")
        // Progress sets the reading position used by ib-search and ib-ask.
        _ = try e.capture("on page 120 of Meditations")
        XCTAssertEqual(try lib.book(id: q["book_id"]!.stringValue!)?.currentPage, 120)
        // Plan: pages per day.
        let plan = try e.capture("Plan: finish Meditations and Sapiens by 2026-12-01")
        XCTAssertEqual(plan["days_left"]?.intValue, 10)
        XCTAssertEqual(plan["pages_left"]?.intValue, (254 - 120) + (443 - 20))
        XCTAssertEqual(plan["pages_per_day"]?.intValue, 56)
        // Next day: more reading, a streak of two.
        let e2 = try engine("2026-11-23T09:00:00Z")
        _ = try e2.capture("read 60 pages of Sapiens")
        let s = try StatusReport.build(e2.store!, today: Day(year: 2026, month: 11, day: 23)!, privateMode: true)
        XCTAssertEqual(s["version"]?.intValue, 1)
        XCTAssertEqual(s["book"]?["title"]?.stringValue, "Sapiens")
        XCTAssertEqual(s["book"]?["page"]?.intValue, 80)
        XCTAssertEqual(s["book"]?["percent"]?.doubleValue, 18.1)   // 80 of 443
        XCTAssertEqual(s["pages_today"]?.intValue, 60)
        XCTAssertEqual(s["streak_days"]?.intValue, 2)
        XCTAssertEqual(s["quote"]?["text"], .null)
        XCTAssertEqual(s["note"]?["text"], .null)
        XCTAssertEqual(s["note"]?["hidden"]?.boolValue, true)
        XCTAssertEqual(s["plans"]?.arrayValue?.first?["on_track"]?.boolValue, true)
        let w = StatusReport.waybar(s)
        for key in ["text", "tooltip", "class", "percentage"] { XCTAssertNotNil(w[key], key) }
        XCTAssertEqual(w["percentage"]?.intValue, 18)
        // Progress events are append-only.
        XCTAssertEqual(try lib.db.scalarInt("SELECT count(*) FROM progress_events WHERE kind IN ('page', 'pages')"), 3)
        // The quote of the day: the same all day, and over a month not always the same one.
        for text in ["Alpha one", "Beta two", "Gamma three", "Delta four", "Epsilon five"] {
            _ = try e2.capture("\"\(text)\" - Sapiens, p. 30")
        }
        func quote(_ day: Day) throws -> Int? {
            try StatusReport.build(e2.store!, today: day, privateMode: false)["quote"]?["id"]?.intValue
        }
        let day = Day(year: 2026, month: 11, day: 23)!
        XCTAssertNotNil(try quote(day))
        XCTAssertEqual(try quote(day), try quote(day))
        let month = try (0..<30).map { try quote(day.adding(days: $0)) }
        XCTAssertGreaterThan(Set(month.compactMap { $0 }).count, 1, "the quote changes from day to day")
    }

    func testExportAndReadwiseRoundTrip() throws {
        let e = try engine(create: true)
        _ = try e.capture("Reading Meditations by Marcus Aurelius")
        _ = try e.capture("Quote p. 47: \"Waste no more time, arguing\" #stoicism")
        _ = try e.capture("Note on p. 48: \"quoted\" words, and commas")
        let out = OutputStream(fd: -1)
        _ = out
        let groups = try Exporter.groups(e.store!)
        XCTAssertEqual(groups.count, 1)
        XCTAssertEqual(groups[0].items.count, 2)
        // Write CSV to a file, import it into a fresh library.
        let csvPath = dir + "/export.csv"
        let fd = open(csvPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let stream = OutputStream(fd: fd)
        try Exporter.export(e.store!, format: "csv", to: stream)
        stream.flush(); close(fd)
        let rows = Exporter.parseCSV(try FileSystem.readText(csvPath))
        XCTAssertEqual(rows[0], ["Highlight", "Title", "Author", "Note", "Location", "Location Type", "Date"])
        XCTAssertEqual(rows[1][0], "Waste no more time, arguing")
        XCTAssertEqual(rows[1][4], "47")
        let other = CaptureStore(library: try Library.open(path: dir + "/other.db"))
        let (n, skipped) = try Exporter.importCSV(other, path: csvPath, now: "2026-11-22T10:00:00Z")
        XCTAssertEqual(n, 2); XCTAssertEqual(skipped, 0)
        let again = try Exporter.importCSV(other, path: csvPath, now: "2026-11-22T10:00:00Z")
        XCTAssertEqual(again.0, 0); XCTAssertEqual(again.1, 2)
        XCTAssertEqual(try other.library.db.scalarText("SELECT tags FROM quotes"), "[\"stoicism\"]")
        XCTAssertEqual(try other.library.db.scalarInt("SELECT count(*) FROM notes"), 1)
        for f in ["/export.csv", "/other.db", "/other.db-wal", "/other.db-shm"] { _ = unlink(dir + f) }
    }
}

/// Random lines built from the parser's own vocabulary: it must never trap.
final class ParserFuzzTests: XCTestCase {
    func testRandomLinesNeverCrash() {
        let pieces = ["Quote", "Note", "p.", "p", "pp.", "page", "47", "-", "–", "—", ":", "：", "\"", "“", "”", "'", "「", "」", "《", "》",
                      "（", "）", "(", ")", "第", "页", "章", "读了", "读到", "读完了", "计划", "前", "by", "Friday", "2027-01-31", "of",
                      "Meditations", "reading", "finished", "read", "pages", "#tag", "#", "?", "？", "chapter", "ch.", "3", "0", "99999999999",
                      "十", "二十", "百分之", "%", "50%", "Plan:", "and", "、", "和", " ", " ", " ", "…", "...", "\t", "é", "🙂", "-5", "1/31",
                      "end of month", "月底", "下周五", "in 99999 months", "in 9999 years", "in 9999999999999 days", "99999999天后", "九千个月后", "Dec 31 9999", "want to read", "Started", "摘录", "笔记", "问题", "正在读", "想读", "halfway"]
        var seed: UInt64 = 0x9E3779B97F4A7C15
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(seed >> 33)
        }
        let parser = CaptureParser(today: Day(year: 2026, month: 11, day: 22)!)
        var intents: [String: Int] = [:]
        for _ in 0..<6000 {
            var line = ""
            for _ in 0..<(1 + next() % 9) { line += pieces[next() % pieces.count] + (next() % 3 == 0 ? " " : "") }
            intents[parser.parse(line).intent.rawValue, default: 0] += 1
        }
        // Random scalars: ASCII, Latin-1, CJK, full-width, emoji, combining marks.
        let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x17F, 0x300...0x36F, 0x3000...0x303F, 0x4E00...0x4E80, 0xFF01...0xFF5E, 0x1F600...0x1F64F]
        let matcher = TitleMatcherTests.matcher()
        for _ in 0..<2000 {
            var line = ""
            for _ in 0..<(next() % 40) {
                let r = ranges[next() % ranges.count]
                line.unicodeScalars.append(Unicode.Scalar(r.lowerBound + UInt32(next() % Int(r.upperBound - r.lowerBound + 1)))!)
            }
            intents[parser.parse(line).intent.rawValue, default: 0] += 1
            _ = matcher.match(line)
        }
        print("fuzz intents: \(intents)")
        XCTAssertEqual(intents.values.reduce(0, +), 8000)
    }
}
