// ib_bm25 and ib_concepts_top (Sources/CIBRank) against what they stand for:
// over the paragraphs of the two sample books, each stored eight times (as
// the 100k benchmark library repeats its books, so that many scores tie),
// every query ordered by ib_bm25 with its LIMIT (with each phrase's count
// given or not) returns the same rows with the same scores, bit for bit, as
// the query ordered by SQLite's bm25(), and
// every query ordered by ib_concepts_top those of -ib_concepts(); and both
// do skip rows.
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

    func ranked(_ db: Database, _ rank: String, _ match: String, _ k: Int, spec: String? = nil) throws -> [(Int, UInt64)] {
        let statement = try db.prepare("SELECT rowid, \(rank) AS s FROM t WHERE t MATCH ?1 ORDER BY s, rowid LIMIT ?2")
        defer { statement.reset() }
        try statement.bind(1, match)
        try statement.bind(2, k)
        if let spec { try statement.bind(3, spec) }
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
        for i in stride(from: 0, to: paragraphs.count, by: max(1, paragraphs.count / 50)) {
            // (String(...): split on a predicate of Characters gives ArraySlices, which interpolate as "["t", "h", "e"]".)
            let words = paragraphs[i].lowercased().split(whereSeparator: { !$0.isLetter }).map { String($0) }.filter { $0.count > 2 }.prefix(9)
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
            // Each phrase's count given (as ib-search's engine keeps them): the same again.
            let counts = try query.components(separatedBy: " OR ").map {
                try db.scalarInt("SELECT count(*) FROM t WHERE t MATCH ?", $0) ?? 0
            }
            // Some left to count ("-"), as ib-search leaves a prefix's.
            let given = try ranked(db, "ib_bm25(t, ?2, ?3)", query, k,
                                   spec: counts.map { Bool.random(using: &generator) ? "-" : String($0) }.joined(separator: " "))
            XCTAssertEqual(given.map(\.0), expected.map(\.0), "rows of \(query) k=\(k), counts given")
            XCTAssertEqual(given.map(\.1), expected.map(\.1), "scores of \(query) k=\(k), counts given")
            skipped += try db.scalarInt("SELECT count(*) FROM (SELECT ib_bm25(t, 5) AS s FROM t WHERE t MATCH ?) WHERE s = 1.0", query) ?? 0
        }
        XCTAssertGreaterThan(queries.count, 50)
        XCTAssertGreaterThan(skipped, 1000, "rows that cannot make the top 5 are skipped")
    }

    /// Queries as ib-search makes them: each word ORed with two or three
    /// "synonyms" (other words of the books), a concept each, weighted 1 and 0.7,
    /// some with the documents given and some over a scope's row count.
    func testTheSameRowsAndScoresAsConcepts() throws {
        let db = try Database(path: directory + "/t.db")
        let paragraphs = try makeTable(db, copies: 8)
        var generator = SystemRandomNumberGenerator()
        let vocabulary = Array(Set(paragraphs.joined(separator: " ").lowercased()
            .split(whereSeparator: { !$0.isLetter }).filter { $0.count > 3 }.map(String.init))).sorted()
        var skipped = 0, queries = 0
        for i in stride(from: 0, to: paragraphs.count, by: max(1, paragraphs.count / 40)) {
            let words = paragraphs[i].lowercased().split(whereSeparator: { !$0.isLetter }).map { String($0) }.filter { $0.count > 2 }.prefix(6)
            guard !words.isEmpty else { continue }
            var phrases: [String] = [], spec: [String] = []
            for (concept, word) in words.enumerated() {
                let synonyms = (0..<Int.random(in: 0...3, using: &generator)).map { _ in vocabulary.randomElement(using: &generator)! }
                for (j, member) in ([String(word)] + synonyms).enumerated() {
                    phrases.append(member.count > 6 ? "\"\(member.prefix(5))\"*" : "\"\(member)\"")
                    let documents = Bool.random(using: &generator) ? ":\(Int.random(in: 0...900, using: &generator))" : ""
                    spec.append("\(concept):\(j == 0 ? "1" : "0.7")\(documents)")
                }
            }
            let match = phrases.joined(separator: " OR "), weights = spec.joined(separator: " ")
            let k = [1, 5, 10, 40, 200].randomElement(using: &generator)!
            let rows = Bool.random(using: &generator) ? ", 5000" : ""
            let expected = try ranked(db, "-ib_concepts(t, ?3\(rows))", match, k, spec: weights)
            let got = try ranked(db, "ib_concepts_top(t, ?3, ?2\(rows))", match, k, spec: weights)
            XCTAssertEqual(got.map(\.0), expected.map(\.0), "rows of \(match) k=\(k)")
            XCTAssertEqual(got.map(\.1), expected.map(\.1), "scores of \(match) k=\(k)")
            skipped += try db.scalarInt("SELECT count(*) FROM (SELECT ib_concepts_top(t, ?2, 5) AS s FROM t WHERE t MATCH ?1) WHERE s = 1.0",
                                        match, weights) ?? 0
            queries += 1
        }
        XCTAssertGreaterThan(queries, 35)
        XCTAssertGreaterThan(skipped, 1000, "rows that cannot make the top 5 are skipped")
    }

    func testAnotherLimitIsAnError() throws {
        let db = try Database(path: directory + "/t.db")
        _ = try makeTable(db, copies: 1)
        XCTAssertThrowsError(try ranked(db, "ib_bm25(t, 0)", "\"holmes\"", 5))
        XCTAssertThrowsError(try ranked(db, "ib_bm25(t, 'five')", "\"holmes\"", 5))
        XCTAssertThrowsError(try ranked(db, "ib_bm25(t, 5, '3 4')", "\"holmes\"", 5), "a count for a phrase the MATCH lacks")
        XCTAssertThrowsError(try ranked(db, "ib_bm25(t, 5, '')", "\"holmes\"", 5), "no count")
        XCTAssertThrowsError(try ranked(db, "ib_bm25(t, 5, '-3')", "\"holmes\"", 5))
        XCTAssertThrowsError(try ranked(db, "ib_bm25(t, 5, '--')", "\"holmes\"", 5))
        XCTAssertThrowsError(try ranked(db, "ib_bm25(t, 5, 3)", "\"holmes\"", 5), "counts are text")
        XCTAssertThrowsError(try ranked(db, "ib_concepts_top(t, '0:1', 0)", "\"holmes\"", 5))
        XCTAssertThrowsError(try ranked(db, "ib_concepts_top(t, '0:1')", "\"holmes\"", 5))
        XCTAssertThrowsError(try ranked(db, "ib_concepts_top(t, '0:1 1:1', 5)", "\"holmes\"", 5), "a spec naming more phrases than the MATCH")
        XCTAssertThrowsError(try ranked(db, "ib_concepts_top(t, '0:1', 5, 0)", "\"holmes\"", 5))
        XCTAssertEqual(try ranked(db, "ib_concepts_top(t, '0:1', 5)", "\"holmes\"", 5).map(\.0),
                       try ranked(db, "-ib_concepts(t, '0:1')", "\"holmes\"", 5).map(\.0))
    }
}
