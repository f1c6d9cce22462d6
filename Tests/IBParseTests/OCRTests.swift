import XCTest
import IBCore
import CZlib
@testable import IBParse
#if canImport(Glibc)
import Glibc
#endif

/// Images and scanned pages through tesseract, against the true text of the fixtures in
/// shared/fixtures/ocr (rendered from the sample books; see its README).
final class OCRTests: XCTestCase {
    let fixtures = repositoryRoot + "/shared/fixtures/ocr"

    override func setUpWithError() throws {
        do { try T.load() } catch { throw XCTSkip("tesseract is not installed: \(error)") }
    }

    func truth(_ name: String) throws -> String {
        String(decoding: try XCTUnwrap(FileManagerLite.read(fixtures + "/" + name)), as: UTF8.self)
    }

    /// Share of the true words found in `got` (multisets; a Chinese character is a word).
    func recall(_ truth: String, _ got: String) -> Double {
        func words(_ s: String) -> [String: Int] {
            var counts: [String: Int] = [:]
            for w in normalizedWords(s) {
                if w.unicodeScalars.contains(where: { $0.value >= 0x4E00 && $0.value <= 0x9FFF }) {
                    for c in w { counts[String(c), default: 0] += 1 }
                } else { counts[w, default: 0] += 1 }
            }
            return counts
        }
        let t = words(truth), g = words(got)
        let total = t.values.reduce(0, +)
        return Double(t.reduce(0) { $0 + min($1.value, g[$1.key] ?? 0) }) / Double(max(total, 1))
    }

    func testPNGIsABookOfOnePageMarkedOCR() throws {
        let (book, pages) = try parseFile(fixtures + "/page.png")
        XCTAssertEqual(book.format, "image")
        XCTAssertEqual(book.title, "page")
        XCTAssertEqual(pages.count, 1)
        XCTAssertEqual(pages[0].extra["ocr"], .bool(true))
        let confidence = try XCTUnwrap(pages[0].extra["ocr_confidence"]?.intValue)
        XCTAssertGreaterThan(confidence, 80)
        XCTAssertGreaterThanOrEqual(recall(try truth("page.txt"), pages[0].text), 0.98)
        // The record keeps the fields through JSON.
        var bytes: [UInt8] = []
        pages[0].json.write(to: &bytes)
        let line = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(line.contains("\"ocr\":true"), line)
    }

    func testPhotographedPageTiltedBlurredAndShaded() throws {
        let (_, pages) = try parseFile(fixtures + "/photo.jpg")
        XCTAssertGreaterThanOrEqual(recall(try truth("photo.txt"), pages[0].text), 0.93)
    }

    func testPageTurnedSidewaysIsReadUpright() throws {
        let (_, pages) = try parseFile(fixtures + "/rotated.png")
        XCTAssertGreaterThanOrEqual(recall(try truth("rotated.txt"), pages[0].text), 0.95)
    }

    func testMultiPageTIFFInOrderAndWebP() throws {
        let (_, pages) = try parseFile(fixtures + "/two-pages.tif")
        XCTAssertEqual(pages.map(\.page), [1, 2])
        XCTAssertGreaterThanOrEqual(recall(try truth("tiff-1.txt"), pages[0].text), 0.97)
        XCTAssertGreaterThanOrEqual(recall(try truth("tiff-2.txt"), pages[1].text), 0.97)
        let (_, webp) = try parseFile(fixtures + "/page.webp")
        XCTAssertGreaterThanOrEqual(recall(try truth("webp.txt"), webp[0].text), 0.97)
    }

    func testChineseAutomaticallyAndWithLang() throws {
        let (_, auto) = try parseFile(fixtures + "/chinese.png")
        XCTAssertGreaterThanOrEqual(recall(try truth("chinese.txt"), auto[0].text), 0.95)
        XCTAssertFalse(auto[0].text.contains("城 坐"), "spaces between Chinese characters are removed")
        let (_, forced) = try parseFile(fixtures + "/chinese.png") { XCTAssertTrue($0.setOCRLanguage("chi_sim")) }
        XCTAssertGreaterThanOrEqual(recall(try truth("chinese.txt"), forced[0].text), 0.95)
        var options = ParseOptions()
        XCTAssertFalse(options.setOCRLanguage("eng+"))
        XCTAssertFalse(options.setOCRLanguage("../x"))
        XCTAssertFalse(options.setOCRLanguage("xx_none"), "a language whose data is not installed")
        XCTAssertTrue(options.setOCRLanguage("eng+chi_sim"))
    }

    func testScannedPDFPagesAreOCRdAndMarked() throws {
        let (book, pages) = try parseFile(fixtures + "/scanned.pdf")
        XCTAssertEqual(book.format, "pdf")
        XCTAssertEqual(pages.count, 2)
        XCTAssertEqual(pages.map { $0.extra["ocr"] }, [.bool(true), .bool(true)])
        XCTAssertGreaterThanOrEqual(recall(try truth("page.txt"), pages[0].text), 0.97)
        XCTAssertGreaterThanOrEqual(recall(try truth("tiff-2.txt"), pages[1].text), 0.97)
        // --ocr never: the empty text layer as it is.
        let (_, never) = try parseFile(fixtures + "/scanned.pdf") { $0.ocr = .never }
        XCTAssertEqual(never.map(\.text), ["", ""])
        XCTAssertNil(never[0].extra["ocr"])
    }

    func testTextPDFIsNotOCRdUnlessAlways() throws {
        let dir = TempDir()
        let path = dir.write("t.pdf", makePDF(pages: [["The quick brown fox jumps over the lazy dog near the river bank"], ["Hi"]],
                                              labels: "<< /Nums [0 << /S /r >> 1 << /S /D >>] >>"))
        let (_, auto) = try parseFile(path)
        XCTAssertNil(auto[0].extra["ocr"], "a page with a text layer is not OCR'd")
        XCTAssertNil(auto[1].extra["ocr"], "nearly empty but no image: not a scan")
        let (_, always) = try parseFile(path) { $0.ocr = .always }
        XCTAssertEqual(always[0].extra["ocr"], .bool(true))
        XCTAssertEqual(always.map(\.label), ["i", "1"], "OCR'd pages keep their printed labels")
        XCTAssertGreaterThanOrEqual(recall("The quick brown fox jumps over the lazy dog near the river bank", always[0].text), 0.9)
    }

    func testBadImages() throws {
        let dir = TempDir()
        XCTAssertEqual(parseError(dir.write("empty.png", [])), "empty file (0 bytes)")
        let png = try XCTUnwrap(FileManagerLite.read(fixtures + "/page.png"))
        XCTAssertTrue(parseError(dir.write("cut.png", Array(png.prefix(png.count / 3))))!.contains("corrupt or truncated PNG"))
        XCTAssertTrue(parseError(dir.write("junk.jpg", [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x41, count: 500)))!.contains("JPEG"))
        XCTAssertTrue(parseError(dir.write("junk.tif", [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 64)))!.contains("TIFF"))
        // 50,000 x 50,000 pixels: refused from the header, before any decoding.
        let huge = dir.write("huge.png", Self.png(width: 50_000, height: 50_000))
        XCTAssertEqual(parseError(huge), "PNG is too large to read: 50000 x 50000 pixels (limit 64 megapixels)")
        // A white image has no text: an error, not an empty book.
        XCTAssertEqual(parseError(dir.write("white.png", Self.png(width: 400, height: 300, value: 255))), "no text found in the image")
    }

    /// A grey PNG of one value (a header only when the size is absurd: it is never decoded).
    static func png(width: Int, height: Int, value: UInt8 = 0) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            let crc = body.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
            return be(UInt32(data.count)) + body + be(crc)
        }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var header = be(UInt32(width)) + be(UInt32(height))
        header += [8, 0, 0, 0, 0]
        var raw: [UInt8] = []
        if width * height < 1_000_000 { for _ in 0..<height { raw += [0] + [UInt8](repeating: value, count: width) } }
        var compressed = [UInt8](repeating: 0, count: raw.count + 1024)
        var length = uLongf(compressed.count)
        _ = compress(&compressed, &length, raw, uLong(raw.count))
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
            + chunk("IDAT", Array(compressed.prefix(Int(length)))) + chunk("IEND", [])
    }
}

/// Whole-file reads for fixtures.
enum FileManagerLite {
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            out += buffer[..<n]
        }
        return out
    }
}
