// A chunk's "section" is the unit its own text starts in: a chunk opens with the
// last lines of the one before (the overlap), and a heading in those lines or
// right after them ("6 October, morning.") makes the chunk that unit's, as
// ib-index places it (IBStore's Sections).
import XCTest
import IBCore
@testable import IBChunk

final class ChunkSectionsTests: XCTestCase {
    func testAChunksSectionIsWhereItsOwnTextStarts() throws {
        let chunker = try modelChunker(size: 48, overlap: 12)
        // One page of dated entries, a paragraph each.
        var text = "", marks: [StructureMark] = []
        for day in 1...30 {
            marks.append(StructureMark(at: text.unicodeScalars.count, depth: 0, kind: "entry", title: "\(day) October.",
                                       date: String(format: "--10-%02d", day)))
            text += "\(day) October. The captain walked along the harbour wall and counted the ships at anchor.\n\n"
        }
        var page = PageRecord(bookID: "b", page: 1, text: text)
        page.extra["structure"] = .array(marks.map(\.json))

        let book = BookRecord(id: "b", title: "t", authors: [], language: nil, format: "txt", source: "x", sha256: "", pageCount: 1)
        let chunks = try streamedChunks(chunker, book: book, pages: [page])
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

    /// After an end mark (a letter quoted in a chapter closes), chunks are the chapter's again.
    func testAfterAnEndMarkChunksAreTheChaptersAgain() throws {
        let chunker = try modelChunker(size: 48, overlap: 0)
        let sentence = "The captain walked along the harbour wall and counted the ships at anchor.\n\n"
        let letterStart = sentence.unicodeScalars.count * 10, letterEnd = sentence.unicodeScalars.count * 20
        var page = PageRecord(bookID: "b", page: 1, text: String(repeating: sentence, count: 30))
        page.extra["structure"] = .array([StructureMark(at: 0, depth: 0, kind: "chapter", title: "III"),
                                          StructureMark(at: letterStart, depth: 1, kind: "letter", title: "Letter"),
                                          StructureMark.end(at: letterEnd, depth: 1)].map(\.json))
        let book = BookRecord(id: "b", title: "t", authors: [], language: nil, format: "epub", source: "x", sha256: "", pageCount: 1)
        let chunks = try streamedChunks(chunker, book: book, pages: [page])
        var after = 0
        for chunk in chunks {
            let start = try XCTUnwrap(chunk["start_offset"]?.intValue)
            let section = chunk["section"]?.arrayValue?.compactMap(\.stringValue)
            XCTAssertEqual(section, start >= letterStart && start < letterEnd ? ["III", "Letter"] : ["III"], "chunk at \(start)")
            if start >= letterEnd { after += 1 }
        }
        XCTAssertGreaterThan(after, 0)
    }
}
