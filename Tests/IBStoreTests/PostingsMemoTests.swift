// PostingsMemo against FTS5: a connection that keeps postings in memory
// ranks every query (plain words, prefixes, phrases; bm25() and ib_concepts
// with and without given document counts and scope rows; the whole library,
// a book up to a page, two books) to the same hits with the same scores, bit
// for bit, as a connection that asks FTS5, the first time and from memory;
// still so after another connection adds or deletes a book; and within a
// budget too small for every phrase.
import IBCore
@testable import IBStore
import XCTest

extension LibraryTests {
    static let sampleBooks: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/shared/fixtures/books"
    }()

    /// A book whose chunks are the paragraphs of a sample book (three to a page).
    func paragraphBook(_ n: Int, file: String, limit: Int = 400) throws -> [Record] {
        let text = try FileSystem.readText(Self.sampleBooks + "/" + file)
        let paragraphs = text.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { $0.count > 40 }.prefix(limit)
        let sha = SHA256.hex("paragraphs \(n) \(file)")
        let id = BookRecord.id(forSHA256: sha)
        let pages = (paragraphs.count + 2) / 3
        var records: [Record] = [.book(BookRecord(id: id, title: "\(file) \(n)", authors: ["Ann Author"], language: "en", format: "txt",
                                                  source: "/books/\(n)-\(file)", sha256: sha, pageCount: pages))]
        for p in 1...pages {
            let own = paragraphs.dropFirst((p - 1) * 3).prefix(3).joined(separator: "\n\n")
            records.append(.page(PageRecord(bookID: id, page: p, label: String(p), sectionIndex: 0, sectionTitle: "Chapter", text: own)))
        }
        var offset = 0
        for (i, paragraph) in paragraphs.enumerated() {
            let page = i / 3 + 1
            if i % 3 == 0 { offset = 0 }
            let length = paragraph.unicodeScalars.count
            records.append(.chunk(ChunkRecord(bookID: id, index: i, startPage: page, endPage: page, startOffset: offset,
                                              endOffset: offset + length, tokenCount: 50, text: paragraph)))
            offset += length + 2
        }
        return records
    }

    /// Queries as ib-search makes them: (phrases, concepts spec or nil, scope rows).
    func postingsQueries(_ library: Library, count: Int) throws -> [(phrases: [String], spec: String?, rows: Int?)] {
        let statement = try library.db.prepare("SELECT text FROM chunks_fts WHERE rowid % 37 = 0 LIMIT ?1")
        defer { statement.reset() }
        try statement.bind(1, count)
        var texts: [String] = []
        while try statement.step() { texts.append(statement.text(0)) }
        var g = Generator(state: 42)
        var out: [(phrases: [String], spec: String?, rows: Int?)] = []
        for (n, text) in texts.enumerated() {
            let words = text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init).filter { $0.count > 2 }
            guard words.count >= 4 else { continue }
            var phrases: [String] = []
            for (i, word) in words.prefix(8).enumerated() {
                switch i % 4 {
                case 1 where word.count > 5: phrases.append("\"\(word.prefix(4))\"*")
                case 3 where i + 1 < words.count: phrases.append("\"\(word) \(words[i + 1])\"")
                default: phrases.append("\"\(word)\"")
                }
            }
            phrases += ["\"the\"", "\"zzzqx\""]   // a word in most rows, and one in none
            switch n % 3 {
            case 0: out.append((phrases, nil, nil))
            default:
                // Concepts of one to three phrases, weighted 1 then 0.7, some counts given.
                var spec: [String] = [], concept = 0, member = 0
                for _ in phrases {
                    let documents = Int.random(in: 0...3, using: &g) == 0 ? ":\(Int.random(in: 1...500, using: &g)).5" : ""
                    spec.append("\(concept):\(member == 0 ? "1" : "0.7")\(documents)")
                    member += 1
                    if member > Int.random(in: 0...2, using: &g) { concept += 1; member = 0 }
                }
                out.append((phrases, spec.joined(separator: " "), n % 3 == 2 ? 900 : nil))
            }
        }
        return out
    }

    func assertSameRanking(_ plain: Library, _ memo: Library, _ queries: [(phrases: [String], spec: String?, rows: Int?)],
                           scopes: [SearchScope?], _ message: String) throws {
        var compared = 0
        for (i, query) in queries.enumerated() {
            let scope = scopes[i % scopes.count]
            let k = [1, 5, 10, 40, 300][i % 5]
            let expression = query.phrases.joined(separator: " OR ")
            let documents: [Int?]? = query.spec == nil && scope == nil
                ? try plain.exactDocumentCounts(query.phrases.map { (String($0.dropFirst().prefix(while: { $0 != "\"" })), $0.hasSuffix("*")) })
                : nil
            let expected = try plain.fullTextCandidates(match: expression, concepts: query.spec, rows: query.rows, in: scope, limit: k,
                                                        documents: documents)
            for round in 0..<2 {
                let got = try memo.fullTextCandidates(match: expression, concepts: query.spec, rows: query.rows, in: scope, limit: k,
                                                      documents: documents, phrases: query.phrases)
                XCTAssertEqual(got.map(\.ref), expected.map(\.ref), "\(message): rows of \(expression) k=\(k) round \(round)")
                XCTAssertEqual(got.map(\.score.bitPattern), expected.map(\.score.bitPattern), "\(message): scores of \(expression) round \(round)")
                XCTAssertEqual(got.map(\.bookID), expected.map(\.bookID))
                XCTAssertEqual(got.map(\.index), expected.map(\.index))
            }
            compared += expected.isEmpty ? 0 : 1
        }
        XCTAssertGreaterThan(compared, queries.count / 2, "\(message): most queries find something")
    }

    func testPostingsInMemoryRankAsFTS5Does() throws {
        let sherlock = try paragraphBook(1, file: "sherlock.txt"), again = try paragraphBook(2, file: "sherlock.txt")
        let dictionary = try paragraphBook(3, file: "devils-dictionary.txt")
        try store(sherlock + again + dictionary)
        let plain = try Library.open(path: dbPath)
        let memo = try Library.openForReading(path: dbPath)
        memo.keepPostings(megabytes: 64)
        let scopes: [SearchScope?] = [nil, SearchScope([.init(id: bookID(sherlock), lastPage: 60)]),
                                      SearchScope([.init(id: bookID(again), lastPage: nil), .init(id: bookID(dictionary), lastPage: 20)])]
        let queries = try postingsQueries(plain, count: 60)
        XCTAssertGreaterThan(queries.count, 30)
        try assertSameRanking(plain, memo, queries, scopes: scopes, "three books")
        XCTAssertGreaterThan(memo.postingsMemo?.phrases.count ?? 0, 100, "the phrases are kept")

        // Another connection deletes a book and adds one: the memo reads the library again.
        _ = try plain.delete(bookID: bookID(again))
        _ = try store(try paragraphBook(4, file: "devils-dictionary.txt", limit: 150))
        try assertSameRanking(plain, memo, queries, scopes: scopes, "after a delete and an add")

        // A budget below what the queries read: phrases are dropped, the ranking stays.
        let small = try Library.openForReading(path: dbPath)
        small.keepPostings(megabytes: 1)
        small.postingsMemo = PostingsMemo(budget: 60_000)
        try assertSameRanking(plain, small, queries, scopes: scopes, "a small budget")
        let memoBytes = (small.postingsMemo?.bytes ?? 0) + (small.postingsMemo?.rows?.bytes ?? 0)
        XCTAssertLessThanOrEqual(memoBytes, 60_000, "within the budget")
        XCTAssertNotNil(small.postingsMemo?.rows, "ranked from memory")

        // The ranker's memory let go after every ranking, and taken again from nothing.
        let unkept = try Library.openForReading(path: dbPath)
        unkept.postingsMemo = PostingsMemo(budget: 64 << 20, rankerBytes: 0)
        try assertSameRanking(plain, unkept, queries, scopes: scopes, "the ranker keeping nothing")

        // A budget the rows alone would fill: FTS5 ranks, and nothing is kept.
        let tiny = try Library.openForReading(path: dbPath)
        tiny.postingsMemo = PostingsMemo(budget: 20_000)
        try assertSameRanking(plain, tiny, Array(queries.prefix(10)), scopes: scopes, "a budget below the rows")
        XCTAssertEqual(tiny.postingsMemo?.usable, false)
        XCTAssertEqual(tiny.postingsMemo?.phrases.count, 0)
    }

    func testDocsizeVarints() {
        for (bytes, value) in [([0x05], 5), ([0x81, 0x00], 128), ([0x82, 0x2C], 300), ([0xFF, 0x7F], 16383), ([0x81, 0x80, 0x00], 16384)] {
            XCTAssertEqual(bytes.map(UInt8.init).withUnsafeBytes { Library.firstVarint($0) }, value, "\(bytes)")
        }
    }
}
