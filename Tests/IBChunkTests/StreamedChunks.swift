// Test helpers: a chunker with the real tokenizer, and ib-chunk's stream
// (ChunkStream, as the tool runs it) over a book's records written to a file,
// returning the chunk records it writes.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import IBCore
import IBTokenizer
@testable import IBChunk

/// A chunker with the installed model's tokenizer; the test is skipped without it.
func modelChunker(size: Int, overlap: Int) throws -> Chunker {
    let dir = Config.modelDirectory()
    guard FileManager.default.fileExists(atPath: dir + "/vocab.txt") else { throw XCTSkip("model not installed: run scripts/fetch-model") }
    return try Chunker(tokenizer: try WordPieceTokenizer(modelDirectory: dir), options: ChunkerOptions(size: size, overlap: overlap))
}

/// The chunk records ib-chunk's stream writes for `book` and its `pages`.
func streamedChunks(_ chunker: Chunker, book: BookRecord, pages: [PageRecord]) throws -> [JSONObject] {
    let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("ib-chunk-stream-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: tmp) }
    var lines: [String] = []
    for json in [book.json] + pages.map(\.json) { var o: [UInt8] = []; json.write(to: &o); lines.append(String(decoding: o, as: UTF8.self)) }
    try (lines.joined(separator: "\n") + "\n").write(to: tmp, atomically: true, encoding: .utf8)
    let outPath = tmp.path + ".out"
    defer { try? FileManager.default.removeItem(atPath: outPath) }
    let fd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let output = OutputStream(fd: fd)
    try ChunkStream(chunker: chunker, output: output, keepPages: false).run(paths: [tmp.path])
    output.flush(); close(fd)
    return try String(contentsOfFile: outPath, encoding: .utf8).split(separator: "\n").map { try JSON.parse(String($0)) }
        .compactMap(\.objectValue).filter { $0["type"]?.stringValue == "chunk" }
}
