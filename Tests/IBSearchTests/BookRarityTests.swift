// BookRarity: in a one-book scope a word's IDF blends its rarity in the book
// and in the library. A real SQLite library of two books where the library's
// IDF alone (the ranking before) puts the passage 8th: the question's clue
// ("rosy") is common in the other book, its other word ("coffin") is on most
// pages of this one and nowhere else.
import XCTest
import IBCore
import IBStore
@testable import IBSearch

final class BookRarityTests: XCTestCase {
    /// Twenty words: the given ones, then filler.
    static func chunkText(_ words: [String]) -> String {
        (words + Array(repeating: "lorem", count: 20 - words.count)).joined(separator: " ")
    }

    /// Book A: chunk 0 holds "rosy" (the passage), chunks 1-3 "coffin" three
    /// times, 4-7 once, 8-9 neither. Book B: 40 chunks, half of them "rosy".
    func library() throws -> (Library, bookA: String) {
        var template = Array("/tmp/ibsearch-rarity-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        addTeardownBlock { _ = system("rm -rf '\(directory)'") }
        let library = try Library.open(path: directory + "/library.db")
        let a: [[String]] = [["rosy"]] + Array(repeating: ["coffin", "coffin", "coffin"], count: 3)
            + Array(repeating: ["coffin"], count: 4) + [[], []]
        let b: [[String]] = (0..<40).map { $0 % 2 == 0 ? ["rosy"] : [] }
        var ids: [String] = []
        let indexer = Indexer(library: library)
        for (name, book) in [("A", a), ("B", b)] {
            let sha = SHA256.hex("rarity book " + name)
            let id = BookRecord.id(forSHA256: sha)
            ids.append(id)
            try indexer.add(.book(BookRecord(id: id, title: name, authors: [], language: nil, format: "txt",
                                             source: "/" + name, sha256: sha, pageCount: book.count)))
            for (i, words) in book.enumerated() {
                let text = Self.chunkText(words)
                try indexer.add(.page(PageRecord(bookID: id, page: i + 1, text: text)))
                try indexer.add(.chunk(ChunkRecord(bookID: id, index: i, startPage: i + 1, endPage: i + 1, startOffset: 0,
                                                   endOffset: text.unicodeScalars.count, tokenCount: 20, text: text)))
            }
        }
        try indexer.finish()
        return (library, ids[0])
    }

    func rankOfPassage(_ engine: SearchEngine, book: String) throws -> Int? {
        let results = try engine.search(SearchQuery(text: "the rosy coffin", books: [book], pageLimit: .none, k: 10, mode: .text))
        return results.first { $0.chunkIndex == 0 }?.rank
    }

    func testTheBooksRarityLiftsTheQuestionsClue() throws {
        let (library, bookA) = try library()
        let engine = SearchEngine(library: library)
        engine.thesaurus = nil
        // The default: half the book's rarity. rosy 1.08 against coffin 0.88 (x1.57
        // for three times): 4th, below the three chunks with coffin three times.
        XCTAssertEqual(engine.bookIDFShare, 0.5)
        XCTAssertEqual(try rankOfPassage(engine, book: bookA), 4)
        // The library's alone (the ranking before): every chunk with coffin first.
        engine.bookIDFShare = 0
        XCTAssertEqual(try rankOfPassage(engine, book: bookA), 8)
        // The book's alone: coffin, on 7 of its 10 chunks, weighs nothing.
        engine.bookIDFShare = 1
        XCTAssertEqual(try rankOfPassage(engine, book: bookA), 1)
        // The whole library's scope has no book to blend with: the library's IDF.
        engine.bookIDFShare = 0.5
        let all = try engine.search(SearchQuery(text: "the rosy coffin", pageLimit: .none, k: 10, mode: .text))
        XCTAssertEqual(all.prefix(7).filter { $0.bookID == bookA && $0.chunkIndex != 0 }.count, 7)
    }

    func testTheBlendedCountGivesTheBlendedIDF() {
        let rarity = BookRarity(bookShare: 0.5, bookRows: 10, libraryRows: 50)
        for (inBooks, inLibrary) in [(1, 21), (7, 7), (0, 3), (10, 10), (1, 1), (5, 500)] {
            let blended = rarity.idf(inBooks: inBooks, inLibrary: inLibrary)
            let n = rarity.documents(inBooks: inBooks, inLibrary: inLibrary)
            XCTAssertTrue(n >= 0 && n <= 10, "\(n)")
            // Exact unless the blend is beyond what 10 rows can express (a count below 0).
            if n > 0 { XCTAssertEqual(BookRarity.idf(documents: n, rows: 10), blended, accuracy: 1e-9, "\(inBooks) \(inLibrary)") }
        }
        XCTAssertEqual(rarity.idf(inBooks: 1, inLibrary: 21), (log(9.5 / 1.5) + log(29.5 / 21.5)) / 2, accuracy: 1e-12)
        XCTAssertEqual(BookRarity(bookShare: 1, bookRows: 10, libraryRows: 50).idf(inBooks: 7, inLibrary: 7), 1e-6)
    }
}
