import XCTest
#if canImport(Glibc)
import Glibc
#endif
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

    func testRunsOfManyTokensAreCountedExactly() throws {
        // Runs of 255 tokens or more fit large chunks whole (their counts are kept apart).
        let pages = ["start " + String(repeating: "ab.", count: 300) + " middle " + String(repeating: "cd,", count: 200) + " end"]
        for size in [1000, 700, 300] {
            let result = try chunks(pages, size: size, overlap: 20)
            for chunk in result {
                XCTAssertEqual(chunk.tokenCount, tokenizer.encode(chunk.text).count)
                XCTAssertLessThanOrEqual(chunk.tokenCount, size)
                XCTAssertEqual(span(chunk, pages), chunk.text)
            }
        }
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

    /// Runs `lines` through ChunkStream (the fast page reader, and the
    /// pipelined units for large books) and returns the records it writes.
    func stream(_ lines: [String], size: Int = 256, overlap: Int = 38) throws -> [JSON] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ib-chunk-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.jsonl").path, outputPath = dir.appendingPathComponent("out.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let fd = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let output = OutputStream(fd: fd)
        let chunker = try Chunker(tokenizer: tokenizer, options: ChunkerOptions(size: size, overlap: overlap))
        try ChunkStream(chunker: chunker, output: output, keepPages: false).run(paths: [input])
        output.flush()
        close(fd)
        return try String(contentsOfFile: outputPath, encoding: .utf8).split(separator: "\n").map { try JSON.parse(String($0)) }
    }

    func testStreamMatchesChunksForALargeBook() throws {
        // Over a megabyte, so its units are made while it is read, with a run
        // too long for a chunk near the middle, where books used to be split.
        let sentences = ["It was the best of times, it was the worst of times.", "“Quoted,” she said; then—nothing!",
                         "Naïve café owners read 我喜欢读书。 aloud.", "Tabs\tand\r\nbreaks (and brackets).\n"]
        var pages: [String] = []
        var size = 0, k = 0
        while size < 1_200_000 {
            let page = (0..<40).map { i in sentences[(k + i) % sentences.count] }.joined(separator: k % 3 == 0 ? "\n\n" : " ")
            pages.append(page)
            size += page.utf8.count + 1
            k += 1
        }
        // The long run spans the middle of the book's text.
        let run = String(repeating: "x/", count: 4000) + "x.\")"
        let total = size - 1 + run.utf8.count + 1
        var start = 0, index = 0
        while start + pages[index].utf8.count + 1 <= total / 2 - 4000 { start += pages[index].utf8.count + 1; index += 1 }
        pages[index] = run + " " + pages[index]
        XCTAssertTrue(start < total / 2 && start + run.utf8.count > total / 2)
        var lines = [JSON.object(JSONObject([("type", "book"), ("id", "big"), ("title", "Big")])).serialized]
        for (i, page) in pages.enumerated() {
            lines.append(JSON.object(JSONObject([("type", "page"), ("book_id", "big"), ("page", JSON(i + 1)), ("text", .string(page))])).serialized)
        }
        for size in [256, 64] {
            let streamed = try stream(lines, size: size, overlap: size / 6).filter { $0["type"]?.stringValue == "chunk" }
            let chunker = try Chunker(tokenizer: tokenizer, options: ChunkerOptions(size: size, overlap: size / 6))
            let direct = chunker.chunks(bookID: "big", pages: pages.enumerated().map { PageRecord(bookID: "big", page: $0.offset + 1, text: $0.element) })
            XCTAssertEqual(streamed.count, direct.count)
            for (a, b) in zip(streamed, direct) { XCTAssertEqual(a, b.json) }
        }
    }

    func testBadLineInALargeBookStopsTheRun() throws {
        // The book is large enough for its units to be under way on another thread.
        let page = String(repeating: "Some words of a page, and more of them. ", count: 60)
        var lines = [#"{"type":"book","id":"b","title":"t"}"#]
        for n in 1...200 { lines.append(JSON.object(JSONObject([("type", "page"), ("book_id", "b"), ("page", JSON(n)), ("text", .string(page))])).serialized) }
        lines.append(#"{"type":"page","#)
        XCTAssertThrowsError(try stream(lines)) { error in
            XCTAssertTrue("\(error)".contains("malformed JSON"), "\(error)")
        }
    }

    func testPageLinesReadLikeTheGeneralParser() throws {
        // Escapes, surrogate pairs, odd key orders and spacing, extra fields: the fast reader's text must be the parser's.
        let texts = ["plain words here", "quote \\\" backslash \\\\ slash \\/ tab \\t nl \\n cr \\r",
                     "uni \\u00e9 \\u4e2d \\ud83d\\ude00 end", "raw é 中 😀 \\b\\f end"]
        var lines = [#"{"type":"book","id":"b","title":"t"}"#]
        for (i, text) in texts.enumerated() {
            let n = i + 1
            switch i % 4 {
            case 0: lines.append(#"{"type":"page","book_id":"b","page":\#(n),"text":"\#(text)"}"#)
            case 1: lines.append(#" { "text" : "\#(text)" , "page" : \#(n) , "book_id" : "b" , "type" : "page" } "#)
            case 2: lines.append(#"{"type":"page","book_id":"b","page":\#(n),"label":"x\u0079","section_index":null,"text":"\#(text)","more":[1,{"a":null}]}"#)
            default: lines.append(#"{"type":"page","page":\#(n).0,"book_id":"b","text":"\#(text)"}"#)
            }
        }
        let chunks = try stream(lines, size: 512, overlap: 0).filter { $0["type"]?.stringValue == "chunk" }
        let expected = try lines.dropFirst().map { try JSON.parse($0)["text"]!.stringValue! }.joined(separator: "\n")
        XCTAssertEqual(chunks.count, 1)
        XCTAssertEqual(chunks.first?["text"]?.stringValue, expected)
    }

    func testBadOptionsAreUsageErrors() {
        XCTAssertThrowsError(try Chunker(tokenizer: tokenizer, options: ChunkerOptions(size: 100, overlap: 80)))
        XCTAssertThrowsError(try Chunker(tokenizer: nil, options: ChunkerOptions(size: 100, overlap: 10)))
    }
}
