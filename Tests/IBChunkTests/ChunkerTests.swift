import XCTest
import IBCore
import IBTokenizer
@testable import IBChunk

final class ChunkerTests: XCTestCase {
    var tokenizer: WordPieceTokenizer!

    override func setUpWithError() throws {
        let dir = Config.modelDirectory()
        guard FileManager.default.fileExists(atPath: dir + "/vocab.txt") else { throw XCTSkip("model not installed: run scripts/fetch-model") }
        tokenizer = try WordPieceTokenizer(modelDirectory: dir)
    }

    func chunks(_ pages: [String], size: Int = 32, overlap: Int = 0) throws -> [ChunkRecord] {
        let chunker = try Chunker(tokenizer: tokenizer, options: ChunkerOptions(size: size, overlap: overlap))
        let records = pages.enumerated().map { PageRecord(bookID: "b", page: $0.offset + 1, text: $0.element) }
        return chunker.chunks(bookID: "b", pages: records)
    }

    /// The span of the pages a chunk's offsets name, pages joined by "\n".
    func span(_ chunk: ChunkRecord, _ pages: [String]) -> String {
        let scalars = pages.map { Array($0.unicodeScalars) }
        func text(_ s: ArraySlice<Unicode.Scalar>) -> String { String(String.UnicodeScalarView(s)) }
        if chunk.startPage == chunk.endPage {
            return text(scalars[chunk.startPage - 1][chunk.startOffset..<chunk.endOffset])
        }
        var parts = [text(scalars[chunk.startPage - 1][chunk.startOffset...])]
        for p in chunk.startPage + 1..<chunk.endPage { parts.append(pages[p - 1]) }
        parts.append(text(scalars[chunk.endPage - 1][..<chunk.endOffset]))
        return parts.joined(separator: "\n")
    }

    func testParagraphsAreKeptAndPreferredAsCuts() throws {
        let paragraph = "One two three four five six seven eight nine ten eleven twelve."
        let pages = [[paragraph, paragraph, paragraph].joined(separator: "\n\n")]
        let result = try chunks(pages, size: 40)
        XCTAssertEqual(result.map(\.text), [paragraph + "\n\n" + paragraph, paragraph])
        for chunk in result { XCTAssertLessThanOrEqual(tokenizer.encode(chunk.text).count, 40) }
    }

    func testPageRangesComeFromOffsets() throws {
        let pages = ["Alpha beta gamma.", "Délta épsilon zeta eta theta.", "Iota kappa lambda mu."]
        let result = try chunks(pages, size: 10, overlap: 2)
        XCTAssertGreaterThan(result.count, 2)
        for chunk in result {
            XCTAssertEqual(span(chunk, pages), chunk.text)
            XCTAssertEqual(chunk.tokenCount, tokenizer.encode(chunk.text).count)
            XCTAssertLessThanOrEqual(chunk.tokenCount, 10)
        }
        XCTAssertEqual(result.first?.startPage, 1)
        XCTAssertEqual(result.last?.endPage, 3)
    }

    func testChineseSplitsAtSentencesWithoutSpaces() throws {
        let sentence = "我喜欢在安静的图书馆里读书。"
        let pages = [String(repeating: sentence, count: 6)]
        let result = try chunks(pages, size: 34)
        XCTAssertGreaterThan(result.count, 2)
        for chunk in result.dropLast() { XCTAssertTrue(chunk.text.hasSuffix("。"), chunk.text) }
        for chunk in result { XCTAssertEqual(span(chunk, pages), chunk.text) }
    }

    func testOverlongRunIsCutNeverTruncated() throws {
        let pages = ["start " + String(repeating: "a/", count: 200) + " end"]
        let result = try chunks(pages, size: 32)
        for chunk in result {
            XCTAssertLessThanOrEqual(tokenizer.encode(chunk.text).count, 32)
            XCTAssertEqual(span(chunk, pages), chunk.text)
        }
        XCTAssertEqual(result.map { $0.text }.joined().filter { $0 == "/" }.count, 200)
    }

    func testWordsNeverSplitWhenTheyFit() throws {
        let words = (0..<300).map { "word\($0)" }
        let result = try chunks([words.joined(separator: " ")], size: 24, overlap: 4)
        let vocabulary = Set(words)
        for chunk in result {
            for piece in chunk.text.split(separator: " ") { XCTAssertTrue(vocabulary.contains(String(piece)), String(piece)) }
        }
    }

    func testEmptyBookMakesNoChunks() throws {
        XCTAssertEqual(try chunks(["", "  \n "]).count, 0)
    }

    func testBadOptionsAreUsageErrors() {
        XCTAssertThrowsError(try Chunker(tokenizer: tokenizer, options: ChunkerOptions(size: 100, overlap: 80)))
        XCTAssertThrowsError(try Chunker(tokenizer: nil, options: ChunkerOptions(size: 100, overlap: 10)))
    }
}
