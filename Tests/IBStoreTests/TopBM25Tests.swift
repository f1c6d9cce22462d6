// ib_bm25 (Sources/CIBRank) against SQLite's own bm25(): over the paragraphs
// of the two sample books, each stored eight times (as the 100k benchmark
// library repeats its books, so that many scores tie), every query ordered
// by ib_bm25 with its LIMIT returns the same rows with the same scores, bit
// for bit, as the query ordered by bm25(); and it does skip rows.
import IBCore
@testable import IBStore
import XCTest

final class TopBM25Tests: XCTestCase {
    static let books: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/shared/fixtures/books"
    }()

    var directory = ""

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ib-topbm25-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// A table of the books' paragraphs, each stored `copies` times; returns the paragraphs.
    func makeTable(_ db: Database, copies: Int) throws -> [String] {
        var paragraphs: [String] = []
        for name in ["sherlock.txt", "devils-dictionary.txt"] {
            let text = try FileSystem.readText(Self.books + "/" + name)
            paragraphs += text.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { $0.count > 40 }
        }
        try db.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'unicode61 remove_diacritics 2')")
        let insert = try db.prepare("INSERT INTO t(text) VALUES (?)")
        try db.execute("BEGIN")
        for _ in 0..<copies {
            for p in paragraphs {
                insert.reset()
                try insert.bind(1, p)
                _ = try insert.step()
            }
        }
        try db.execute("COMMIT")
        return paragraphs
    }

    func ranked(_ db: Database, _ rank: String, _ match: String, _ k: Int) throws -> [(Int, UInt64)] {
        let statement = try db.prepare("SELECT rowid, \(rank) AS s FROM t WHERE t MATCH ?1 ORDER BY s, rowid LIMIT ?2")
        defer { statement.reset() }
        try statement.bind(1, match)
        try statement.bind(2, k)
        var out: [(Int, UInt64)] = []
        while try statement.step() { out.append((statement.int(0), statement.double(1).bitPattern)) }
        return out
    }

    func testTheSameRowsAndScoresAsBM25() throws {
        let db = try Database(path: directory + "/t.db")
        let paragraphs = try makeTable(db, copies: 8)
        var generator = SystemRandomNumberGenerator()
        var queries: [String] = []
        // Words of paragraphs, some as prefixes: common and rare words together, as ib-search ORs them.
        for i in stride(from: 0, to: paragraphs.count, by: max(1, paragraphs.count / 150)) {
            let words = paragraphs[i].lowercased().split(whereSeparator: { !$0.isLetter }).filter { $0.count > 2 }.prefix(9)
            guard !words.isEmpty else { continue }
            queries.append(words.map { $0.count > 6 ? "\"\($0.prefix(5))\"*" : "\"\($0)\"" }.joined(separator: " OR "))
        }
        queries += ["\"the\" OR \"holmes\"", "\"poker\"", "\"zzzz\" OR \"the\"", "\"what did the detective find\""]
        var skipped = 0
        for query in queries {
            let k = [1, 5, 10, 40, 200].randomElement(using: &generator)!
            let expected = try ranked(db, "bm25(t)", query, k)
            let got = try ranked(db, "ib_bm25(t, ?2)", query, k)
            XCTAssertEqual(got.map(\.0), expected.map(\.0), "rows of \(query) k=\(k)")
            XCTAssertEqual(got.map(\.1), expected.map(\.1), "scores of \(query) k=\(k)")
            skipped += try db.scalarInt("SELECT count(*) FROM (SELECT ib_bm25(t, 5) AS s FROM t WHERE t MATCH ?) WHERE s = 1.0", query) ?? 0
        }
        XCTAssertGreaterThan(queries.count, 100)
        XCTAssertGreaterThan(skipped, 1000, "rows that cannot make the top 5 are skipped")
    }

    func testAnotherLimitIsAnError() throws {
        let db = try Database(path: directory + "/t.db")
        _ = try makeTable(db, copies: 1)
        XCTAssertThrowsError(try ranked(db, "ib_bm25(t, 0)", "\"holmes\"", 5))
        XCTAssertThrowsError(try ranked(db, "ib_bm25(t, 'five')", "\"holmes\"", 5))
    }
}
