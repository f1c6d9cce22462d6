// A chunk's "section" is the unit its own text starts in: a chunk opens with the
// last lines of the one before (the overlap), and a heading in those lines or
// right after them ("6 October, morning.") makes the chunk that unit's, as
// ib-index places it (IBStore's Sections).
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import IBCore
import IBTokenizer
@testable import IBChunk

final class ChunkSectionsTests: XCTestCase {
    func testAChunksSectionIsWhereItsOwnTextStarts() throws {
        let dir = Config.modelDirectory()
        guard FileManager.default.fileExists(atPath: dir + "/vocab.txt") else { throw XCTSkip("model not installed: run scripts/fetch-model") }
        let tokenizer = try WordPieceTokenizer(modelDirectory: dir)
        let chunker = try Chunker(tokenizer: tokenizer, options: ChunkerOptions(size: 48, overlap: 12))
        // One page of dated entries, a paragraph each.
        var text = "", marks: [StructureMark] = []
        for day in 1...30 {
            marks.append(StructureMark(at: text.unicodeScalars.count, depth: 0, kind: "entry", title: "\(day) October.",
                                       date: String(format: "--10-%02d", day)))
            text += "\(day) October. The captain walked along the harbour wall and counted the ships at anchor.\n\n"
        }
        var page = PageRecord(bookID: "b", page: 1, text: text)
        page.extra["structure"] = .array(marks.map(\.json))

        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("ib-chunk-sections-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: tmp) }
        let book = BookRecord(id: "b", title: "t", authors: [], language: nil, format: "txt", source: "x", sha256: "", pageCount: 1)
        var lines: [String] = []
        for json in [book.json, page.json] { var o: [UInt8] = []; json.write(to: &o); lines.append(String(decoding: o, as: UTF8.self)) }
        try (lines.joined(separator: "\n") + "\n").write(to: tmp, atomically: true, encoding: .utf8)
        let outPath = tmp.path + ".out"
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        let fd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let output = OutputStream(fd: fd)
        try ChunkStream(chunker: chunker, output: output, keepPages: false).run(paths: [tmp.path])
        output.flush(); close(fd)
        let chunks = try String(contentsOfFile: outPath, encoding: .utf8).split(separator: "\n").map { try JSON.parse(String($0)) }
            .compactMap(\.objectValue).filter { $0["type"]?.stringValue == "chunk" }
        XCTAssertGreaterThan(chunks.count, 5)

        func unit(at offset: Int) -> String { marks.last { $0.at <= offset }!.title }
        let scalars = Array(text.unicodeScalars)
        var moved = 0, previousEnd = 0
        for (k, chunk) in chunks.enumerated() {
            let start = try XCTUnwrap(chunk["start_offset"]?.intValue), end = try XCTUnwrap(chunk["end_offset"]?.intValue)
            // Its own text: after the chunk before, past the blank line that ends it.
            var own = previousEnd
            while own < end && scalars[own].properties.isWhitespace { own += 1 }
            if k == 0 || own <= start || own >= end { own = start }
            let section = chunk["section"]?.arrayValue?.compactMap(\.stringValue)
            XCTAssertEqual(section, [unit(at: own)], "chunk \(k)")
            if unit(at: own) != unit(at: start) { moved += 1 }
            previousEnd = end
        }
        XCTAssertGreaterThan(moved, 0, "some chunk's overlap holds the day before: the case the rule is for")
    }
}
