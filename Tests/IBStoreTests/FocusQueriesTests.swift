import XCTest
import IBCore
@testable import IBStore

/// FocusQueries: the full-text hits of several chunk ranges from one FTS5 query
/// are those of one query a range, concatenated: the same chunks, the same
/// scores bit for bit, each range cut to its own LIMIT, overlapping ranges
/// each keeping their own copy, the page limit and the chunk range applied as
/// the single query applies them.
extension LibraryTests {
    /// Three books of 40 chunks (20 pages) whose texts draw on a small vocabulary,
    /// so that scores vary with each word's count and each chunk's length (the
    /// searched words in about a third of the chunks each: their IDF counts).
    func storeBooksOfVariedChunks() throws -> [String] {
        let vocabulary = ["whale", "ship", "sea", "captain", "harpoon", "harpooneer", "deck", "storm", "night", "white"]
            + (1...30).map { "filler\($0)" }
        var g = Generator(state: 42)
        var ids: [String] = []
        for n in 1...3 {
            let records = Self.book(n, chunks: 40).map { record -> Record in
                guard case .chunk(var chunk) = record else { return record }
                let count = Int.random(in: 3...30, using: &g)
                chunk.text = (0..<count).map { _ in vocabulary.randomElement(using: &g)! }.joined(separator: " ")
                return .chunk(chunk)
            }
            try store(records)
            ids.append(bookID(records))
        }
        return ids
    }

    /// phraseChunks lists a phrase's few chunks unranked, and ranks only when
    /// there are more than `limit`: the same set as the `limit` best by bm25,
    /// whatever the scope (the library, books, page limits), with or without
    /// some of its words asked for first.
    func testPhraseChunksAreTheBestRankedOnes() throws {
        let ids = try storeBooksOfVariedChunks()
        let library = try Library.open(path: dbPath)
        let words = ["whale", "ship", "sea", "captain", "harpoon", "deck", "storm", "night", "white", "filler3", "filler17"]
        var g = Generator(state: 11)
        var few = 0, many = 0
        for _ in 0..<300 {
            let phrase = (0..<Int.random(in: 1...3, using: &g)).map { _ in words.randomElement(using: &g)! }.joined(separator: " ")
            let scope: SearchScope? = Bool.random(using: &g) ? nil : SearchScope(ids.filter { _ in Bool.random(using: &g) }.map {
                .init(id: $0, lastPage: Bool.random(using: &g) ? nil : Int.random(in: 1...20, using: &g))
            })
            let limit = [1, 2, 10].randomElement(using: &g)!
            let ranked = try library.fullTextCandidates(match: "\"\(phrase)\"", concepts: nil, in: scope, limit: limit).map(\.ref)
            let got = try library.phraseChunks(phrase, in: scope, limit: limit)
            XCTAssertEqual(Set(got), Set(ranked), "\(phrase) in \(String(describing: scope)) limit \(limit)")
            XCTAssertEqual(got.count, ranked.count)
            // Some of its words, asked for together first, change nothing.
            let some = phrase.split(separator: " ").map(String.init).filter { _ in Bool.random(using: &g) }
            XCTAssertEqual(Set(try library.phraseChunks(phrase, in: scope, limit: limit, containing: some)), Set(ranked),
                           "\(phrase) containing \(some) in \(String(describing: scope)) limit \(limit)")
            if try library.fullTextMatches(match: "\"\(phrase)\"", in: scope, limit: 1000).count > limit { many += 1 } else { few += 1 }
        }
        // Words no chunk holds together: the phrase itself is not looked up.
        XCTAssertFalse(try library.phraseChunks("whale", in: nil, limit: 10).isEmpty)
        XCTAssertEqual(try library.phraseChunks("whale", in: nil, limit: 10, containing: ["whale", "zzz"]), [])
        XCTAssertGreaterThan(few, 30, "phrases in few chunks (listed)")
        XCTAssertGreaterThan(many, 30, "phrases in many chunks (ranked)")
    }

    /// exactDocumentCounts gives a plain word's count, the very count bm25() makes
    /// (rows matching the phrase), and leaves a prefix or a word with other
    /// characters to bm25().
    func testExactDocumentCountsAreWhatBM25Counts() throws {
        _ = try storeBooksOfVariedChunks()
        let library = try Library.open(path: dbPath)
        let words: [(word: String, prefix: Bool)] = [("whale", false), ("harpoon", true), ("filler3", false), ("zzz", false),
                                                     ("café", false), ("sea", false), ("night", false), ("two words", false)]
        let counts = try library.exactDocumentCounts(words)
        XCTAssertEqual(counts.count, words.count)
        for (word, count) in zip(words, counts) {
            if word.prefix || word.word == "café" || word.word == "two words" { XCTAssertNil(count, word.word); continue }
            let matched = try library.db.scalarInt("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", "\"\(word.word)\"")
            XCTAssertEqual(count, matched, word.word)
        }
        XCTAssertGreaterThan(counts[0] ?? 0, 10)
        XCTAssertEqual(counts[3], 0)
    }

    func testSeveralRangesInOneQueryFindWhatOneQueryARangeFinds() throws {
        let ids = try storeBooksOfVariedChunks()
        let library = try Library.open(path: dbPath)
        let queries: [(String, String?)] = [
            ("\"whale\" OR \"ship\"", nil),
            ("\"harpoon\"* OR \"storm\" OR \"sea\"", nil),
            ("\"captain\"", nil),
            ("\"whale\" OR \"harpoon\"* OR \"ship\"", "0:1 1:1 1:0.7"),
            ("\"night\" OR \"white\" OR \"deck\"", "0:1:12 1:1:30 2:0.5:7"),
        ]
        var g = Generator(state: 7)
        var overlapping = 0, cut = 0
        for (match, concepts) in queries {
            for _ in 0..<25 {
                let ranges = (0..<Int.random(in: 2...6, using: &g)).map { _ -> (bookID: String, chunks: ClosedRange<Int>, lastPage: Int?) in
                    let low = Int.random(in: 0...39, using: &g)
                    let high = min(39, low + Int.random(in: 0...20, using: &g))
                    return (ids.randomElement(using: &g)!, low...high, Bool.random(using: &g) ? nil : Int.random(in: 1...20, using: &g))
                }
                let limit = [1, 3, 8, 40].randomElement(using: &g)!
                let rows = concepts != nil && Bool.random(using: &g) ? 200 : nil
                var expected: [ChunkHit] = []
                for r in ranges {
                    expected += try library.fullTextCandidates(match: match, concepts: concepts, rows: rows, bookID: r.bookID,
                                                               chunks: r.chunks, lastPage: r.lastPage, limit: limit)
                }
                let got = try library.fullTextCandidates(match: match, concepts: concepts, rows: rows, ranges: ranges, limit: limit)
                func ordered(_ hits: [ChunkHit]) -> [ChunkHit] { hits.sorted { $0.score != $1.score ? $0.score < $1.score : $0.ref < $1.ref } }
                XCTAssertEqual(ordered(got), ordered(expected), "\(match) \(ranges) limit \(limit)")
                XCTAssertEqual(got.map(\.score.bitPattern).sorted(), expected.map(\.score.bitPattern).sorted())
                if Set(expected.map(\.ref)).count < expected.count { overlapping += 1 }
                if expected.count >= limit && limit < 40 { cut += 1 }
            }
        }
        XCTAssertGreaterThan(overlapping, 5, "ranges that share chunks were tried")
        XCTAssertGreaterThan(cut, 20, "ranges with more hits than their LIMIT were tried")
        XCTAssertEqual(try library.fullTextCandidates(match: "\"whale\"", concepts: nil, ranges: [], limit: 5), [])
    }
}
