// Synonyms in the full-text half: the thesaurus file (Thesaurus.swift), concepts
// (QueryConcepts.swift), the SQL function ib_concepts (Sources/CIBRank/ib_rank.c)
// and a search that finds a paraphrase through a synonym. The thesaurus here is
// a four-line fixture in the format of scripts/build-thesaurus.
import XCTest
import IBCore
import IBModel
import IBStore
@testable import IBSearch

final class ThesaurusTests: XCTestCase {
    static let fixture: String = {
        let root = String(#filePath.dropLast("Tests/IBSearchTests/ThesaurusTests.swift".count))
        return root + "shared/fixtures/thesaurus/mini.tsv"
    }()

    func thesaurus() throws -> Thesaurus { try XCTUnwrap(Thesaurus(path: Self.fixture), Self.fixture) }

    func testLookupFirstLastMiddleAndAbsent() throws {
        let t = try thesaurus()
        XCTAssertEqual(t.entry("forbearance"), ["patience", "longanimity"])
        XCTAssertEqual(t.entry("tress"), ["braid", "plait", "hair"])
        XCTAssertEqual(t.entry("holy person"), ["saint", "holy man"])
        XCTAssertEqual(t.entry("sever"), ["cut off", "separate"])
        for absent in ["", "a", "forbear", "forbearances", "holy", "zzz", "tres"] { XCTAssertNil(t.entry(absent), absent) }
        XCTAssertNil(Thesaurus(path: "/nonexistent/thesaurus.tsv"))
    }

    func testMalformedFilesNeverCrashALookup() throws {
        var template = Array("/tmp/ibsearch-thesaurus-bad-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        addTeardownBlock { _ = system("rm -rf '\(directory)'") }
        let cases: [String: [UInt8]] = [
            "no-final-newline": Array("alpha\tbeta\nomega\tzeta".utf8),
            "no-tab": Array("alpha\nomega\tzeta\n".utf8),
            "blank-lines": Array("\n\nalpha\tbeta\n\n\nomega\tzeta\n\n".utf8),
            "unsorted": Array("omega\tzeta\nalpha\tbeta\n".utf8),
            "binary": [0xFF, 0x00, 0x09, 0x0A, 0xFE, 0x09, 0x7C, 0x7C],
            "one-newline": [0x0A],
        ]
        for (name, bytes) in cases {
            let path = directory + "/" + name
            XCTAssertTrue(FileManagerShim.write(bytes, to: path), path)
            guard let t = Thesaurus(path: path) else { continue }
            for word in ["alpha", "omega", "", "zzz", "\u{FF}", "a"] { _ = t.synonyms(of: word) }
        }
        XCTAssertEqual(Thesaurus(path: directory + "/no-final-newline")?.entry("omega"), ["zeta"])
        XCTAssertNil(Thesaurus(path: directory + "/no-tab")?.entry("alpha"))
        // (Blank lines break the sort order, so lookups in such a file may miss; they must only not crash.)
    }

    func testInflectionsReachTheirBase() throws {
        let t = try thesaurus()
        XCTAssertEqual(t.synonyms(of: "tresses"), ["braid", "plait", "hair"])
        XCTAssertEqual(t.synonyms(of: "severed"), ["cut off", "separate"])
        XCTAssertEqual(t.synonyms(of: "severing"), ["cut off", "separate"])
        XCTAssertEqual(t.synonyms(of: "hair"), [])
    }

    func testConceptsGroupAWordWithItsSynonyms() throws {
        let concepts = QueryConcepts.build("a holy person sacrificed her tresses", thesaurus: try thesaurus())
        // holy, person, sacrific*, tress* (+ braid, plait, hair), then the phrase "holy person" (+ saint, holy man).
        XCTAssertEqual(concepts.map { $0.members.map(\.term.text) },
                       [["holy"], ["person"], ["sacrific"], ["tress", "braid", "plait", "hair"], ["holy person", "saint", "holy man"]])
        XCTAssertEqual(concepts[3].members.map(\.weight), [1, QueryConcepts.synonymWeight, QueryConcepts.synonymWeight, QueryConcepts.synonymWeight])
        let (expression, spec) = try XCTUnwrap(QueryConcepts.match(concepts))
        XCTAssertEqual(expression, #""holy" OR "person" OR "sacrific"* OR "tress"* OR "braid" OR "plait" OR "hair" OR "holy person" OR "saint" OR "holy man""#)
        XCTAssertEqual(spec, "0:1.0 1:1.0 2:1.0 3:1.0 3:0.7 3:0.7 3:0.7 4:1.0 4:0.7 4:0.7")
        // Without a thesaurus, one concept per term.
        XCTAssertEqual(QueryConcepts.build("her tresses", thesaurus: nil).map(\.members.count), [1])
        // Coverage: the word itself counts 1, a synonym 0.7.
        let one = [concepts[3]]
        XCTAssertEqual(SearchEngine.coverage("Her tresses were long.", concepts: one), 1, accuracy: 1e-9)
        XCTAssertEqual(SearchEngine.coverage("She cut her hair.", concepts: one), 0.7, accuracy: 1e-9)
        XCTAssertEqual(SearchEngine.coverage("The saint prayed.", concepts: [concepts[1], concepts[4]]), 0.35, accuracy: 1e-9)
    }

    /// A book of eight one-chunk pages; `marks` start units on the pages they key.
    func library(marks: [Int: StructureMark] = [:]) throws -> (Library, String) {
        var template = Array("/tmp/ibsearch-thesaurus-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        addTeardownBlock { _ = system("rm -rf '\(directory)'") }
        let library = try Library.open(path: directory + "/library.db")
        let sha = SHA256.hex("thesaurus book")
        let id = BookRecord.id(forSHA256: sha)
        let texts = [
            "The governess was told she must cut her chestnut hair quite short before she could take the post.",
            "A braid of rope hung from the mast, and the sailors plaited another while they waited for the wind.",
            "Her hair was dark. The hair of her sister was fair, and their mother kept her hair under a cap.",
            "Nobody in the village had seen the doctor since the fair.",
            "The train left the station at noon and reached the coast before dark.",
            "A letter arrived from the bank about the missing gold coins.",
            "The inspector examined the footprints in the garden with great care.",
            "Snow fell all night over the moor and covered the old road.",
        ]
        let indexer = Indexer(library: library)
        try indexer.add(.book(BookRecord(id: id, title: "Hair", authors: [], language: nil, format: "txt",
                                         source: "/t", sha256: sha, pageCount: texts.count)))
        for (i, text) in texts.enumerated() {
            var page = PageRecord(bookID: id, page: i + 1, text: text)
            if let mark = marks[i + 1] { page.extra["structure"] = .array([mark.json]) }
            try indexer.add(.page(page))
            try indexer.add(.chunk(ChunkRecord(bookID: id, index: i, startPage: i + 1, endPage: i + 1, startOffset: 0,
                                               endOffset: text.unicodeScalars.count, tokenCount: 20, text: text)))
        }
        try indexer.finish()
        return (library, id)
    }

    /// A chapter's whole title written with capitals and no quotation marks names
    /// it only when the dictionary knows its words (StructureFocus.wholeTitles): the
    /// engine hands the thesaurus's words to the focus, and without a thesaurus the
    /// same question names nothing.
    func testTheEngineNamesAWholeTitleByTheThesaurusWords() throws {
        let (library, id) = try library(marks: [1: StructureMark(at: 0, depth: 0, kind: "chapter", number: 1, title: "CHAPTER I. Morning"),
                                                5: StructureMark(at: 0, depth: 0, kind: "chapter", number: 2, title: "CHAPTER II. Sever the Tresses"),
                                                6: StructureMark(at: 0, depth: 0, kind: "chapter", number: 3, title: "CHAPTER III. Evening")])
        let engine = SearchEngine(library: library)
        let query = SearchQuery(text: "Who waited at the station, Sever the Tresses", k: 5, mode: .text)
        let references = QueryReferences.parse(query.text)
        let scope = SearchScope([.init(id: id, lastPage: nil)])
        engine.thesaurus = try thesaurus()
        let plan = try XCTUnwrap(try engine.focusPlan(query, references: references, scope: scope))
        XCTAssertEqual(plan.dictionaryWords, ["sever", "tresses"], "station and waited have no entry in the fixture")
        let focus = try engine.focus(query, references: references, scope: scope)
        XCTAssertEqual(focus.ranges.map(\.bookID), [id])
        XCTAssertEqual(focus.ranges.map(\.chunks), [4...4], "chapter II: page 5")
        engine.thesaurus = nil
        XCTAssertEqual(try engine.focusPlan(query, references: references, scope: scope)?.dictionaryWords ?? [], [])
        XCTAssertTrue(try engine.focus(query, references: references, scope: scope).isEmpty, "no dictionary, no whole title")
    }

    func testIbConceptsIsBM25PerConcept() throws {
        let (library, _) = try library()
        let db = library.db
        // One phrase per concept, weight 1: exactly -bm25().
        for row in try db.query("""
            SELECT ib_concepts(chunks_fts, '0:1 1:1') AS c, bm25(chunks_fts) AS b FROM chunks_fts
            WHERE chunks_fts MATCH '"hair" OR "sister"'
            """) {
            XCTAssertEqual(try XCTUnwrap(row.double("c")), -(try XCTUnwrap(row.double("b"))), accuracy: 1e-9)
        }
        // Two phrases in one concept count once, the better one (by weight x BM25).
        func score(_ match: String, _ spec: String, rowid: Int) throws -> Double {
            let rows = try db.query("SELECT rowid AS r, ib_concepts(chunks_fts, ?) AS s FROM chunks_fts WHERE chunks_fts MATCH ?", spec, match)
            return try XCTUnwrap(rows.first { $0.int("r") == rowid }?.double("s"))
        }
        let rowid = try XCTUnwrap(try db.scalarInt("SELECT seq FROM chunks WHERE chunk_index = 2"))
        let hair = try score(#""hair" OR "braid""#, "0:1 1:1", rowid: rowid)      // no braid in chunk 2
        let grouped = try score(#""hair" OR "sister""#, "0:1 0:0.5", rowid: rowid)
        let sister = try score(#""hair" OR "sister""#, "0:0 1:1", rowid: rowid)
        XCTAssertGreaterThan(hair, 0)
        XCTAssertEqual(grouped, max(hair, 0.5 * sister), accuracy: 1e-9)
        // Document counts given by the caller replace counting (n = 1 makes a rarer, higher-scoring term).
        XCTAssertGreaterThan(try score(#""hair""#, "0:1:1", rowid: rowid), hair)
        // A spec that does not name every phrase is an error, not a silent zero.
        for bad in ["0:1", "0:1 1:1 2:1", "x:1 0:1", "0:-1 0:1", "0:1:-3 1:1", "0:1junk 1:1"] {
            XCTAssertThrowsError(try db.query(#"SELECT ib_concepts(chunks_fts, ?) FROM chunks_fts WHERE chunks_fts MATCH '"hair" OR "sister"'"#, bad), bad)
        }
    }

    func testDocumentFrequenciesComeFromTheVocabulary() throws {
        let (library, _) = try library()
        func term(_ text: String, prefix: Bool = false) -> QueryTerm { QueryTerm(text: text, prefix: prefix, isCJK: false) }
        let counts = try SearchEngine.documentFrequencies(library, [
            term("hair"),                  // chunks 0 and 2
            term("plait", prefix: true),   // plaited, chunk 1
            term("fai", prefix: true),     // fair: chunks 2 and 3 (a prefix sums its words' counts)
            term("her hair"),              // a phrase: its rarest word's count
            term("sister"), term("zebra"),
        ])
        XCTAssertEqual(counts, [2, 1, 2, 2, 1, 0])
        // A prefix's range ends before the next string ("fair" < "fais"): a whole word as prefix counts itself.
        XCTAssertEqual(try SearchEngine.documentFrequencies(library, [term("fair", prefix: true), term("hai", prefix: true)]), [2, 2])
    }

    func testTextSearchFindsAParaphraseThroughASynonym() throws {
        let (library, _) = try library()
        let engine = SearchEngine(library: library)
        engine.thesaurus = nil
        let query = SearchQuery(text: "sacrifice her long tresses", k: 1, mode: .text)
        XCTAssertTrue(try engine.search(query).isEmpty, "no word of the query is in the book")
        engine.thesaurus = try thesaurus()
        let r = try engine.search(SearchQuery(text: query.text, k: 5, mode: .text))
        // hair (chunks 0 and 2), braid and plaited (chunk 1): every chunk with a synonym, none without.
        XCTAssertEqual(Set(r.map(\.chunkIndex)), [0, 1, 2], "\(r.map(\.text))")
        XCTAssertTrue(r.first { $0.chunkIndex == 0 }?.snippet.contains("«hair»") == true)
        // Chunk 1 has two synonyms of one word: they count once, so it does not beat
        // chunk 2 by having two (chunk 2 has hair three times).
        let score = Dictionary(uniqueKeysWithValues: r.map { ($0.chunkIndex, $0.score) })
        XCTAssertLessThan(try XCTUnwrap(score[1]), try XCTUnwrap(score[2]) * 2)
        // A large scope (above synonymScopeLimit) searches the words alone.
        engine.synonymScopeLimit = 2
        XCTAssertTrue(try engine.search(query).isEmpty)
        XCTAssertEqual(query.k, 1)
    }

    /// Hybrid's full-text half on its own thread and connection finds what the
    /// same search on the caller's connection finds, in a scope too; a half that
    /// cannot open the library reports nil (the caller then searches itself).
    func testTheParallelTextHalfFindsWhatTheSerialOneFinds() throws {
        let (library, id) = try library()
        let concepts = QueryConcepts.build("her long tresses", thesaurus: try thesaurus())
        var reader = Handoff(library: nil)
        let cases: [(SearchScope?, Bool)] = [(nil, false), (SearchScope([.init(id: id, lastPage: 2)]), false),
                                             (SearchScope([.init(id: id, lastPage: 2)]), true), (nil, false)]
        for (scope, bookStatistics) in cases {
            let serial = try SearchEngine.textSearch(library, concepts, k: 5, scope: scope, commonFraction: 0.1, bookShare: bookStatistics ? 1 : 0)
            let phrases = ["her long tresses"]
            // Where the question points ("near the end": the last third of each book), worked out there too.
            let question = "who cut her hair near the end"
            let plan = FocusPlan(words: SearchEngine.plainWords(question), capitalised: StructureFocus.capitalisedWords(question),
                                 references: QueryReferences.parse(question), books: [id], known: [:])
            let parallel = ParallelText(path: library.path, reader: reader, concepts: concepts, words: [], expansion: nil, k: 5,
                                        scope: scope, commonFraction: 0.1, bookShare: bookStatistics ? 1 : 0, phrases: phrases, focus: plan)
            XCTAssertFalse(serial.isEmpty)
            XCTAssertEqual(parallel.wait()?.hits, serial)
            let focus = try SearchEngine.focus(plan, units: SearchEngine.structures([id], library: library), library: library)
            XCTAssertFalse(focus.isEmpty)
            XCTAssertEqual(parallel.wait()?.focus?.focus.ranges, focus.ranges, "the same focus as the engine's")
            XCTAssertEqual(parallel.wait()?.focus?.read.keys.sorted(), [id], "with the structure it read, for the engine to keep")
            let scored = try SearchEngine.scoredConcepts(library, concepts, scope: scope, commonFraction: 0.1, bookShare: bookStatistics ? 1 : 0)
            XCTAssertEqual(parallel.wait()?.scored?.concepts, scored.concepts, "the concepts as the focus's full-text list scores them")
            XCTAssertEqual(parallel.wait()?.scored?.rows, scored.rows)
            XCTAssertEqual(parallel.wait()?.quoted, try SearchEngine.phraseHits(library, phrases, scope: scope), "the quoted words, looked up there too")
            XCTAssertEqual(parallel.wait()?.concepts, concepts, "waiting again returns the same outcome")
            // The connection is handed back and reused by the next search.
            let next = parallel.reader()
            XCTAssertNotNil(next.library)
            if let previous = reader.library { XCTAssertTrue(previous === next.library, "the same connection again") }
            reader = next
        }
        let failed = ParallelText(path: "/nonexistent/library.db", reader: Handoff(library: nil), concepts: concepts, words: [], expansion: nil, k: 5,
                                  scope: nil, commonFraction: 0.1, bookShare: 0, phrases: [])
        XCTAssertNil(failed.wait())
    }
}

/// Writes bytes to a file (Glibc, to keep Foundation out of the test).
enum FileManagerShim {
    static func write(_ bytes: [UInt8], to path: String) -> Bool {
        guard let f = fopen(path, "wb") else { return false }
        defer { fclose(f) }
        return bytes.isEmpty || fwrite(bytes, 1, bytes.count, f) == bytes.count
    }
}
