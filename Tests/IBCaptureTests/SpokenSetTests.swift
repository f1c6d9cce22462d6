// The measure of spoken capture (issue 31, part 3): every line of the frozen
// spoken set (shared/fixtures/voice/spoken-set.jsonl), as its transcript would
// read, is captured into a fresh copy of the set's test library (real SQLite
// files), and what was stored is compared with the expected record. The bar:
// at least 90% right and no wrong book, over the whole set and its held-out
// third. The audio side of the same measure is scripts/e2e/voice.sh.
import XCTest
import IBCore
import IBStore
@testable import IBCapture

final class SpokenSetTests: XCTestCase {
    static let fixtures = #filePath.replacingAll("Tests/IBCaptureTests/SpokenSetTests.swift", "shared/fixtures/voice/")
    var dir = ""
    var savedLanguage = Messages.current

    override func setUp() {
        var template = Array("/tmp/ib-capture-spoken-XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        savedLanguage = Messages.current
        Messages.current = .en
    }

    override func tearDown() {
        Messages.current = savedLanguage
        if let d = opendir(dir) {
            while let entry = readdir(d) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                if name != "." && name != ".." { _ = unlink(dir + "/" + name) }
            }
            closedir(d)
        }
        _ = rmdir(dir)
    }

    struct Line {
        var n: Int
        var said: String
        var expect: JSON
        var heldOut: Bool
    }

    static func spokenSet() throws -> [Line] {
        let text = try FileSystem.readText(fixtures + "spoken-set.jsonl")
        return try text.split(separator: "\n").map { raw in
            let o = try JSON.parse(String(raw))
            return Line(n: o["n"]?.intValue ?? 0, said: o["said"]?.stringValue ?? "", expect: o["expect"] ?? .null,
                        heldOut: o["held_out"]?.boolValue ?? false)
        }
    }

    /// 2026-11-28 at 10:00 plus `minute` minutes.
    static func options(_ minute: Int) -> CaptureOptions {
        var o = CaptureOptions()
        o.now = Timestamp.parse("2026-11-28T10:00:00Z")! + Double(minute * 60)
        o.today = Day(year: 2026, month: 11, day: 28)
        return o
    }

    /// A fresh library built from library.txt; returns its path.
    func library(_ name: String) throws -> String {
        let path = dir + "/" + name + ".db"
        let lines = try FileSystem.readText(Self.fixtures + "library.txt").split(separator: "\n")
            .map(String.init).filter { !$0.hasPrefix("#") && !TextClasses.trim($0).isEmpty }
        for (i, line) in lines.enumerated() {
            let store = try CaptureStore.open(path: path)
            if line.hasPrefix("new: ") {
                // "new: TITLE by AUTHOR, N pages": a second book of a title the library has.
                let c = CaptureParser(today: Self.options(i).today!).parse("Added " + line.dropFirst(5))
                _ = try store.createBook(title: c.book ?? "", author: c.author, pageCount: c.pageCount, now: "2026-11-28T09:00:00Z")
                continue
            }
            _ = try CaptureEngine(options: Self.options(i), store: store).capture(line)
        }
        return path
    }

    /// A copy of the test library, built once per test (the database and its write-ahead log, byte for byte).
    var template: String? = nil
    func copyOfTemplate(_ name: String) throws -> String {
        if template == nil { template = try library("template") }
        let path = dir + "/" + name + ".db"
        for suffix in ["", "-wal"] where FileSystem.exists(template! + suffix) {
            let bytes = try FileSystem.read(template! + suffix)
            let fd = open(path + suffix, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            XCTAssertEqual(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, bytes.count)
            close(fd)
        }
        return path
    }

    /// Rows the reader's records hold: a capture adds exactly one (or, for a book line, changes one state).
    static func rows(_ path: String) throws -> [String: Int] {
        let db = try Library.open(path: path).db
        var out: [String: Int] = [:]
        for t in ["quotes", "notes", "progress_events", "reading_plans", "books"] { out[t] = try db.scalarInt("SELECT count(*) FROM \(t)") ?? -1 }
        return out
    }

    static func normalized(_ s: String) -> String {
        let kept = s.lowercased().map { ($0.isLetter || $0.isNumber || $0 == "'" || $0 == "’") ? ($0 == "’" ? "'" : $0) : " " }
        return Text.words(String(kept)).joined(separator: " ")
    }

    enum Outcome: Equatable { case right, wrong(String), wrongBook(String) }

    /// What capturing `said` did, against the line's expectation.
    func outcome(_ line: Line, said: String) throws -> Outcome {
        let path = try copyOfTemplate("line\(line.n)")
        let before = try Self.rows(path)
        let engine = CaptureEngine(options: Self.options(30), store: try CaptureStore.open(path: path))
        var record: JSON? = nil
        var failure = ""
        do { record = try engine.capture(spoken: said) } catch let f as CaptureFailure { failure = f.error.message } catch { failure = "\(error)" }
        let after = try Self.rows(path)
        let e = line.expect
        let type = e["type"]?.stringValue ?? ""
        if type == "none" {
            if let record { return .wrongBook("stored \(record.serialized)") }
            return before == after ? .right : .wrongBook("rows changed: \(before) -> \(after)")
        }
        guard let r = record else { return .wrong("nothing stored: \(failure)") }
        // The book: "current" is Meditations, the library's current book.
        let expectedBook = e["book"]?.stringValue.map { $0 == "current" ? "Meditations" : $0 }
        let storedBook = r["book_title"]?.stringValue ?? r["title"]?.stringValue
        if type == "plan" {
            let titles = r["books"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
            let want = e["books"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if titles != want { return .wrongBook("plan books \(titles), expected \(want)") }
        } else if let expectedBook, storedBook != expectedBook {
            return .wrongBook("book \(storedBook ?? "nil"), expected \(expectedBook): \(r.serialized)")
        }
        let storedType = r["type"]?.stringValue ?? ""
        if storedType != type { return .wrong("type \(storedType), expected \(type)") }
        var problems: [String] = []
        func same(_ key: String, _ got: JSON?) {
            guard let want = e[key] else { return }
            if (got ?? .null) != want { problems.append("\(key) \((got ?? .null).serialized), expected \(want.serialized)") }
        }
        switch type {
        case "quote", "note", "question":
            same("page", r["page"])
            if let t = e["text"]?.stringValue, Self.normalized(r["text"]?.stringValue ?? "") != Self.normalized(t) {
                problems.append("text “\(r["text"]?.stringValue ?? "")”")
            }
            same("chapter", r["chapter"])
            same("tags", r["tags"])
            if e["tags"] == nil, r["tags"]?.arrayValue?.isEmpty == false { problems.append("tags \(r["tags"]!.serialized)") }
        case "progress":
            if e["page"] != nil { same("page", r["page"]) }
            if e["pages_read"] != nil { same("pages_read", r["pages_read"]) }
            if e["finished"] != nil { same("finished", r["finished"]) }
            if e["seconds"] != nil { same("seconds", r["seconds"]) }
        case "plan":
            same("due", r["due"])
            if e["daily_pages"] != nil { same("daily_pages", r["pages_per_day"]) }
        case "book":
            same("status", r["status"])
        default:
            problems.append("unknown expected type \(type)")
        }
        return problems.isEmpty ? .right : .wrong(problems.joined(separator: "; "))
    }

    struct Score { var right = 0, total = 0, wrongBooks = 0; var rate: Double { total == 0 ? 0 : Double(right) / Double(total) } }

    /// Scores every line (`form` turns the line as said into what is captured).
    func score(_ form: (String) -> String, label: String) throws -> (all: Score, heldOut: Score) {
        var all = Score(), held = Score()
        for line in try Self.spokenSet() {
            let o = try outcome(line, said: form(line.said))
            all.total += 1; if line.heldOut { held.total += 1 }
            switch o {
            case .right:
                all.right += 1; if line.heldOut { held.right += 1 }
            case .wrong(let why):
                print("spoken set [\(label)] \(line.n)\(line.heldOut ? " (held out)" : ""): “\(form(line.said))”: \(why)")
            case .wrongBook(let why):
                all.wrongBooks += 1; if line.heldOut { held.wrongBooks += 1 }
                print("spoken set [\(label)] \(line.n)\(line.heldOut ? " (held out)" : ""): WRONG BOOK “\(form(line.said))”: \(why)")
            }
        }
        print("spoken set [\(label)]: \(all.right)/\(all.total) right (\(Int((all.rate * 100).rounded()))%), \(all.wrongBooks) wrong books; "
              + "held out \(held.right)/\(held.total) (\(Int((held.rate * 100).rounded()))%), \(held.wrongBooks) wrong books")
        return (all, held)
    }

    func testTheSpokenSetIsStoredRight() throws {
        let lines = try Self.spokenSet()
        XCTAssertGreaterThanOrEqual(lines.count, 48)
        XCTAssertGreaterThanOrEqual(lines.filter(\.heldOut).count, lines.count / 3)
        let (all, held) = try score({ $0 }, label: "as said")
        XCTAssertEqual(all.wrongBooks, 0, "no wrong book, ever")
        XCTAssertGreaterThanOrEqual(all.rate, 0.9)
        XCTAssertGreaterThanOrEqual(held.rate, 0.9)
    }

    /// Whisper writes a sentence: a capital, a full stop. The same records must come out.
    func testTheSpokenSetAsWhisperPunctuatesIt() throws {
        let (all, held) = try score({ s in
            guard let f = s.first else { return s }
            let body = String(f).uppercased() + s.dropFirst()
            return body.last.map { ".?!".contains($0) } == true ? body : body + "."
        }, label: "capital and full stop")
        XCTAssertEqual(all.wrongBooks, 0, "no wrong book, ever")
        XCTAssertGreaterThanOrEqual(all.rate, 0.9)
        XCTAssertGreaterThanOrEqual(held.rate, 0.9)
    }
}
