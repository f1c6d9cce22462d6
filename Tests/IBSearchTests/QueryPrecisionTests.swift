// The query is embedded in the library's precision (meta 'embedding_precision'):
// an int8 library's queries in int8, an fp32 library's (or one from before the
// precision was recorded) in fp32, whatever the encoder was set to. Real model,
// real SQLite files.
import XCTest
import IBCore
import IBModel
import IBStore
@testable import IBSearch
#if canImport(Glibc)
import Glibc
#endif

final class QueryPrecisionTests: XCTestCase {
    var directory = ""

    override func setUp() {
        var template = Array("/tmp/ibsearch-precision-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    override func tearDown() { _ = system("rm -rf '\(directory)'") }

    func encoder(_ precision: Precision) throws -> SentenceEncoder {
        let dir = Config.modelDirectory()
        guard FileSystem.isDirectory(dir) else { throw XCTSkip("no model at \(dir): run scripts/fetch-model") }
        return try SentenceEncoder(directory: dir, threads: 1, precision: precision)
    }

    static let passages = ["The speckled band was a swamp adder sent through the ventilator.",
                           "A brilliant blue stone was found in the crop of a Christmas goose."]

    /// A library of the two passages embedded by `embedder`, records marked with its precision.
    func library(_ name: String, embeddedBy embedder: SentenceEncoder, precision: String?) throws -> Library {
        let library = try Library.open(path: directory + "/\(name).db")
        let indexer = Indexer(library: library)
        let sha = SHA256.hex(name)
        let id = BookRecord.id(forSHA256: sha)
        try indexer.add(.book(BookRecord(id: id, title: name, authors: [], language: "en", format: "txt",
                                         source: "/books/\(name)", sha256: sha, pageCount: 1)))
        let page = Self.passages.joined(separator: " ")
        try indexer.add(.page(PageRecord(bookID: id, page: 1, text: page)))
        for (i, vector) in embedder.embed(Self.passages).enumerated() {
            var chunk = ChunkRecord(bookID: id, index: i, startPage: 1, endPage: 1, startOffset: 0, endOffset: page.unicodeScalars.count,
                                    tokenCount: 12, text: Self.passages[i], embedding: vector, model: embedder.modelID)
            chunk.precision = precision
            try indexer.add(.chunk(chunk))
        }
        try indexer.finish()
        return library
    }

    func testAnInt8LibrarysQueriesAreEmbeddedInInt8() throws {
        let int8 = try encoder(.int8)
        let query = "a snake came through the ventilator"
        let library = try library("int8", embeddedBy: int8, precision: "int8")
        let fp32 = try encoder(.fp32)
        let expectedFP32 = try XCTUnwrap(fp32.embed([query]).first)
        let engine = SearchEngine(library: library, encoder: fp32)
        let vector = try XCTUnwrap(engine.queryVector(query, required: true))
        XCTAssertEqual(fp32.precision, .int8, "the engine's encoder follows the library")
        XCTAssertEqual(vector, int8.embed([query]).first)
        XCTAssertNotEqual(vector, expectedFP32)
    }

    func testAnFP32LibrarysQueriesAreEmbeddedInFP32() throws {
        let fp32 = try encoder(.fp32)
        let query = "a stone in a goose"
        for (name, recorded) in [("fp32", true), ("old", false)] {
            let library = try library(name, embeddedBy: fp32, precision: nil)
            // A library made before precisions were recorded has no entry: fp32.
            if !recorded { try library.setMeta("embedding_precision", nil) }
            let int8 = try encoder(.int8)
            let engine = SearchEngine(library: library, encoder: int8)
            let vector = try XCTUnwrap(engine.queryVector(query, required: true))
            XCTAssertEqual(int8.precision, .fp32, name)
            XCTAssertEqual(vector, fp32.embed([query]).first, name)
        }
    }

    /// ib-search loads the model on another thread while it opens the library
    /// (ModelPreload): the engine takes that model when it wants the same folder,
    /// in the library's precision, and loads its own when it wants another.
    func testAPreloadedModelIsTakenForItsOwnFolderOnly() throws {
        let int8 = try encoder(.int8)
        let library = try library("preloaded", embeddedBy: int8, precision: "int8")
        let query = "a snake came through the ventilator"
        let preload = ModelPreload(directory: Config.modelDirectory())
        let engine = SearchEngine(library: library)
        engine.preload = preload
        let vector = try XCTUnwrap(engine.queryVector(query, required: true))
        XCTAssertTrue(engine.encoder === (try preload.encoder()), "the preloaded model was not taken")
        XCTAssertEqual(vector, int8.embed([query]).first)

        let elsewhere = ModelPreload(directory: directory + "/no-model-here")
        let other = SearchEngine(library: library)
        other.preload = elsewhere
        XCTAssertEqual(try other.queryVector(query, required: true), vector)
        XCTAssertFalse(other.encoder === nil)
        XCTAssertThrowsError(try elsewhere.encoder(), "a folder without a model fails its preload, not the search")
    }
}
