// ib-index's terminal output: column widths, cutting, the book table and the
// key-value lines of `show` and `stats`.
import XCTest
import IBCore
@testable import IBStore
@testable import IBIndex

final class TextTableTests: XCTestCase {
    func testDisplayWidthCountsWideCharactersTwiceAndMarksNotAtAll() {
        XCTAssertEqual("abc".displayWidth, 3)
        XCTAssertEqual("東京".displayWidth, 4)
        XCTAssertEqual("「」".displayWidth, 4, "CJK punctuation")
        XCTAssertEqual("ＡＢ".displayWidth, 4, "full-width forms")
        XCTAssertEqual("e\u{301}".displayWidth, 1, "a combining accent takes no column")
        XCTAssertEqual("a\u{200B}b".displayWidth, 2, "zero-width space")
        XCTAssertEqual("".displayWidth, 0)
    }

    func testTruncatedCutsToColumnsWithAnEllipsis() {
        XCTAssertEqual("short".truncated(toWidth: 5), "short")
        XCTAssertEqual("Meditations".truncated(toWidth: 6), "Medit…")
        XCTAssertEqual("東京都庁舎".truncated(toWidth: 6), "東京…", "a wide character never straddles the edge")
        XCTAssertEqual("東京都庁舎".truncated(toWidth: 6).displayWidth, 5)
    }

    func testPaddedAlwaysLeavesOneSpace() {
        XCTAssertEqual("ab".padded(toWidth: 4), "ab  ")
        XCTAssertEqual("abcd".padded(toWidth: 4), "abcd ")
        XCTAssertEqual("東".padded(toWidth: 4), "東  ")
    }

    func testTableAlignsColumnsAndCutsTitlesAndAuthors() {
        let title = String(repeating: "t", count: 60)
        let authors = String(repeating: "a", count: 30)
        let out = TextTable.render(header: ["ID", "TITLE", "AUTHORS", "N"], rows: [["1", "東京", "x", "7"], ["22", title, authors, "10"]])
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.count, 4, "header, two rows, and the final newline")
        XCTAssertEqual(lines[3], "")
        XCTAssertEqual(lines[0], "ID " + "TITLE".padded(toWidth: 49) + "AUTHORS".padded(toWidth: 25) + "N")
        XCTAssertEqual(lines[1], "1  " + "東京".padded(toWidth: 49) + "x".padded(toWidth: 25) + "7")
        XCTAssertEqual(lines[2], "22 " + String(repeating: "t", count: 47) + "… " + String(repeating: "a", count: 23) + "… 10")
    }

    func testKeyValueLines() {
        XCTAssertEqual(TextTable.keyValueLines([("id", "x"), ("a long key here", "y")], keyWidth: 12),
                       "id          x\na long key here y\n")
        XCTAssertEqual(TextTable.keyValueLines([], keyWidth: 12), "")
    }

    func testStatsLinesWriteTextAsItIsAndTheRestAsJSON() {
        let stats = JSONObject([("path", .string("/tmp/library.db")), ("books", 3), ("models", .array(["m"])), ("model", .null)])
        XCTAssertEqual(IndexCommand.statsLines(stats), """
            path            /tmp/library.db
            books           3
            models          ["m"]
            model           null

            """)
    }

    func testShowPairsAndListTable() {
        let record = BookRecord(id: "0123456789abcdef", title: "Meditations", authors: ["Marcus Aurelius"], language: "en",
                                format: "txt", source: "/books/m.txt", sha256: "ff", pageCount: 254)
        let book = BookInfo(record: record, status: "ready", currentPage: 12,
                            createdAt: "2026-11-22T10:00:00Z", updatedAt: "2026-11-22T10:00:00Z", chunkCount: 40, vectorCount: 40,
                            embeddingModel: "all-MiniLM-L6-v2", embeddingDimension: 384)
        let pairs = IndexCommand.showPairs(book)
        XCTAssertEqual(pairs.map(\.0), ["id", "title", "authors", "language", "format", "source", "sha256", "pages", "chunks",
                                        "embedded", "reading at", "status", "added", "updated"])
        XCTAssertEqual(pairs[9].1, "40 (all-MiniLM-L6-v2, 384 dims)")
        XCTAssertEqual(pairs[10].1, "page 12")
        var unread = book
        unread.currentPage = 0; unread.record.authors = []; unread.record.language = nil; unread.embeddingModel = nil
        XCTAssertEqual(IndexCommand.showPairs(unread).first { $0.0 == "reading at" }?.1, "-")
        XCTAssertEqual(IndexCommand.showPairs(unread).count, 12)
        XCTAssertEqual(IndexCommand.listTable([book]), """
            ID       TITLE       AUTHORS         PAGES CHUNKS EMBEDDED AT
            01234567 Meditations Marcus Aurelius 254   40     40       p. 12

            """)
    }
}
