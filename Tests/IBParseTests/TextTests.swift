import XCTest
import IBCore
@testable import IBParse

final class TextTests: XCTestCase {
    func testUTF8WithBOMAndCRLF() throws {
        let dir = TempDir()
        let file = dir.write("My Notes.txt", [0xEF, 0xBB, 0xBF] + Array("one\r\ntwo\rthree\n".utf8))
        let (book, pages) = try parseFile(file)
        XCTAssertEqual(book.title, "My Notes")
        XCTAssertEqual(book.format, "text")
        XCTAssertEqual(book.pageCount, 1)
        XCTAssertEqual(pages.map(\.text), ["one\ntwo\nthree"])
        XCTAssertEqual(pages[0].page, 1)
        XCTAssertEqual(book.id, String(book.sha256.prefix(16)))
        XCTAssertEqual(book.sha256, SHA256.hex([0xEF, 0xBB, 0xBF] + Array("one\r\ntwo\rthree\n".utf8)))
    }

    func testUTF16BothEndians() throws {
        let dir = TempDir()
        let text = "Café 😀 naïve\r\nline"
        var le: [UInt8] = [0xFF, 0xFE], be: [UInt8] = [0xFE, 0xFF]
        for u in text.utf16 { le += [UInt8(u & 0xFF), UInt8(u >> 8)]; be += [UInt8(u >> 8), UInt8(u & 0xFF)] }
        XCTAssertEqual(try parseFile(dir.write("le.txt", le)).1.map(\.text), ["Café 😀 naïve\nline"])
        XCTAssertEqual(try parseFile(dir.write("be.txt", be)).1.map(\.text), ["Café 😀 naïve\nline"])
    }

    func testInvalidUTF8NamesOffsetAndLatin1Overrides() throws {
        let dir = TempDir()
        let file = dir.write("latin.txt", Array("abc\nd".utf8) + [0xE9] + Array("t\u{e9}".utf8))
        let message = try XCTUnwrap(parseError(file))
        XCTAssertTrue(message.contains("byte offset 5"), message)
        XCTAssertTrue(message.contains("line 2"), message)
        let (_, pages) = try parseFile(file) { $0.encoding = .latin1 }
        XCTAssertEqual(pages[0].text, "abc\ndét\u{c3}\u{a9}")
    }

    func testTitleOption() throws {
        let dir = TempDir()
        let (book, _) = try parseFile(dir.write("x.txt", "hello")) { $0.title = "Given" }
        XCTAssertEqual(book.title, "Given")
    }

    func testPagesNeverCutWords() throws {
        // Long words, no paragraph breaks, odd spacing.
        var text = ""
        var n: UInt64 = 7
        for _ in 0..<20000 {
            n = n &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(n >> 60) + 1
            text += String(repeating: "é", count: 1) + String(repeating: "w", count: length)
            text += (n >> 50) & 31 == 0 ? "\n\n" : ((n >> 40) & 15 == 0 ? "\n" : " ")
        }
        let ranges = Pagination.split(Array(text.utf8))
        XCTAssertGreaterThan(ranges.count, 50)
        let bytes = Array(text.utf8)
        let pages = ranges.map { String(decoding: bytes[$0], as: UTF8.self) }
        XCTAssertEqual(pages.joined(separator: "\n").split(whereSeparator: \.isWhitespace),
                       text.split(whereSeparator: \.isWhitespace))
        for page in pages.dropLast() {
            let count = page.unicodeScalars.count
            XCTAssertTrue((1200...2500).contains(count), "page of \(count) characters")
            XCTAssertFalse(page.first!.isWhitespace || page.last!.isWhitespace)
        }
    }

    func testPagesPreferParagraphBreaks() throws {
        let paragraph = TextClasses.trim(String(repeating: "word ", count: 300), where: { $0 == " " })  // 1499 characters
        let text = Array(repeating: paragraph, count: 10).joined(separator: "\n\n")
        let ranges = Pagination.split(Array(text.utf8))
        let bytes = Array(text.utf8)
        for range in ranges { XCTAssertEqual(String(decoding: bytes[range], as: UTF8.self), paragraph) }
    }

    func testIdeographicTextIsCutBetweenIdeographs() throws {
        let text = String(repeating: "我们今天学习。", count: 1000)
        let bytes = Array(text.utf8)
        let ranges = Pagination.split(bytes)
        XCTAssertGreaterThan(ranges.count, 2)
        XCTAssertEqual(ranges.map { String(decoding: bytes[$0], as: UTF8.self) }.joined(), text)
    }

    func testOneHugeWordIsNotCut() throws {
        let word = String(repeating: "x", count: 9000)
        let text = "a b " + word + " c d"
        let bytes = Array(text.utf8)
        let pages = Pagination.split(bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
        XCTAssertTrue(pages.contains { $0.contains(word) })
        XCTAssertEqual(pages.joined(separator: " ").split(separator: " "), text.split(separator: " "))
    }

    func testSampleTextBooksKeepEveryWord() throws {
        for name in ["sherlock.txt", "devils-dictionary.txt"] {
            let path = fixtureBooks + "/" + name
            let (book, pages) = try parseFile(path)
            XCTAssertEqual(book.pageCount, pages.count)
            let original = String(decoding: try InputSource.file(path).bytes, as: UTF8.self)
            XCTAssertEqual(pages.map(\.text).joined(separator: "\n").split(whereSeparator: \.isWhitespace),
                           original.split(whereSeparator: \.isWhitespace), name)
        }
    }
}
