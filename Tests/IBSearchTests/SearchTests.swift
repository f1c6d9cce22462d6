// ib-search's library on real SQLite files with the real model (all-MiniLM-L6-v2):
// query preprocessing, snippets, hybrid/text/vector search, CJK, and the
// no-spoiler page limits inside both scans.
import XCTest
import IBCore
import IBModel
import IBStore
@testable import IBSearch
#if canImport(Glibc)
import Glibc
#endif

final class QueryTextTests: XCTestCase {
    func testTermsDropStopwordsAndStem() {
        let terms = QueryText.terms("What did Holmes observe about the stepfather's spectacles?")
        XCTAssertEqual(terms.map(\.text), ["holm", "observ", "stepfath", "spectacl"])
        XCTAssertTrue(terms.allSatisfy(\.prefix))
        XCTAssertEqual(QueryText.terms("the hat").map(\.text), ["hat"])
        XCTAssertFalse(QueryText.terms("the hat")[0].prefix)
        // Only stopwords: they are kept rather than searching for nothing.
        XCTAssertEqual(QueryText.terms("to be or not to be").map(\.text), ["to", "be", "or", "not"])
    }

    func testCJKBecomesBigrams() {
        let terms = QueryText.terms("福尔摩斯的推理")
        XCTAssertEqual(terms.map(\.text), ["福尔", "尔摩", "摩斯", "斯的", "的推", "推理"])
        XCTAssertTrue(terms.allSatisfy(\.isCJK))
        XCTAssertEqual(QueryText.terms("猫").first, QueryTerm(text: "猫", prefix: true, isCJK: true))
    }

    func testMatchExpressionQuotesEverything() {
        let e = QueryText.matchExpression(QueryText.terms("speckled \"band\" NEAR( OR AND*"))
        XCTAssertEqual(e, "\"speckl\"* OR \"band\" OR \"near\"")   // "or" and "and" are stopwords
        XCTAssertNil(QueryText.matchExpression([]))
    }

    func testSnippetMarksTermsAndCuts() {
        let words = (1...100).map { "w\($0)" }.joined(separator: " ")
        let text = words + " the speckled band!\nIt was the   band. " + words
        let s = Snippet.make(text, terms: QueryText.terms("speckled bands"), words: 12)
        XCTAssertTrue(s.contains("«speckled» «band»"), s)
        XCTAssertTrue(s.hasPrefix("…") && s.hasSuffix("…"), s)
        XCTAssertFalse(s.contains("\n"))
        let cjk = Snippet.make("我们在伦敦的贝克街见面。", terms: QueryText.terms("贝克街"))
        XCTAssertEqual(cjk, "我们在伦敦的«贝克街»见面。")
        XCTAssertEqual(Snippet.make("no match here", terms: QueryText.terms("zebra")), "no match here")
    }
}

final class SearchEngineTests: XCTestCase {
    nonisolated(unsafe) static var encoder: SentenceEncoder?
    var directory = ""

    override func setUp() {
        var template = Array("/tmp/ibsearch-test-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    override func tearDown() {
        _ = system("rm -rf '\(directory)'")
    }

    func model() throws -> SentenceEncoder {
        if let e = Self.encoder { return e }
        let dir = Config.modelDirectory()
        guard FileSystem.isDirectory(dir) else { throw XCTSkip("no model at \(dir): run scripts/fetch-model") }
        let e = try SentenceEncoder(directory: dir)
        Self.encoder = e
        return e
    }

    // Passages with their pages; chunk 3 spans pages 5-6.
    static let english: [(start: Int, end: Int, text: String)] = [
        (1, 1, "Mr. Sherlock Holmes sat at breakfast in Baker Street and read the morning paper with great care."),
        (2, 3, "The governess was told she must cut her chestnut hair quite short before she could take the post."),
        (3, 4, "A great goose was bought at the market for Christmas, and a brilliant blue stone was found in its crop."),
        (5, 6, "The speckled band was a swamp adder, the deadliest snake in India, sent through the ventilator."),
        (6, 6, "The engineer lost his thumb when he escaped from the hydraulic press in the old house."),
        (7, 8, "Watson observed that the banker had brought the beryl coronet as security for a loan of fifty thousand pounds."),
    ]
    static let chinese: [(start: Int, end: Int, text: String)] = [
        (1, 1, "清晨的集市上人来人往，卖菜的老人把新鲜的白菜摆得整整齐齐。"),
        (2, 2, "侦探在雨夜里仔细检查了花园里的脚印，发现凶手穿着一双很旧的皮靴。"),
        (3, 3, "图书馆的管理员每天下午都会给孩子们讲一个关于月亮和兔子的故事。"),
    ]

    func records(_ title: String, _ authors: [String], _ passages: [(start: Int, end: Int, text: String)], encoder: SentenceEncoder) -> [Record] {
        let sha = SHA256.hex(title)
        let id = BookRecord.id(forSHA256: sha)
        let pageCount = passages.map(\.end).max()!
        var out: [Record] = [.book(BookRecord(id: id, title: title, authors: authors, language: nil, format: "txt",
                                              source: "/books/\(title)", sha256: sha, pageCount: pageCount))]
        for p in 1...pageCount {
            out.append(.page(PageRecord(bookID: id, page: p, label: "\(p + 10)", text: "page \(p)")))
        }
        let vectors = encoder.embed(passages.map(\.text))
        for (i, p) in passages.enumerated() {
            var chunk = ChunkRecord(bookID: id, index: i, startPage: p.start, endPage: p.end, startOffset: 0, endOffset: 0,
                                    tokenCount: 10, text: p.text)
            chunk.embedding = vectors[i]
            chunk.model = encoder.modelID
            out.append(.chunk(chunk))
        }
        return out
    }

    func makeLibrary() throws -> (Library, SearchEngine, english: String, chinese: String) {
        let encoder = try model()
        let library = try Library.open(path: directory + "/library.db")
        let indexer = Indexer(library: library)
        let en = records("The Adventures of Sherlock Holmes", ["Arthur Conan Doyle"], Self.english, encoder: encoder)
        let zh = records("侦探故事集", ["无名氏"], Self.chinese, encoder: encoder)
        for r in en + zh { try indexer.add(r) }
        try indexer.finish()
        func id(_ rs: [Record]) -> String { if case .book(let b) = rs[0] { return b.id }; return "" }
        let engine = SearchEngine(library: library, encoder: encoder)
        engine.thesaurus = nil   // whatever thesaurus this machine has installed; ThesaurusTests use a fixture
        return (library, engine, id(en), id(zh))
    }

    func texts(_ results: [SearchResult]) -> [String] { results.map(\.text) }

    /// The Sherlock Holmes passages after a licence page (chunk 0) that names the book and
    /// its author; `chapterFrom` puts a chapter's mark on that page, so that the licence
    /// lies before the book's first unit.
    func licensedEngine(_ name: String, chapterFrom page: Int? = nil) throws -> SearchEngine {
        let encoder = try model()
        let library = try Library.open(path: directory + "/\(name).db")
        let indexer = Indexer(library: library)
        let licence = "The Project Gutenberg eBook of The Adventures of Sherlock Holmes, by Arthur Conan Doyle. This eBook is for the use of anyone anywhere at no cost; see www.gutenberg.org for the licence."
        let passages = [(start: 1, end: 1, text: licence)] + Self.english.map { (start: $0.start + 1, end: $0.end + 1, text: $0.text) }
        for var record in records("The Adventures of Sherlock Holmes", ["Arthur Conan Doyle"], passages, encoder: encoder) {
            if case .page(var p) = record, p.page == page {
                p.extra["structure"] = .array([StructureMark(at: 0, depth: 0, kind: "chapter", number: 1, title: "CHAPTER I").json])
                record = .page(p)
            }
            try indexer.add(record)
        }
        try indexer.finish()
        let engine = SearchEngine(library: library, encoder: encoder)
        engine.thesaurus = nil
        return engine
    }

    /// A licence page holds the book's title and author, which questions name; full
    /// text ranks it first, hybrid puts it after the book's own text, unless the
    /// question asks about the edition.
    func testHybridPutsThePublishersPagesAfterTheBook() throws {
        let engine = try licensedEngine("matter")
        let question = "The Adventures of Sherlock Holmes by Arthur Conan Doyle"
        XCTAssertEqual(try engine.search(SearchQuery(text: question, k: 3, mode: .text)).first?.chunkIndex, 0, "full text: the licence first")
        let hybrid = try engine.search(SearchQuery(text: question, k: 7, mode: .hybrid))
        XCTAssertEqual(hybrid.first?.chunkIndex, 1)
        XCTAssertEqual(hybrid.last?.chunkIndex, 0, "after every passage of the book")
        let edition = try engine.search(SearchQuery(text: "who published this ebook of Sherlock Holmes by Conan Doyle", k: 3, mode: .hybrid))
        XCTAssertEqual(edition.first?.chunkIndex, 0, "a question about the edition keeps it")
    }

    /// An engine over one book of `passages` whose pages in `marks` start a unit (no thesaurus).
    func engine(_ name: String, _ title: String, _ authors: [String], _ passages: [(start: Int, end: Int, text: String)],
                marks: [Int: StructureMark]) throws -> SearchEngine {
        let encoder = try model()
        let library = try Library.open(path: directory + "/\(name).db")
        let indexer = Indexer(library: library)
        for var record in records(title, authors, passages, encoder: encoder) {
            if case .page(var p) = record, let mark = marks[p.page] {
                p.extra["structure"] = .array([mark.json])
                record = .page(p)
            }
            try indexer.add(record)
        }
        try indexer.finish()
        let engine = SearchEngine(library: library, encoder: encoder)
        engine.thesaurus = nil
        return engine
    }

    /// A question naming a book's author points at that book in a search of
    /// several (AuthorNames): "Thoreau" is in no chunk of either book, and the
    /// manual's passage holds more of the question's words. A word of an
    /// author's name that the other book's text holds more ("Henry", a carpenter
    /// there) names nothing, and one book's scope is left as it is.
    func testAQuestionNamingAnAuthorPointsAtTheirBook() throws {
        let encoder = try model()
        let library = try Library.open(path: directory + "/authors.db")
        let indexer = Indexer(library: library)
        let walden = records("Walden", ["Henry David Thoreau"], [
            (1, 1, "I drove the nails home and clinched them on the other side, so that the boards would hold fast."),
            (2, 2, "The pond was frozen over by the middle of December, and the ice rang when we walked on it."),
            (3, 3, "Beans grew in long rows in the field behind the house, and I hoed them every morning."),
        ], encoder: encoder)
        let manual = records("The Carpenter's Manual", ["Abel Brown"], [
            (1, 1, "Driving nails so they hold: drive every nail firmly and clinch it on the far side of the board."),
            (2, 2, "Henry kept his hammers in a box by the door, and Henry sharpened the saws on Saturdays."),
            (3, 3, "Henry measured the timber twice before he cut it, as every good carpenter does."),
        ], encoder: encoder)
        for r in walden + manual { try indexer.add(r) }
        try indexer.finish()
        func id(_ rs: [Record]) -> String { if case .book(let b) = rs[0] { return b.id }; return "" }
        let engine = SearchEngine(library: library, encoder: encoder)
        engine.thesaurus = nil
        func first(_ question: String, books: [String]? = nil) throws -> String? {
            var query = SearchQuery(text: question, k: 3, mode: .hybrid)
            query.books = books
            return try engine.search(query).first?.bookID
        }
        XCTAssertEqual(try first("driving nails so they hold"), id(manual), "without the author, the closer passage")
        XCTAssertEqual(try first("Thoreau on driving nails so they hold"), id(walden), "the author names the book")
        XCTAssertEqual(try engine.booksNamedByAuthor("Thoreau on driving nails so they hold", scope: nil), [id(walden)])
        XCTAssertEqual(try engine.booksNamedByAuthor("Henry on driving nails", scope: nil), [], "Henry is the manual's carpenter")
        XCTAssertEqual(try library.wordCountsByBook("hénry", limit: 200), [id(manual): 2], "counted as the index folds it")
        XCTAssertEqual(try engine.booksNamedByAuthor("thoreau on driving nails", scope: nil), [], "a name is written with a capital")
        XCTAssertEqual(try engine.booksNamedByAuthor("Thoreau on driving nails", scope: SearchScope([.init(id: id(manual), lastPage: nil)])), [],
                       "one book's scope")
        XCTAssertEqual(try first("Thoreau on driving nails so they hold", books: [id(manual)]), id(manual))
        engine.authorWeight = 0
        XCTAssertEqual(try first("Thoreau on driving nails so they hold"), id(manual), "it is the author's name that does it")
    }

    /// The editor's note on a passage holds its words and its subject, and full text
    /// and the vector both rank it first; hybrid puts it after the book's own text,
    /// unless the question asks about the notes.
    func testHybridPutsTheEditorsNotesAfterTheBook() throws {
        let note = "Note on the speckled band: the swamp adder, the deadliest snake in India, sent through the ventilator, "
            + "is no real snake; no swamp adder of India climbs a bell-rope to a ventilator or answers a whistle."
        let engine = try engine("notes", "The Adventures of Sherlock Holmes", ["Arthur Conan Doyle"], Self.english + [(start: 9, end: 9, text: note)],
                                marks: [1: StructureMark(at: 0, depth: 0, kind: "chapter", number: 1, title: "CHAPTER I"),
                                        9: StructureMark(at: 0, depth: 0, title: "Endnotes")])
        let question = "the swamp adder, the deadliest snake in India, sent through the ventilator"
        XCTAssertEqual(try engine.search(SearchQuery(text: question, k: 3, mode: .text)).first?.chunkIndex, 6, "full text: the note first")
        XCTAssertEqual(try engine.search(SearchQuery(text: question, k: 3, mode: .vector)).first?.chunkIndex, 6, "vector: the note first")
        let hybrid = try engine.search(SearchQuery(text: question, k: 7, mode: .hybrid))
        XCTAssertEqual(hybrid.first?.chunkIndex, 3, "the passage itself")
        XCTAssertEqual(hybrid.last?.chunkIndex, 6, "after every passage of the book")
        XCTAssertEqual(hybrid.last?.section, ["Endnotes"])
        let asked = try engine.search(SearchQuery(text: "the editor's note on the swamp adder, the deadliest snake in India", k: 7, mode: .hybrid))
        XCTAssertEqual(asked.first?.chunkIndex, 6, "a question about the notes keeps them")
    }

    /// A play's cast list names every character a question names; when the chunker
    /// has joined the imprint's last lines to it (Hamlet's "Dramatis Personae"), it
    /// is the publisher's page and goes after the play's own text in hybrid. A cast
    /// list without licence words stays where it ranks.
    func testHybridPutsACastListHoldingTheImprintAfterThePlay() throws {
        let cast = "You can download this and other ebooks carefully produced for true book lovers at standardebooks.org. "
            + "Dramatis Personae. Claudius, King of Denmark. Hamlet, son to the former King. Polonius, Lord Chamberlain. "
            + "Laertes, son to Polonius. Gertrude, Queen of Denmark. Ophelia, daughter to Polonius."
        let plainCast = "Dramatis Personae. Claudius, King of Denmark. Hamlet, son to the former King. Polonius, Lord Chamberlain. "
            + "Laertes, son to Polonius. Gertrude, Queen of Denmark. Ophelia, daughter to Polonius."
        let scenes: [(start: Int, end: Int, text: String)] = [
            (2, 2, "King: Laertes, will you be ruled by me? I will work him to an exploit, now ripe in my device, under the which "
                + "he shall not choose but fall; and for his death no wind of blame shall breathe, but even his mother shall uncharge the practice."),
            (3, 3, "Horatio: The ghost walked again upon the platform at midnight, in the same figure, like the King that is dead."),
        ]
        let question = "Claudius tells Laertes of a plan to kill Hamlet so that even Gertrude will call it an accident"
        for (name, text, moved) in [("cast-imprint", cast, true), ("cast-plain", plainCast, false)] {
            let engine = try engine(name, "Hamlet", ["William Shakespeare"], [(start: 1, end: 1, text: text)] + scenes,
                                    marks: [1: StructureMark(at: 0, depth: 0, title: "Dramatis Personae"),
                                            2: StructureMark(at: 0, depth: 0, kind: "act", number: 4, title: "Act IV")])
            XCTAssertEqual(try engine.search(SearchQuery(text: question, k: 3, mode: .text)).first?.section, ["Dramatis Personae"],
                           "\(name): full text ranks the cast list first")
            let hybrid = try engine.search(SearchQuery(text: question, k: 3, mode: .hybrid))
            if moved {
                XCTAssertEqual(hybrid.last?.section, ["Dramatis Personae"], "\(name): after the play's own text")
            } else {
                XCTAssertNotEqual(hybrid.last?.section, ["Dramatis Personae"], "\(name): a cast list alone stays where it ranks")
            }
        }
    }

    /// An edition's introduction, marked as front matter (kind "introduction"),
    /// retells the book's events in a modern voice and names its author, where
    /// the diary says "I": hybrid ranks it after the diary's own text, unless the
    /// question names the introduction or a word of its title other than the
    /// book's own ("Pepys").
    func testHybridPutsTheEditorsIntroductionAfterTheBook() throws {
        let passages: [(start: Int, end: Int, text: String)] = [
            (1, 1, "Particulars of the Life of Samuel Pepys. When the Great Fire of London came in 1666, Pepys buried his wine "
                + "and a Parmesan cheese in a pit in the garden at Seething Lane, and carried his money and his diary away by boat."),
            (2, 2, "Up betimes, and to the office, where we sat all the morning about the business of the Navy and the victualling of the fleet."),
            (3, 3, "Sir W. Pen and I to Tower Street, and there dug another pit, and put our wine in it; and I my Parmazan cheese, "
                + "as well as my wine and some other things, the fire still raging in the City."),
            (4, 4, "To the King's playhouse, and saw a new play, very indifferently acted, and so home to supper and to bed."),
        ]
        let engine = try engine("intro", "The Diary of Samuel Pepys", ["Samuel Pepys"], passages,
                                marks: [1: StructureMark(at: 0, depth: 0, kind: "introduction", title: "Particulars of the Life of Samuel Pepys"),
                                        2: StructureMark(at: 0, depth: 0, title: "September 1666")])
        let question = "What did Pepys bury in the garden during the Great Fire of London, besides his wine?"
        XCTAssertEqual(try engine.search(SearchQuery(text: question, k: 4, mode: .text)).first?.chunkIndex, 0, "full text: the introduction first")
        let hybrid = try engine.search(SearchQuery(text: question, k: 4, mode: .hybrid))
        XCTAssertEqual(hybrid.first?.chunkIndex, 2, "the diary's own day")
        XCTAssertEqual(hybrid.last?.chunkIndex, 0, "after every passage of the diary")
        for asked in ["In the introduction, what did Pepys bury in the garden during the Great Fire?",
                      "In the Particulars of his life, what did Pepys bury during the Great Fire of London?"] {
            XCTAssertEqual(try engine.search(SearchQuery(text: asked, k: 4, mode: .hybrid)).first?.chunkIndex, 0, asked)
        }
    }

    /// A plain text's Project Gutenberg header lies before its first chapter, in no
    /// unit: in a book with structure too, its licence words make it the publisher's.
    func testHybridPutsALicenceBeforeTheFirstUnitAfterTheBook() throws {
        let engine = try licensedEngine("header", chapterFrom: 2)
        let hybrid = try engine.search(SearchQuery(text: "The Adventures of Sherlock Holmes by Arthur Conan Doyle", k: 7, mode: .hybrid))
        XCTAssertEqual(hybrid.first?.section, ["CHAPTER I"])
        XCTAssertEqual(hybrid.last?.chunkIndex, 0, "after every passage of the book")
    }

    /// An engine that searches many times (ib-mcp's, `ib-search --queries`)
    /// keeps each book's structure, until the library changes: a book indexed
    /// again with other sections, by another connection, is read afresh.
    func testAWarmEngineSeesABookIndexedAgain() throws {
        let encoder = try model()
        let path = directory + "/warm.db"
        func indexed(_ titles: [String]) throws -> String {
            var records = self.records("The Adventures of Sherlock Holmes", ["Arthur Conan Doyle"], Self.english, encoder: encoder)
            for (i, record) in records.enumerated() {
                guard case .page(var page) = record, page.page == 1 || page.page == 5 else { continue }
                let mark = StructureMark(at: 0, depth: 1, kind: "chapter", title: titles[page.page == 1 ? 0 : 1])
                page.extra["structure"] = .array([mark.json])
                records[i] = .page(page)
            }
            let writer = try Library.open(path: path)
            let indexer = Indexer(library: writer)
            indexer.replace = true   // ib-index --replace: the same book stored again
            for r in records { try indexer.add(r) }
            try indexer.finish()
            if case .book(let b) = records[0] { return b.id }
            return ""
        }
        let id = try indexed(["A Scandal in Bohemia", "The Speckled Band"])
        let engine = SearchEngine(library: try Library.open(path: path), encoder: encoder)
        engine.thesaurus = nil
        _ = try engine.search(SearchQuery(text: "the snake in the ventilator", k: 3, mode: .hybrid))
        XCTAssertEqual(try engine.structure(id).map(\.title), ["A Scandal in Bohemia", "The Speckled Band"])
        _ = try engine.search(SearchQuery(text: "the snake in the ventilator", k: 3, mode: .hybrid))
        XCTAssertEqual(try engine.structure(id).map(\.title), ["A Scandal in Bohemia", "The Speckled Band"], "unchanged: kept")
        XCTAssertEqual(try indexed(["The Red-Headed League", "The Copper Beeches"]), id)
        _ = try engine.search(SearchQuery(text: "the snake in the ventilator", k: 3, mode: .hybrid))
        XCTAssertEqual(try engine.structure(id).map(\.title), ["The Red-Headed League", "The Copper Beeches"], "read again")
    }

    func testHybridFindsParaphrase() throws {
        let (_, engine, en, _) = try makeLibrary()
        for mode in SearchMode.allCases {
            let r = try engine.search(SearchQuery(text: "venomous serpent", k: 2, mode: mode, candidates: 10))
            if mode == .text { XCTAssertTrue(r.isEmpty, "no shared word: \(texts(r))"); continue }
            XCTAssertEqual(r.first?.chunkIndex, 3, "\(mode): \(texts(r))")
            XCTAssertEqual(r.first?.bookID, en)
        }
        let r = try engine.search(SearchQuery(text: "who cut her hair short", k: 1, mode: .hybrid))
        XCTAssertEqual(r.first?.chunkIndex, 1)
        XCTAssertEqual(r.first?.startLabel, "12")
        XCTAssertEqual(r.first?.endLabel, "13")
        XCTAssertTrue(r.first?.snippet.contains("«hair»") == true, r.first?.snippet ?? "")
        XCTAssertEqual(r.first?.textRank, 1)
        XCTAssertNotNil(r.first?.vectorRank)
        XCTAssertNotNil(r.first?.fusedScore)
    }

    func testUnsegmentedChineseQuery() throws {
        let (_, engine, _, zh) = try makeLibrary()
        for mode in [SearchMode.text, .hybrid] {
            // Not a substring of the passage: the words are in another order.
            let r = try engine.search(SearchQuery(text: "侦探检查脚印", k: 1, mode: mode))
            XCTAssertEqual(r.first?.bookID, zh, "\(mode)")
            XCTAssertEqual(r.first?.chunkIndex, 1, "\(mode)")
            XCTAssertTrue(r.first?.snippet.contains("«侦探»") == true, r.first?.snippet ?? "")
        }
    }

    func testChunkSpanningPagesIsHiddenUntilItsLastPage() throws {
        let (library, engine, en, _) = try makeLibrary()
        for mode in SearchMode.allCases {
            let at5 = try engine.search(SearchQuery(text: "speckled band swamp adder snake", books: [en], pageLimit: .page(5), k: 10, mode: mode))
            XCTAssertFalse(at5.contains { $0.chunkIndex == 3 }, "\(mode) leaked pages 5-6 at page 5")
            XCTAssertTrue(at5.allSatisfy { $0.endPage <= 5 })
            let at6 = try engine.search(SearchQuery(text: "speckled band swamp adder snake", books: [en], pageLimit: .page(6), k: 10, mode: mode))
            XCTAssertEqual(at6.first?.chunkIndex, 3, "\(mode)")
        }
        // The reading position applies by default, and .none lifts it.
        try library.setPage(bookID: en, page: 5)
        for mode in SearchMode.allCases {
            let r = try engine.search(SearchQuery(text: "speckled band swamp adder", k: 10, mode: mode))
            XCTAssertFalse(r.contains { $0.bookID == en && $0.endPage > 5 }, "\(mode)")
            let all = try engine.search(SearchQuery(text: "speckled band swamp adder", pageLimit: .none, k: 10, mode: mode))
            XCTAssertTrue(all.contains { $0.chunkIndex == 3 && $0.bookID == en }, "\(mode)")
        }
    }

    func testFilterInsideTheScanStillReturnsK() throws {
        let (_, engine, en, _) = try makeLibrary()
        // Three chunks end on or before page 4; all three come back, whatever the query's nearest chunks are.
        for mode in [SearchMode.vector, .hybrid] {
            let r = try engine.search(SearchQuery(text: "hydraulic press engineer thumb", books: [en], pageLimit: .page(4), k: 3, mode: mode, candidates: 3))
            XCTAssertEqual(Set(r.map(\.chunkIndex)), [0, 1, 2], "\(mode)")
        }
    }

    /// A library at `name` with one book whose page i + 1 is texts[i], one chunk per
    /// page, embedded with windows by `encoder`. Returns the library and the book id.
    func windowedLibrary(_ name: String, _ texts: [String], encoder: SentenceEncoder) throws -> (Library, String) {
        let library = try Library.open(path: directory + "/" + name)
        let sha = SHA256.hex(name)
        let id = BookRecord.id(forSHA256: sha)
        let indexer = Indexer(library: library)
        try indexer.add(.book(BookRecord(id: id, title: name, authors: [], language: nil, format: "txt",
                                         source: "/" + name, sha256: sha, pageCount: texts.count)))
        for (i, text) in texts.enumerated() { try indexer.add(.page(PageRecord(bookID: id, page: i + 1, text: text))) }
        for (i, embedded) in encoder.embedWithWindows(texts).enumerated() {
            var chunk = ChunkRecord(bookID: id, index: i, startPage: i + 1, endPage: i + 1, startOffset: 0,
                                    endOffset: texts[i].unicodeScalars.count, tokenCount: 10, text: texts[i])
            chunk.embedding = embedded.vector
            chunk.windows = embedded.windows
            chunk.model = encoder.modelID
            try indexer.add(.chunk(chunk))
        }
        try indexer.finish()
        return (library, id)
    }

    func testWindowsRescoreAChunkByItsBestSentence() throws {
        let encoder = try model()
        let texts = [
            // A dictionary-like chunk: the answer is one sentence among unrelated ones.
            "The baker kneaded the heavy dough long before dawn, shaped it into round loaves, dusted them with flour and left them to rise slowly beside the warm brick oven while the kitchen filled with the smell of yeast. "
                + "Astronomers at the mountain observatory pointed their great telescope at a faint distant comet, measured its glowing tail night after night and argued about the orbit that had carried it across the winter sky. "
                + "The old lighthouse keeper rowed his small boat out through the roaring storm, reached the wreck on the rocks and pulled the drowning sailors one by one from the broken ship before the waves could take them. "
                + "A committee of tired accountants argued for hours about the interest rates, the quarterly dividends and the misprinted tables in the annual banking report until the chairman finally closed the meeting.",
            "Fishing boats rest in the harbour while gulls circle over the quiet grey water of the bay.",
        ]
        let (library, id) = try windowedLibrary("windows.db", texts, encoder: encoder)
        XCTAssertEqual(try library.windows(bookID: id).keys.sorted(), [0], "only the long chunk has windows")
        let engine = SearchEngine(library: library, encoder: encoder)
        let query = SearchQuery(text: "the keeper of the lighthouse saved shipwrecked seamen in a gale", k: 2, mode: .vector)
        let withWindows = try engine.search(query)
        engine.rescoreByWindows = false
        let without = try engine.search(query)
        let d1 = try XCTUnwrap(withWindows.first { $0.chunkIndex == 0 }?.vectorDistance)
        let d0 = try XCTUnwrap(without.first { $0.chunkIndex == 0 }?.vectorDistance)
        XCTAssertLessThan(d1, d0 - 0.03, "the lighthouse window must score the chunk closer than its whole-chunk vector")
        XCTAssertEqual(withWindows.first?.chunkIndex, 0)
        // The short chunk has no windows and keeps its own distance.
        XCTAssertEqual(withWindows.first { $0.chunkIndex == 1 }?.vectorDistance ?? -1,
                       without.first { $0.chunkIndex == 1 }?.vectorDistance ?? -2, accuracy: 1e-9)
    }

    func testScanningEveryWindowFindsAParagraphBehindNearerChunks() throws {
        let encoder = try model()
        // Chunk 0 holds the answer as one paragraph among unrelated ones, so its own
        // vector is diluted; chunks 1-3 are about the sea and nearer as wholes.
        let texts = [
            "The baker kneaded the heavy dough long before dawn, shaped it into round loaves and left them to rise beside the warm brick oven.\n\n"
                + "Astronomers at the mountain observatory pointed their great telescope at a faint distant comet and argued about its orbit.\n\n"
                + "The old lighthouse keeper rowed his small boat out through the roaring storm and pulled the drowning sailors one by one from the broken ship.\n\n"
                + "A committee of tired accountants argued for hours about the interest rates and the misprinted tables in the annual banking report.",
            "Fishing boats rest in the harbour while gulls circle over the quiet grey water of the bay.",
            "A gale drove the waves against the cliffs, and the coastguard watched the sea all night from the tower.",
            "Sailors mended their nets on the quay while the tide came in over the rocks beside the lighthouse.",
        ]
        let (library, id) = try windowedLibrary("scan.db", texts, encoder: encoder)
        let engine = SearchEngine(library: library, encoder: encoder)
        engine.thesaurus = nil
        // One candidate deep: the k-nearest search returns a sea chunk, never chunk 0.
        let query = SearchQuery(text: "the keeper of the lighthouse saved shipwrecked seamen in a storm", k: 1, mode: .vector, candidates: 1)
        engine.windowScanLimit = 0
        let candidatesOnly = try engine.search(query)
        XCTAssertNotEqual(candidatesOnly.first?.chunkIndex, 0, "chunk 0's own vector must rank below a sea chunk for this test to mean anything")
        engine.windowScanLimit = 5_000
        let scanned = try engine.search(query)
        XCTAssertEqual(scanned.first?.chunkIndex, 0, "the scan must find the lighthouse paragraph's window")
        // A page limit applies to the scan too.
        let limited = try engine.search(SearchQuery(text: query.text, pageLimit: .page(0), k: 1, mode: .vector, candidates: 1))
        XCTAssertTrue(limited.isEmpty || limited.first?.chunkIndex != 0)
        let hidden = try engine.search(SearchQuery(text: query.text, books: [id], pageLimit: .page(3), k: 4, mode: .vector))
        XCTAssertTrue(hidden.allSatisfy { $0.endPage <= 3 })
        XCTAssertTrue(try engine.search(SearchQuery(text: query.text, books: [id], pageLimit: .page(3), k: 4, mode: .vector))
            .contains { $0.chunkIndex == 0 })
    }

    func testTopScoresKeepsTheBestAndBreaksTiesByEarlierChunk() {
        var generator = SystemRandomNumberGenerator()
        for capacity in [1, 3, 40] {
            var top = TopScores(capacity: capacity)
            var all: [(seq: Int, score: Float)] = []
            for seq in 0..<500 {
                let score = Float(Int.random(in: 0..<50, using: &generator)) / 10   // many ties
                all.append((seq, score))
                top.offer(seq, score)
            }
            let expected = all.sorted { $0.score != $1.score ? $0.score > $1.score : $0.seq < $1.seq }.prefix(capacity)
            let got = top.items.sorted { $0.score != $1.score ? $0.score > $1.score : $0.seq < $1.seq }
            XCTAssertEqual(got.map(\.seq), expected.map(\.seq), "capacity \(capacity)")
        }
        var few = TopScores(capacity: 5)
        few.offer(7, 0.5); few.offer(3, 0.9)
        XCTAssertEqual(Set(few.items.map(\.seq)), [3, 7])
    }

    func testCoverageCountsWordsAndCJKCharacters() {
        func coverage(_ text: String, _ query: String) -> Double {
            SearchEngine.coverage(text, concepts: QueryConcepts.build(query, thesaurus: nil))
        }
        let words = "detective examines footprints"
        XCTAssertEqual(coverage("The detective examined the footprint.", words), 1, accuracy: 1e-9)
        XCTAssertEqual(coverage("The detective left.", words), 1.0 / 3, accuracy: 1e-9)
        // 侦探检查脚印: the bigrams 探检 and 查脚 cross words; a passage with 侦探, 检查 and 脚印 has every character.
        XCTAssertEqual(coverage("侦探仔细检查了地上的脚印。", "侦探检查脚印"), 1, accuracy: 1e-9)
        XCTAssertEqual(coverage("侦探走了。", "侦探检查脚印"), 2.0 / 6, accuracy: 1e-9)
        XCTAssertEqual(coverage("没有。", "侦探检查脚印"), 0, accuracy: 1e-9)
    }

    func testNothingFound() throws {
        let (_, engine, _, _) = try makeLibrary()
        XCTAssertTrue(try engine.search(SearchQuery(text: "xylophone quasar", k: 5, mode: .text)).isEmpty)
        XCTAssertTrue(try engine.search(SearchQuery(text: "!!!", k: 5, mode: .text)).isEmpty)
    }

    func testBooksQuotesAndNotes() throws {
        let (library, engine, en, zh) = try makeLibrary()
        XCTAssertEqual(try engine.searchBooks("sher hol").first?.book.id, en)
        XCTAssertEqual(try engine.searchBooks("conan").first?.book.id, en)
        XCTAssertEqual(try engine.searchBooks("侦探").first?.book.id, zh)
        XCTAssertEqual(try engine.searchBooks("Adventurs of Sherlok").first?.book.id, en)   // typos: fuzzy
        XCTAssertTrue(try engine.searchBooks("zebra").isEmpty)
        try library.db.run("INSERT INTO quotes (book_id, text, page, created_at) VALUES (?, 'You see, but you do not observe.', 12, '2026-01-01T00:00:00Z')", en)
        try library.db.run("INSERT INTO notes (book_id, text, page, kind, created_at) VALUES (?, 'Why does Holmes keep the photograph?', 20, 'question', '2026-01-01T00:00:00Z')", en)
        let q = try engine.searchNotes("observing", kind: .quote)
        XCTAssertEqual(q.first?.text, "You see, but you do not observe.")
        XCTAssertTrue(q.first?.snippet.contains("«observe»") == true)
        XCTAssertEqual(try engine.searchNotes("photographs", kind: .note).first?.noteKind, "question")
        XCTAssertTrue(try engine.searchNotes("photograph", kind: .note, books: [zh]).isEmpty)
    }

    func testRenderJSON() throws {
        let (_, engine, _, _) = try makeLibrary()
        let r = try engine.search(SearchQuery(text: "goose blue stone", pageLimit: .none, k: 1, mode: .hybrid))
        let json = Render.json(r[0], explain: true)
        XCTAssertEqual(json["type"]?.stringValue, "result")
        XCTAssertEqual(json["chunk_id"]?.stringValue, r[0].chunkID)
        XCTAssertEqual(json["start_page"]?.intValue, 3)
        for key in ["rank", "score", "book_id", "title", "end_page", "text", "snippet", "vector_rank", "text_rank", "fused_score"] {
            XCTAssertNotNil(json[key], key)
        }
        XCTAssertNil(Render.json(r[0], explain: false)["vector_rank"])
    }
}
