import XCTest
import IBCore
@testable import IBParse
#if canImport(Glibc)
import Glibc
#endif

/// A fresh temporary directory per test case.
final class TempDir {
    let path: String
    init() {
        var template = Array("/tmp/ib-parse-test-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }
    deinit { _ = system("rm -rf '\(path)'") }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let file = "\(path)/\(name)"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0)
        bytes.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return file
    }
    @discardableResult
    func write(_ name: String, _ text: String) -> String { write(name, Array(text.utf8)) }
}

/// The repository root, found from this file's path.
let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/").map(String.init)
    parts.removeLast(3)
    return "/" + parts.joined(separator: "/")
}()

let fixtureBooks = repositoryRoot + "/shared/fixtures/books"

func parseFile(_ path: String, _ configure: (inout ParseOptions) -> Void = { _ in }) throws -> (BookRecord, [PageRecord]) {
    var options = ParseOptions()
    configure(&options)
    return try Parser.parse(try InputSource.file(path), options: options)
}

func parseError(_ path: String, _ configure: (inout ParseOptions) -> Void = { _ in }) -> String? {
    do { _ = try parseFile(path, configure); return nil } catch { return "\(error)" }
}

/// Words of a text, normalized: lower case, letters and digits only.
func normalizedWords(_ text: String) -> [String] {
    var words: [String] = []
    for raw in text.split(whereSeparator: { $0.isWhitespace || $0 == "\u{2014}" || $0 == "\u{2013}" || $0 == "\u{2060}" }) {
        let w = String(String.UnicodeScalarView(raw.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }))
        if !w.isEmpty { words.append(w) }
    }
    return words
}

// MARK: - building test files

import CZlib

/// A small ZIP writer for test archives: stored or deflated entries, any names (even hostile ones),
/// and optionally lying sizes.
struct ZipWriter {
    struct Entry { var name: String; var data: [UInt8]; var deflate: Bool; var declaredSize: Int? }
    var entries: [Entry] = []

    mutating func add(_ name: String, _ text: String, deflate: Bool = true) { add(name, Array(text.utf8), deflate: deflate) }
    mutating func add(_ name: String, _ data: [UInt8], deflate: Bool = true, declaredSize: Int? = nil) {
        entries.append(Entry(name: name, data: data, deflate: deflate, declaredSize: declaredSize))
    }

    static func deflateRaw(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        deflateInit2_(&stream, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 16)
        var input = data
        let produced = input.withUnsafeMutableBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = inp.baseAddress; stream.avail_in = uInt(inp.count)
                stream.next_out = o.baseAddress; stream.avail_out = uInt(o.count)
                CZlib.deflate(&stream, Z_FINISH)
                return o.count - Int(stream.avail_out)
            }
        }
        deflateEnd(&stream)
        return Array(out.prefix(produced))
    }

    func bytes() -> [UInt8] {
        var out: [UInt8] = [], central: [UInt8] = []
        func u16(_ v: Int, _ to: inout [UInt8]) { to += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int, _ to: inout [UInt8]) { to += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        for entry in entries {
            let payload = entry.deflate ? Self.deflateRaw(entry.data) : entry.data
            let crc = entry.data.withUnsafeBufferPointer { Int(crc32(0, $0.baseAddress, uInt($0.count))) }
            let name = Array(entry.name.utf8)
            let offset = out.count
            let size = entry.declaredSize ?? entry.data.count
            for to in [0, 1] {
                var h: [UInt8] = []
                u32(to == 0 ? 0x0403_4B50 : 0x0201_4B50, &h)
                if to == 1 { u16(20, &h) }
                u16(20, &h); u16(0, &h); u16(entry.deflate ? 8 : 0, &h); u16(0, &h); u16(0x21, &h)
                u32(crc, &h); u32(payload.count, &h); u32(size, &h); u16(name.count, &h); u16(0, &h)
                if to == 1 { u16(0, &h); u16(0, &h); u16(0, &h); u32(0, &h); u32(offset, &h) }
                h += name
                if to == 0 { out += h + payload } else { central += h }
            }
        }
        let cdOffset = out.count
        out += central
        var end: [UInt8] = []
        u32(0x0605_4B50, &end); u16(0, &end); u16(0, &end); u16(entries.count, &end); u16(entries.count, &end)
        u32(central.count, &end); u32(cdOffset, &end); u16(0, &end)
        return out + end
    }
}

/// A minimal EPUB: `chapters` are (file name, XHTML); `nav` an optional EPUB 3 nav document body.
func makeEPUB(chapters: [(String, String)], title: String = "Test Book", author: String = "A. Writer",
              nav: String? = nil, ncx: String? = nil, extra: [(String, String)] = [], version: String = "3.0") -> [UInt8] {
    var zip = ZipWriter()
    zip.add("mimetype", "application/epub+zip", deflate: false)
    zip.add("META-INF/container.xml", """
        <?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
        <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
        """)
    var manifest = "", spine = ""
    for (i, chapter) in chapters.enumerated() {
        manifest += "<item id=\"c\(i)\" href=\"\(chapter.0)\" media-type=\"application/xhtml+xml\"/>"
        spine += "<itemref idref=\"c\(i)\"/>"
        zip.add("OEBPS/" + chapter.0, chapter.1)
    }
    if let nav {
        manifest += "<item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>"
        zip.add("OEBPS/nav.xhtml", """
            <?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Nav</title></head><body>\(nav)</body></html>
            """)
    }
    if let ncx {
        manifest += "<item id=\"ncx\" href=\"toc.ncx\" media-type=\"application/x-dtbncx+xml\"/>"
        zip.add("OEBPS/toc.ncx", """
            <?xml version="1.0" encoding="utf-8"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">\(ncx)</ncx>
            """)
    }
    zip.add("OEBPS/content.opf", """
        <?xml version="1.0" encoding="utf-8"?>
        <package xmlns="http://www.idpf.org/2007/opf" version="\(version)" unique-identifier="id">
        <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">x</dc:identifier>
        <dc:title>\(title)</dc:title><dc:creator>\(author)</dc:creator><dc:language>en</dc:language></metadata>
        <manifest>\(manifest)</manifest><spine\(ncx != nil ? " toc=\"ncx\"" : "")>\(spine)</spine></package>
        """)
    for (name, content) in extra { zip.add(name, content) }
    return zip.bytes()
}

func xhtml(_ body: String, title: String = "Chapter") -> String {
    """
    <?xml version="1.0" encoding="utf-8"?>
    <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>\(title)</title>
    <style>p { color: red; }</style></head><body>\(body)</body></html>
    """
}

/// A minimal DOCX from a document.xml body and optional styles.xml content.
func makeDOCX(body: String, styles: String = "", title: String? = nil, creator: String? = nil) -> [UInt8] {
    var zip = ZipWriter()
    let w = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\""
    zip.add("[Content_Types].xml", """
        <?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
        <Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>
        """)
    zip.add("_rels/.rels", """
        <?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
        <Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>
        """)
    zip.add("word/document.xml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?><w:document \(w)><w:body>\(body)</w:body></w:document>")
    zip.add("word/styles.xml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?><w:styles \(w)>\(styles)</w:styles>")
    if title != nil || creator != nil {
        zip.add("docProps/core.xml", """
            <?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">\(title.map { "<dc:title>\($0)</dc:title>" } ?? "")\(creator.map { "<dc:creator>\($0)</dc:creator>" } ?? "")</cp:coreProperties>
            """)
    }
    return zip.bytes()
}

func para(_ text: String, style: String? = nil) -> String {
    "<w:p>\(style.map { "<w:pPr><w:pStyle w:val=\"\($0)\"/></w:pPr>" } ?? "")<w:r><w:t xml:space=\"preserve\">\(text)</w:t></w:r></w:p>"
}

/// A minimal PDF: one page per entry, each a list of text lines (Helvetica), optional page labels,
/// info title/author, and an optional bogus /Encrypt dictionary (so it needs a password).
func makePDF(pages: [[String]], labels: String? = nil, title: String? = nil, author: String? = nil, encrypted: Bool = false) -> [UInt8] {
    var objects: [String] = []
    let pageCount = pages.count
    // 1 catalog, 2 pages, 3 font, 4 info, then page/content pairs.
    var kids: [String] = []
    for i in 0..<pageCount { kids.append("\(5 + 2 * i) 0 R") }
    objects.append("<< /Type /Catalog /Pages 2 0 R\(labels.map { " /PageLabels \($0)" } ?? "") >>")
    objects.append("<< /Type /Pages /Kids [\(kids.joined(separator: " "))] /Count \(pageCount) >>")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    objects.append("<< \(title.map { "/Title (\($0))" } ?? "") \(author.map { "/Author (\($0))" } ?? "") >>")
    for (i, lines) in pages.enumerated() {
        var content = "BT /F1 12 Tf 72 720 Td 14 TL\n"
        for line in lines {
            let escaped = line.replacingAll("\\", with: "\\\\").replacingAll("(", with: "\\(").replacingAll(")", with: "\\)")
            content += "(\(escaped)) Tj T*\n"
        }
        content += "ET"
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents \(6 + 2 * i) 0 R >>")
        objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
    }
    if encrypted {
        objects.append("<< /Filter /Standard /V 1 /R 2 /Length 40 /P -4 /O <\(String(repeating: "41", count: 32))> /U <\(String(repeating: "42", count: 32))> >>")
    }
    var out = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (i, object) in objects.enumerated() {
        offsets.append(out.utf8.count)
        out += "\(i + 1) 0 obj\n\(object)\nendobj\n"
    }
    let xref = out.utf8.count
    out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for offset in offsets {
        let digits = String(offset)
        out += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
    }
    out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R /Info 4 0 R\(encrypted ? " /Encrypt \(objects.count) 0 R /ID [<00112233445566778899AABBCCDDEEFF> <00112233445566778899AABBCCDDEEFF>]" : "") >>\nstartxref\n\(xref)\n%%EOF\n"
    return Array(out.utf8)
}
