import XCTest
import IBCore
@testable import IBParse
import IBTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Inputs over 64 MiB (only PDFs and ZIP containers may be that large) are mapped,
/// not read, and stdin that large is spilled to a temporary file: the records must
/// be exactly those of the same bytes parsed from memory.
final class InputBytesTests: XCTestCase {
    static let large = (64 << 20) + 4096

    /// A PDF with a long comment after its end: poppler finds no cross-reference
    /// table in the last kilobyte and rebuilds it by scanning the whole file.
    static func largePDF() -> [UInt8] {
        makePDF(pages: [["A large book", "with two pages"], ["The second page ends it."]], title: "Large")
            + Array("\n%".utf8) + [UInt8](repeating: 0x20, count: Self.large)
    }

    static func largeEPUB() -> [UInt8] {
        var zip = ZipWriter()
        for (name, data) in unzipEntries(makeEPUB(chapters: [("c.xhtml", xhtml("<p>One chapter beside a large plate.</p>"))])) {
            zip.add(name, data, deflate: name != "mimetype")
        }
        zip.add("OEBPS/plate.png", [UInt8](repeating: 0x7F, count: Self.large), deflate: false)
        return zip.bytes()
    }

    static func unzipEntries(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        let zip = try! ZipArchive(bytes)
        return zip.entries.map { ($0.name, try! zip.read($0)) }
    }

    func testLargeFilesAreMappedAndReadAsFromMemory() throws {
        let dir = TempDir()
        for (name, bytes) in [("large.pdf", Self.largePDF()), ("large.epub", Self.largeEPUB())] {
            let path = dir.write(name, bytes)
            let input = try InputSource.file(path)
            XCTAssertNotNil(input.bytes.fileDescriptor, "\(name) should be mapped")
            XCTAssertEqual(input.bytes.count, bytes.count)
            let (book, pages) = try Parser.parse(input, options: ParseOptions())
            var inMemory = input
            inMemory.bytes = InputBytes(bytes)
            XCTAssertNil(inMemory.bytes.fileDescriptor)
            let (book2, pages2) = try Parser.parse(inMemory, options: ParseOptions())
            XCTAssertEqual(book.sha256, SHA256.hex(bytes), name)
            XCTAssertEqual(book, book2, name)
            XCTAssertEqual(pages, pages2, name)
            XCTAssertTrue(pages.contains { $0.text.contains(name.hasSuffix("pdf") ? "second page" : "large plate") }, "\(pages)")
        }
    }

    func testSmallFilesAreReadIntoMemory() throws {
        let dir = TempDir()
        let input = try InputSource.file(dir.write("small.pdf", makePDF(pages: [["small"]])))
        XCTAssertNil(input.bytes.fileDescriptor)
    }

    func testLargeStreamIsSpilledAndMapped() throws {
        let dir = TempDir()
        let bytes = Self.largePDF()
        let fd = open(dir.write("stream.pdf", bytes), O_RDONLY)
        defer { close(fd) }
        let spilled = try InputSource.stream(fd)
        XCTAssertNotNil(spilled.fileDescriptor)
        XCTAssertEqual(spilled.count, bytes.count)
        XCTAssertEqual(spilled.sha256Hex(), SHA256.hex(bytes))
        XCTAssertEqual(spilled.withUnsafeBufferPointer { Array($0.prefix(5)) }, Array("%PDF-".utf8))
    }

    func testLargeTextStreamIsRefused() throws {
        let dir = TempDir()
        let fd = open(dir.write("big.txt", [UInt8](repeating: 0x61, count: Self.large)), O_RDONLY)
        defer { close(fd) }
        XCTAssertThrowsError(try InputSource.stream(fd)) { error in
            XCTAssertTrue("\(error)".contains("too large for a text, Markdown or HTML document"), "\(error)")
        }
    }
}

/// A download over 64 MiB is spooled to a file as it arrives: a PDF is read
/// exactly as from memory, anything else is refused once past 64 MiB.
final class LargeDownloadTests: XCTestCase {
    func testLargeDownloadsAreSpooled() throws {
        let pdf = InputBytesTests.largePDF()
        let text = [UInt8](repeating: 0x61, count: InputBytesTests.large)
        let server = try TestHTTPServer { request in
            request.path == "/large.pdf" ? .bytes(pdf, contentType: "application/pdf") : .bytes(text, contentType: "text/plain")
        }
        defer { server.stop() }
        var options = ParseOptions()
        options.maxDownloadBytes = 1 << 30
        let input = try URLFetch.fetch(server.url("/large.pdf"), options: options)
        XCTAssertNotNil(input.bytes.fileDescriptor)
        let (book, pages) = try Parser.parse(input, options: options)
        XCTAssertEqual(book.sha256, SHA256.hex(pdf))
        XCTAssertEqual(pages.first?.text.contains("A large book"), true)
        XCTAssertThrowsError(try URLFetch.fetch(server.url("/large.txt"), options: options)) { error in
            XCTAssertTrue("\(error)".contains("too large for a text, Markdown or HTML document"), "\(error)")
        }
    }
}
