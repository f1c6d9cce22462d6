// Chunks of an audio book carry start_time and end_time placed inside their
// pages' times, in both ib-chunk paths (the records API and the stream); a
// book without times gets none.
import XCTest
import IBCore
@testable import IBChunk

final class ChunkTimesTests: XCTestCase {
    func testChunksOfAnAudioBookCarryTimesInsideTheirPages() throws {
        let chunker = try modelChunker(size: 32, overlap: 0)
        let sentence = "The captain walked along the harbour wall and counted the ships at anchor. "
        var pages: [PageRecord] = []
        for i in 0..<3 {
            var page = PageRecord(bookID: "b", page: i + 1, label: MediaTime.label(Double(i) * 60),
                                  text: String(repeating: sentence, count: 8))
            page.extra["start_time"] = .number(Double(i) * 60 + 0.5)
            page.extra["end_time"] = .number(Double(i) * 60 + 59.5)
            pages.append(page)
        }
        let chunks = chunker.chunks(bookID: "b", pages: pages)
        XCTAssertGreaterThan(chunks.count, 6)
        var previous = 0.0
        for chunk in chunks {
            let start = try XCTUnwrap(chunk.extra["start_time"]?.doubleValue), end = try XCTUnwrap(chunk.extra["end_time"]?.doubleValue)
            let page = Double(chunk.startPage - 1) * 60
            XCTAssertGreaterThanOrEqual(start, page + 0.5)
            XCTAssertLessThanOrEqual(start, page + 59.5)
            XCTAssertGreaterThanOrEqual(end, start)
            XCTAssertLessThanOrEqual(end, Double(chunk.endPage - 1) * 60 + 59.5)
            XCTAssertGreaterThanOrEqual(start, previous)
            previous = start
        }

        // The stream writes the same times.
        let book = BookRecord(id: "b", title: "t", authors: [], language: nil, format: "audio", source: "x", sha256: "", pageCount: 3)
        let streamed = try streamedChunks(chunker, book: book, pages: pages)
        XCTAssertEqual(streamed.map { $0["start_time"]?.doubleValue }, chunks.map { $0.extra["start_time"]?.doubleValue })

        // Pages without times: chunks without times.
        let plain = chunker.chunks(bookID: "b", pages: pages.map { var p = $0; p.extra = JSONObject(); return p })
        XCTAssertTrue(plain.allSatisfy { $0.extra["start_time"] == nil })
    }
}
