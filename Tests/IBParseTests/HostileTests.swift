import XCTest
import IBCore
import IBTestSupport
@testable import IBParse

/// Hostile and broken input: each gives one clear error, no crash, no hang, nothing fetched.
final class HostileTests: XCTestCase {
    let lol = """
        <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
        <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
        <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;"><!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
        <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;"><!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
        <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>
        """

    func testTruncatedAndCorruptPDF() throws {
        let dir = TempDir()
        let pdf = makePDF(pages: [["Hello there"], ["Second page"]])
        XCTAssertTrue(parseError(dir.write("t.pdf", Array(pdf.prefix(pdf.count / 3))))!.contains("PDF"))
        XCTAssertTrue(parseError(dir.write("c.pdf", Array("%PDF-1.7\n".utf8) + (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }))!.contains("corrupt"))
    }

    func testTruncatedAndCorruptEPUBAndDOCX() throws {
        let dir = TempDir()
        let epub = makeEPUB(chapters: [("c.xhtml", xhtml("<p>" + String(repeating: "Some words here. ", count: 500) + "</p>"))])
        XCTAssertTrue(parseError(dir.write("t.epub", Array(epub.prefix(epub.count - 200))))!.contains("ZIP"))
        // Damage the deflated chapter in place: inflate fails or the CRC does not match.
        var damaged = epub
        let at = ByteSearch.firstIndex(of: Array("OEBPS/c.xhtml".utf8), in: damaged)! + 40
        for i in at..<(at + 30) { damaged[i] ^= 0x5A }
        XCTAssertTrue(parseError(dir.write("c.epub", damaged))!.contains("corrupt"))
        let docx = makeDOCX(body: para("Hello"))
        XCTAssertTrue(parseError(dir.write("t.docx", Array(docx.prefix(docx.count / 2))))!.contains("ZIP"))
        var broken = ZipWriter()
        broken.add("[Content_Types].xml", "<Types/>")
        broken.add("word/document.xml", "<w:document xmlns:w=\"x\"><w:body><w:p>unclosed")
        XCTAssertTrue(parseError(dir.write("b.docx", broken.bytes()))!.contains("malformed XML"))
    }

    func testZipBombs() throws {
        let dir = TempDir()
        // Declares 300 MB.
        var declared = ZipWriter()
        declared.add("mimetype", "application/epub+zip", deflate: false)
        declared.add("big.xhtml", [UInt8](repeating: 0x20, count: 1000), declaredSize: 300 << 20)
        XCTAssertTrue(parseError(dir.write("d.epub", declared.bytes()))!.contains("ZIP bomb"))
        // A high compression ratio: 40 MB of spaces in ~40 KB.
        let chapter = Array("<html><body><p>".utf8) + [UInt8](repeating: 0x20, count: 40 << 20)
        let ratio = makeEPUB(chapters: [("c.xhtml", String(decoding: chapter, as: UTF8.self))])
        XCTAssertLessThan(ratio.count, 1 << 20)
        XCTAssertTrue(parseError(dir.write("r.epub", ratio))!.contains("ZIP bomb"))
        // Each entry under the per-entry cap, together over the archive's 1 GiB.
        var many = ZipWriter()
        many.add("mimetype", "application/epub+zip", deflate: false)
        // (3 MB stored per entry keeps each ratio under 100:1, so only the total can refuse it.)
        for i in 0..<5 { many.add("part\(i).xhtml", [UInt8](repeating: 0x20, count: 3 << 20), deflate: false, declaredSize: 250 << 20) }
        let total = parseError(dir.write("t.epub", many.bytes()))
        XCTAssertTrue(total?.contains("archive is too large uncompressed") == true, String(describing: total))
        // Declares a small size but inflates to more.
        var lying = ZipWriter()
        lying.add("mimetype", "application/epub+zip", deflate: false)
        lying.add("META-INF/container.xml", [UInt8](repeating: 0x20, count: 500_000), declaredSize: 100)
        XCTAssertTrue(parseError(dir.write("l.epub", lying.bytes()))!.contains("beyond its declared size"))
    }

    /// Found by scripts/fuzz/run zip: a deflated entry whose stream ends before its
    /// declared size was returned short, with its CRC never checked.
    func testDeflatedEntryShorterThanDeclaredIsCorrupt() throws {
        var short = ZipWriter()
        short.add("a.txt", Array("hello, world".utf8), declaredSize: 20)
        let zip = try ZipArchive(short.bytes())
        XCTAssertThrowsError(try zip.read("a.txt")) { error in
            XCTAssertTrue("\(error)".contains("inflates to 12 bytes, not the 20 declared"), "\(error)")
        }
        // Capped reads too: the stream ends before the limit, short of the declared size.
        XCTAssertThrowsError(try zip.read("a.txt", limit: 16))
        // The same inside an EPUB: refused, not read with a chapter cut short.
        var epub = ZipWriter()
        epub.add("mimetype", "application/epub+zip", deflate: false)
        epub.add("META-INF/container.xml", [0x20, 0x20], declaredSize: 9)
        let dir = TempDir()
        let message = parseError(dir.write("s.epub", epub.bytes()))
        XCTAssertTrue(message?.contains("corrupt ZIP archive") == true, String(describing: message))
        // Well-formed entries still read whole, capped or not.
        var fine = ZipWriter()
        fine.add("a.txt", "hello, world")
        let ok = try ZipArchive(fine.bytes())
        XCTAssertEqual(try ok.read("a.txt"), Array("hello, world".utf8))
        XCTAssertEqual(try ok.read("a.txt", limit: 5), Array("hello".utf8))
    }

    func testUnsafeEntryPaths() throws {
        let dir = TempDir()
        for name in ["../../etc/evil.txt", "/etc/evil.txt", "OEBPS/../../x", "C:\\evil.txt", "a\\..\\..\\b"] {
            let epub = makeEPUB(chapters: [("c.xhtml", xhtml("<p>x</p>"))], extra: [(name, "evil")])
            let message = try XCTUnwrap(parseError(dir.write("p.epub", epub)), name)
            XCTAssertTrue(message.contains("unsafe path"), message)
        }
    }

    func testEntityBombsAndExternalEntitiesAreRefused() throws {
        let dir = TempDir()
        let bombChapter = "<?xml version=\"1.0\"?>" + lol + "<html><body><p>&lol9;</p></body></html>"
        XCTAssertTrue(parseError(dir.write("x.epub", makeEPUB(chapters: [("c.xhtml", bombChapter)])))!.contains("DOCTYPE"))
        XCTAssertTrue(parseError(dir.write("x.html", lol + "<html><body>&lol9;</body></html>"))!.contains("DOCTYPE"))
        let xxe = "<?xml version=\"1.0\"?><!DOCTYPE w:document [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
            + "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body><w:p><w:r><w:t>&x;</w:t></w:r></w:p></w:body></w:document>"
        var docx = ZipWriter()
        docx.add("[Content_Types].xml", "<Types/>")
        docx.add("word/document.xml", xxe)
        XCTAssertTrue(parseError(dir.write("x.docx", docx.bytes()))!.contains("DOCTYPE"))
        // The OPF itself.
        var zip = ZipWriter()
        zip.add("mimetype", "application/epub+zip", deflate: false)
        zip.add("META-INF/container.xml", "<container><rootfiles><rootfile full-path=\"o.opf\"/></rootfiles></container>")
        zip.add("o.opf", "<?xml version=\"1.0\"?>" + lol + "<package><metadata><title>&lol9;</title></metadata></package>")
        XCTAssertTrue(parseError(dir.write("o.epub", zip.bytes()))!.contains("DOCTYPE"))
    }

    func testEntityDeclarationsAfterALongPrologAreRefused() throws {
        let dir = TempDir()
        let comment = "<!--" + String(repeating: "x", count: 70_000) + "-->"
        XCTAssertEqual(try parseFile(dir.write("ok.html", comment + "<html><body><p>fine</p></body></html>")).1.map(\.text), ["fine"])
        let message = parseError(dir.write("bad.html", comment + lol + "<html><body><p>&lol9;</p></body></html>"))
        XCTAssertTrue(message?.contains("entity declarations") ?? false, message ?? "parsed")
    }

    func testExternalDTDsAreNeverFetched() throws {
        let server = try TestHTTPServer { _ in .text("<!ENTITY x \"fetched\">", contentType: "application/xml-dtd") }
        defer { server.stop() }
        let dir = TempDir()
        let doctype = "<!DOCTYPE html PUBLIC \"-//X//DTD X//EN\" \"\(server.url("/evil.dtd"))\">"
        let chapter = "<?xml version=\"1.0\"?>\(doctype)<html><body><p>safe &nbsp;text</p></body></html>"
        let (_, pages) = try parseFile(dir.write("d.epub", makeEPUB(chapters: [("c.xhtml", chapter)])))
        XCTAssertEqual(pages.map(\.text), ["safe \u{A0}text"])
        _ = try parseFile(dir.write("d.html", doctype + "<html><body><p>x</p></body></html>"))
        var docx = ZipWriter()
        docx.add("[Content_Types].xml", "<Types/>")
        docx.add("word/document.xml", "<?xml version=\"1.0\"?><!DOCTYPE w:document SYSTEM \"\(server.url("/w.dtd"))\">"
                 + "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>\(para("ok"))</w:body></w:document>")
        XCTAssertEqual(try parseFile(dir.write("d.docx", docx.bytes())).1.map(\.text), ["ok"])
        XCTAssertEqual(server.requests.count, 0)
    }

    func testDeeplyNestedHTML() throws {
        let dir = TempDir()
        let depth = 100_000
        let html = "<html><body>" + String(repeating: "<div>", count: depth) + "deep text" + String(repeating: "</div>", count: depth) + "</body></html>"
        XCTAssertEqual(try parseFile(dir.write("deep.html", html)).1.map(\.text), ["deep text"])
        let unclosed = "<html><body>" + String(repeating: "<div><span><b>", count: depth) + "still here"
        XCTAssertEqual(try parseFile(dir.write("open.html", unclosed)).1.map(\.text), ["still here"])
        let xhtmlDeep = xhtml(String(repeating: "<section>", count: depth) + "epub deep" + String(repeating: "</section>", count: depth))
        XCTAssertEqual(try parseFile(dir.write("deep.epub", makeEPUB(chapters: [("c.xhtml", xhtmlDeep)]))).1.map(\.text), ["epub deep"])
    }
}

/// URL input against a real HTTP server on 127.0.0.1.
final class URLTests: XCTestCase {
    func fetch(_ url: String, _ configure: (inout ParseOptions) -> Void = { _ in }) throws -> (BookRecord, [PageRecord]) {
        var options = ParseOptions()
        configure(&options)
        return try Parser.parse(try URLFetch.fetch(url, options: options), options: options)
    }

    func fetchError(_ url: String, _ configure: (inout ParseOptions) -> Void = { _ in }) -> String? {
        do { _ = try fetch(url, configure); return nil } catch { return "\(error)" }
    }

    func testFormatsByContentTypeAndTitles() throws {
        let pdf = makePDF(pages: [["From the web"]])
        let epub = makeEPUB(chapters: [("c.xhtml", xhtml("<p>EPUB over HTTP</p>"))], title: "Web EPUB")
        let server = try TestHTTPServer { request in
            if request.path.hasPrefix("/untitled/") { return .text("<html><body><p>no title</p></body></html>", contentType: "text/html") }
            switch request.path {
            case "/page": return .text("<html><head><title>Web Page</title></head><body><p>Hello web</p></body></html>", contentType: "text/html; charset=utf-8")
            case "/notes/my%20notes.txt": return .text("plain words")
            case "/readme": return .text("# Heading\n\nSome *markdown*.", contentType: "text/markdown")
            case "/paper": return .bytes(pdf, contentType: "application/pdf")
            case "/book": return .bytes(epub, contentType: "application/epub+zip")
            default: return .status(404, body: "nope")
            }
        }
        defer { server.stop() }
        var (book, pages) = try fetch(server.url("/page"))
        XCTAssertEqual([book.format, book.title, pages[0].text], ["html", "Web Page", "Hello web"])
        XCTAssertEqual(book.source, server.url("/page"))
        (book, pages) = try fetch(server.url("/notes/my%20notes.txt"))
        XCTAssertEqual([book.format, book.title, pages[0].text], ["text", "my notes", "plain words"])
        (book, pages) = try fetch(server.url("/readme"))
        XCTAssertEqual([book.format, book.title, pages[0].text], ["markdown", "Heading", "Heading\n\nSome markdown."])
        (book, pages) = try fetch(server.url("/paper"))
        XCTAssertEqual([book.format, book.title, pages[0].text], ["pdf", "paper", "From the web"])
        (book, pages) = try fetch(server.url("/book"))
        XCTAssertEqual([book.format, book.title, pages[0].text], ["epub", "Web EPUB", "EPUB over HTTP"])
        (book, _) = try fetch(server.url("/untitled/"))
        XCTAssertEqual(book.title, "untitled")
        (book, _) = try fetch(server.baseURL + "/untitled/?q=1")
        XCTAssertFalse(book.title.isEmpty)
    }

    func testErrorsStatusRedirectsCapsTimeouts() throws {
        let server = try TestHTTPServer { request in
            if request.path.hasPrefix("/hop/") {
                let n = Int(request.path.dropFirst(5))!
                return n == 0 ? .text("arrived") : .status(302, headers: [("Location", "/hop/\(n - 1)")])
            }
            switch request.path {
            case "/big": return .text(String(repeating: "x ", count: 50_000))
            case "/slow": return .delayed(3, .text("late"))
            case "/gone": return .status(410, body: "gone")
            case "/tofile": return .status(302, headers: [("Location", "file:///etc/passwd")])
            default: return .status(404, body: "nope")
            }
        }
        defer { server.stop() }
        XCTAssertEqual(fetchError(server.url("/missing")), "HTTP 404 Not Found")
        XCTAssertEqual(fetchError(server.url("/gone")), "HTTP 410 Gone")
        XCTAssertEqual(try fetch(server.url("/hop/5")).1.map(\.text), ["arrived"])
        XCTAssertEqual(try fetch(server.url("/hop/5")).0.source, server.url("/hop/0"))
        XCTAssertEqual(fetchError(server.url("/hop/6")), "more than 5 redirects")
        XCTAssertTrue(fetchError(server.url("/big")) { $0.maxDownloadBytes = 10_000 }!.contains("cap"))
        XCTAssertTrue(fetchError(server.url("/slow")) { $0.timeoutSeconds = 0.5 }!.contains("timed out"))
        XCTAssertNotNil(fetchError("http://127.0.0.1:1/refused"))
        let scheme = fetchError(server.url("/tofile"))
        XCTAssertTrue(scheme?.contains("only http and https") == true, "a redirect to file:// must be refused: \(String(describing: scheme))")
    }
}
