import XCTest
import IBCore
@testable import IBParse

final class DetectionTests: XCTestCase {
    func testFormatComesFromContentNotExtension() throws {
        let dir = TempDir()
        let epub = makeEPUB(chapters: [("c.xhtml", xhtml("<p>Hello from the EPUB.</p>"))])
        XCTAssertEqual(try parseFile(dir.write("book.pdf", epub)).0.format, "epub")
        XCTAssertEqual(try parseFile(dir.write("doc.txt", makeDOCX(body: para("Hi")))).0.format, "docx")
        XCTAssertEqual(try parseFile(dir.write("paper.epub", makePDF(pages: [["Hello"]]))).0.format, "pdf")
        XCTAssertEqual(try parseFile(dir.write("page.md", "<!DOCTYPE html><html><body><p>x</p></body></html>")).0.format, "html")
        XCTAssertEqual(try parseFile(dir.write("notes.docx", "just some text")).0.format, "text")
        XCTAssertEqual(try parseFile(dir.write("notes.md", "# Title\n\ntext")).0.format, "markdown")
    }

    func testBadInputsGiveOneClearMessage() throws {
        let dir = TempDir()
        XCTAssertEqual(parseError(dir.write("empty.txt", [UInt8]())), "empty file (0 bytes)")
        XCTAssertEqual(parseError(dir.path), "is a directory")
        XCTAssertEqual(parseError(dir.path + "/missing.txt"), "no such file or directory")
        XCTAssertTrue(parseError(dir.write("x.bin", [0x7F, 0x45, 0x4C, 0x46, 0, 0, 1]))!.contains("binary"))
        var zip = ZipWriter()
        zip.add("a.txt", "hello")
        XCTAssertTrue(parseError(dir.write("x.zip", zip.bytes()))!.contains("neither EPUB nor DOCX"))
    }
}

final class EPUBTests: XCTestCase {
    func testAllNestedTextInSpineOrderWithSections() throws {
        let dir = TempDir()
        let one = xhtml("""
            <section><div><div><h1>Chapter One</h1><div><p>First &amp; deep <em>nested</em>&#160;text.</p>
            <script>var hidden = 1;</script><style>.x{}</style><div><section><p>Deeper&#x2014;still.</p></section></div></div></div></div></section>
            """)
        let two = xhtml("<div><h1>Chapter Two</h1><p>Second <span>chapter</span> text.</p><ul><li>item one</li><li>item two</li></ul></div>")
        let nav = """
            <nav epub:type="toc"><ol><li><a href="two.xhtml">The Second</a></li><li><a href="one.xhtml">The First</a></li></ol></nav>
            """
        let file = dir.write("b.epub", makeEPUB(chapters: [("one.xhtml", one), ("two.xhtml", two)], nav: nav))
        let (book, pages) = try parseFile(file)
        XCTAssertEqual(book.title, "Test Book")
        XCTAssertEqual(book.authors, ["A. Writer"])
        XCTAssertEqual(book.language, "en")
        XCTAssertEqual(pages.count, 2)
        XCTAssertEqual(pages[0].text, "Chapter One\n\nFirst & deep nested\u{A0}text.\n\nDeeper\u{2014}still.")
        XCTAssertEqual(pages[1].text, "Chapter Two\n\nSecond chapter text.\n\nitem one\n\nitem two")
        XCTAssertEqual(pages.map(\.sectionIndex), [0, 1])
        XCTAssertEqual(pages.map(\.sectionTitle), ["The First", "The Second"])
        XCTAssertFalse(pages.contains { $0.text.contains("hidden") || $0.text.contains(".x{}") })
    }

    func testEPUB3PageListGivesPrintPages() throws {
        let dir = TempDir()
        let body = """
            <p>Front matter words.</p><span epub:type="pagebreak" id="p1" title="1"/><p>Page one text.</p>
            <p>More of page one.</p><span epub:type="pagebreak" id="p2" title="2"/><p>Page two text.</p>
            """
        let nav = """
            <nav epub:type="toc"><ol><li><a href="c.xhtml">Only Chapter</a></li></ol></nav>
            <nav epub:type="page-list"><ol><li><a href="c.xhtml#p1">1</a></li><li><a href="c.xhtml#p2">2</a></li><li><a href="c2.xhtml#p3">iii</a></li></ol></nav>
            """
        let c2 = xhtml("<p>Second file start.</p><span id=\"p3\"/><p>Page three.</p>")
        let (_, pages) = try parseFile(dir.write("p.epub", makeEPUB(chapters: [("c.xhtml", xhtml(body)), ("c2.xhtml", c2)], nav: nav)))
        XCTAssertEqual(pages.map(\.label), [nil, "1", "2", "iii"])
        XCTAssertEqual(pages.map(\.text), ["Front matter words.", "Page one text.\n\nMore of page one.",
                                           "Page two text.\n\nSecond file start.", "Page three."])
        XCTAssertEqual(pages.map(\.sectionIndex), [0, 0, 0, 1])
        XCTAssertEqual(pages[1].sectionTitle, "Only Chapter")
    }

    func testEPUB2NCXPageListAndTitles() throws {
        let dir = TempDir()
        let ncx = """
            <navMap><navPoint id="n1"><navLabel><text>Opening</text></navLabel><content src="a.xhtml"/></navPoint></navMap>
            <pageList><pageTarget id="t1" type="normal"><navLabel><text>7</text></navLabel><content src="a.xhtml#pg7"/></pageTarget>
            <pageTarget id="t2" type="normal"><navLabel><text>8</text></navLabel><content src="a.xhtml#pg8"/></pageTarget></pageList>
            """
        let a = xhtml("<p><a id=\"pg7\"/>Seventh page.</p><p><a id=\"pg8\"/>Eighth page.</p>")
        let (_, pages) = try parseFile(dir.write("e2.epub", makeEPUB(chapters: [("a.xhtml", a)], ncx: ncx, version: "2.0")))
        XCTAssertEqual(pages.map(\.label), ["7", "8"])
        XCTAssertEqual(pages.map(\.text), ["Seventh page.", "Eighth page."])
        XCTAssertEqual(pages.map(\.sectionTitle), ["Opening", "Opening"])
    }

    func testEstimatedPagesWithoutPageList() throws {
        let dir = TempDir()
        let paragraphs = (0..<40).map { "<p>Paragraph \($0) " + String(repeating: "lorem ipsum dolor ", count: 20) + "end.</p>" }.joined()
        let (_, pages) = try parseFile(dir.write("long.epub", makeEPUB(chapters: [("a.xhtml", xhtml(paragraphs))])))
        XCTAssertGreaterThan(pages.count, 5)
        for page in pages.dropLast() { XCTAssertTrue((1200...2500).contains(page.text.unicodeScalars.count)) }
        XCTAssertTrue(pages.allSatisfy { $0.label == nil && $0.sectionIndex == 0 })
    }

    func testOneFileBookTakesChapterTitlesFromNestedTOC() throws {
        let dir = TempDir()
        let long = String(repeating: "words of the chapter ", count: 150)
        let body = "<h1 id=\"c1\">First Chapter</h1><p>\(long)</p><h1 id=\"c2\">Second Chapter</h1><p>\(long)</p>"
        let nav = """
            <nav epub:type="toc"><ol><li><a href="all.xhtml">Test Book</a><ol>
            <li><a href="all.xhtml#c1">First Chapter</a></li><li><a href="all.xhtml#c2">Second Chapter</a></li></ol></li></ol></nav>
            """
        let (_, pages) = try parseFile(dir.write("one.epub", makeEPUB(chapters: [("all.xhtml", xhtml(body))], nav: nav)))
        XCTAssertGreaterThan(pages.count, 2)
        XCTAssertEqual(pages.first?.sectionTitle, "First Chapter")
        XCTAssertEqual(pages.last?.sectionTitle, "Second Chapter")
    }

    func testDRMIsRefusedButFontObfuscationParses() throws {
        let dir = TempDir()
        let chapter = [("c.xhtml", xhtml("<p>Readable text.</p>"))]
        func encryption(_ algorithm: String, _ uri: String) -> String {
            """
            <?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
            <enc:EncryptedData><enc:EncryptionMethod Algorithm="\(algorithm)"/><enc:CipherData><enc:CipherReference URI="\(uri)"/></enc:CipherData></enc:EncryptedData></encryption>
            """
        }
        let adobe = makeEPUB(chapters: chapter, extra: [("META-INF/encryption.xml", encryption("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "OEBPS/c.xhtml")),
                                                        ("META-INF/rights.xml", "<rights/>")])
        XCTAssertTrue(parseError(dir.write("adobe.epub", adobe))!.hasPrefix("drm_protected:"))
        let lcp = makeEPUB(chapters: chapter, extra: [("META-INF/encryption.xml", encryption("http://www.w3.org/2001/04/xmlenc#aes256-cbc", "OEBPS/c.xhtml")),
                                                      ("META-INF/license.lcpl", "{}")])
        XCTAssertTrue(parseError(dir.write("lcp.epub", lcp))!.contains("Readium LCP"))
        let apple = makeEPUB(chapters: chapter, extra: [("META-INF/sinf.xml", "<sinf/>")])
        XCTAssertTrue(parseError(dir.write("apple.epub", apple))!.hasPrefix("drm_protected:"))
        for algorithm in ["http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"] {
            let fonts = makeEPUB(chapters: chapter, extra: [("META-INF/encryption.xml", encryption(algorithm, "OEBPS/fonts/a.otf"))])
            XCTAssertEqual(try parseFile(dir.write("fonts.epub", fonts)).1.map(\.text), ["Readable text."])
        }
    }
}

final class DOCXTests: XCTestCase {
    let localizedStyles = """
        <w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style>
        <w:style w:type="paragraph" w:styleId="Kapitel"><w:name w:val="Kapitel"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
        <w:style w:type="paragraph" w:styleId="Unter"><w:name w:val="Unter"/><w:basedOn w:val="berschrift1"/></w:style>
        """

    func testParagraphsTablesHeadingsAndMetadata() throws {
        let dir = TempDir()
        let table = """
            <w:tbl><w:tr><w:tc>\(para("Name"))</w:tc><w:tc>\(para("Age"))</w:tc></w:tr>
            <w:tr><w:tc>\(para("Ann"))</w:tc><w:tc>\(para("31"))\(para("years"))</w:tc></w:tr></w:tbl>
            """
        let body = para("Erstes Kapitel", style: "berschrift1") + para("Intro text.")
            + "<w:p><w:r><w:t>Split </w:t></w:r><w:r><w:t>run</w:t><w:br/><w:t>next line</w:t><w:tab/><w:t>tabbed</w:t></w:r></w:p>"
            + table + para("Zweites Kapitel", style: "Kapitel") + para("More.")
            + "<w:p><w:r><w:delText>deleted</w:delText><w:instrText>PAGE</w:instrText><w:t>kept</w:t></w:r></w:p>"
        let file = dir.write("d.docx", makeDOCX(body: body, styles: localizedStyles, title: "Doc Title", creator: "Jane Roe; John Doe"))
        let (book, pages) = try parseFile(file)
        XCTAssertEqual(book.title, "Doc Title")
        XCTAssertEqual(book.authors, ["Jane Roe", "John Doe"])
        XCTAssertEqual(pages.count, 2)
        XCTAssertEqual(pages[0].text, "Erstes Kapitel\n\nIntro text.\n\nSplit run\nnext line tabbed\n\nName | Age\nAnn | 31 years")
        XCTAssertEqual(pages[1].text, "Zweites Kapitel\n\nMore.\n\nkept")
        XCTAssertEqual(pages.map(\.sectionTitle), ["Erstes Kapitel", "Zweites Kapitel"])
        XCTAssertEqual(pages.map(\.sectionIndex), [0, 1])
    }

    func testPageBreaksMakePages() throws {
        let dir = TempDir()
        let body = para("One") + "<w:p><w:r><w:t>Two</w:t><w:br w:type=\"page\"/><w:t>Three</w:t></w:r></w:p>"
            + "<w:p><w:r><w:lastRenderedPageBreak/><w:t>Four</w:t></w:r></w:p>"
            + "<w:p><w:pPr><w:pageBreakBefore/></w:pPr><w:r><w:t>Five</w:t></w:r></w:p>"
        let (_, pages) = try parseFile(dir.write("b.docx", makeDOCX(body: body)))
        XCTAssertEqual(pages.map(\.text), ["One\n\nTwo", "Three", "Four", "Five"])
    }

    func testHeadingsFromOutlineLevelInParagraph() throws {
        let dir = TempDir()
        let body = "<w:p><w:pPr><w:outlineLvl w:val=\"0\"/></w:pPr><w:r><w:t>Part A</w:t></w:r></w:p>" + para("a text")
            + "<w:p><w:pPr><w:outlineLvl w:val=\"0\"/></w:pPr><w:r><w:t>Part B</w:t></w:r></w:p>" + para("b text")
        let (_, pages) = try parseFile(dir.write("o.docx", makeDOCX(body: body)))
        XCTAssertEqual(pages.map(\.sectionTitle), ["Part A", "Part B"])
    }
}

final class HTMLTests: XCTestCase {
    func testVisibleTextOnly() throws {
        let dir = TempDir()
        let html = """
            <!DOCTYPE html><html lang="fr"><head><title>My  Page</title><meta name="author" content="Ann Author">
            <style>body{}</style><script>alert('x')</script></head><body>
            <noscript>enable js</noscript><template><p>template text</p></template>
            <h1>Top</h1><p>Hello <b>bold</b> world &eacute;t&eacute; &#233;&#x41;.</p><p>line<br>break</p>
            <table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
            <h1>Second</h1><div><div><p>deep</p></div></div><pre>  keep
              this</pre></body></html>
            """
        let (book, pages) = try parseFile(dir.write("p.html", html))
        XCTAssertEqual(book.title, "My Page")
        XCTAssertEqual(book.authors, ["Ann Author"])
        XCTAssertEqual(book.language, "fr")
        XCTAssertEqual(pages.map(\.text), ["Top\n\nHello bold world été éA.\n\nline\nbreak\n\nA | B\n1 | 2",
                                           "Second\n\ndeep\n\n  keep\n  this"])
        XCTAssertEqual(pages.map(\.sectionTitle), ["Top", "Second"])
    }

    func testLatin1HTMLWithMetaCharset() throws {
        let dir = TempDir()
        let bytes = Array("<html><head><meta charset=\"iso-8859-1\"><title>t</title></head><body><p>caf".utf8) + [0xE9] + Array("</p></body></html>".utf8)
        XCTAssertEqual(try parseFile(dir.write("l.html", bytes)).1.map(\.text), ["café"])
    }
}

final class MarkdownTests: XCTestCase {
    func testMarkdownToTextWithSections() throws {
        let dir = TempDir()
        let md = """
            ---
            title: "Front Title"
            author:
            - One Author
            - Two Author
            lang: de
            ---

            Intro paragraph
            continues here.

            # First

            Hard\\
            break and two-space  
            break. A [link](http://x) and `code` and ![alt text](img.png).

            | a | b |
            |---|---|
            | 1 | 2 |

            # Second

            - item *one*
            - item two

            ```
            code block
            ```
            """
        let (book, pages) = try parseFile(dir.write("m.md", md))
        XCTAssertEqual(book.title, "Front Title")
        XCTAssertEqual(book.authors, ["One Author", "Two Author"])
        XCTAssertEqual(book.language, "de")
        XCTAssertEqual(pages.map(\.text), ["Intro paragraph continues here.",
                                           "First\n\nHard\nbreak and two-space\nbreak. A link and code and .\n\na | b\n1 | 2",
                                           "Second\n\nitem one\n\nitem two\n\ncode block"])
        XCTAssertEqual(pages.map(\.sectionTitle), [nil, "First", "Second"])
        XCTAssertEqual(pages.map(\.sectionIndex), [0, 1, 2])
    }

    func testFrontMatterFlowSequenceOfAuthorsIsSeveralAuthors() throws {
        let dir = TempDir()
        let md = "---\ntitle: Two Hands\nauthors: [Ann Author, \"Roe, Jane\", 'Bob Writer']\n---\n\nText.\n"
        let (book, _) = try parseFile(dir.write("f.md", md))
        XCTAssertEqual(book.authors, ["Ann Author", "Roe, Jane", "Bob Writer"])
        let (single, _) = try parseFile(dir.write("g.md", "---\nauthor: Ann Author\n---\n\nText.\n"))
        XCTAssertEqual(single.authors, ["Ann Author"])
    }
}

final class PDFTests: XCTestCase {
    func testPagesLabelsHyphenationAndInfo() throws {
        let dir = TempDir()
        let pdf = makePDF(pages: [["Preface text"], ["The misunder-", "standing was Franco-", "Prussian in origin."], [], ["Last page"]],
                          labels: "<< /Nums [0 << /S /r >> 1 << /S /D >>] >>", title: "PDF Title", author: "Ann; Bob")
        let (book, pages) = try parseFile(dir.write("t.pdf", pdf))
        XCTAssertEqual(book.title, "PDF Title")
        XCTAssertEqual(book.authors, ["Ann", "Bob"])
        XCTAssertEqual(book.format, "pdf")
        XCTAssertEqual(pages.count, 4)
        XCTAssertEqual(pages.map(\.label), ["i", "1", "2", "3"])
        XCTAssertEqual(pages[1].text, "The misunderstanding\nwas Franco-Prussian\nin origin.")
        XCTAssertEqual(pages[2].text, "")
        XCTAssertEqual(pages[3].text, "Last page")
    }

    func testNoPageLabelsMeansNullLabels() throws {
        let dir = TempDir()
        let (_, pages) = try parseFile(dir.write("n.pdf", makePDF(pages: [["a"], ["b"]])))
        XCTAssertEqual(pages.map(\.label), [nil, nil])
    }

    func testPasswordProtected() throws {
        let dir = TempDir()
        let message = try XCTUnwrap(parseError(dir.write("locked.pdf", makePDF(pages: [["secret"]], encrypted: true))))
        XCTAssertTrue(message.hasPrefix("password_protected:"), message)
    }

    func testJoinHyphenationRules() {
        func join(_ s: String) -> String { Array(s.utf8).withUnsafeBufferPointer { PDFParser.joinHyphenation($0) } }
        XCTAssertEqual(join("a com-\nplete line"), "a complete\nline")
        XCTAssertEqual(join("well -\nknown"), "well -\nknown")
        XCTAssertEqual(join("1990-\n2000"), "1990-\n2000")
        XCTAssertEqual(join("north-\nEast side"), "north-East\nside")
        XCTAssertEqual(join("trail  \nend\u{0C}"), "trail\nend")
    }
}

final class NotesTests: XCTestCase {
    func testDOCXFootnotesFollowTheBody() throws {
        let dir = TempDir()
        var zip = ZipWriter()
        let w = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\""
        zip.add("[Content_Types].xml", "<Types/>")
        zip.add("word/document.xml", "<w:document \(w)><w:body><w:p><w:r><w:t>Body text.</w:t></w:r><w:r><w:footnoteReference w:id=\"1\"/></w:r></w:p></w:body></w:document>")
        zip.add("word/footnotes.xml", "<w:footnotes \(w)><w:footnote w:type=\"separator\" w:id=\"-1\"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>"
                + "<w:footnote w:id=\"1\"><w:p><w:r><w:t>The note words.</w:t></w:r></w:p></w:footnote></w:footnotes>")
        XCTAssertEqual(try parseFile(dir.write("n.docx", zip.bytes())).1.map(\.text), ["Body text.\n\nThe note words."])
    }

    func testMarkdownFootnotesKeepTheirWords() throws {
        let dir = TempDir()
        let md = "Text with a note.[^1] More.\n\n[^1]: The note words.\n"
        XCTAssertEqual(try parseFile(dir.write("n.md", md)).1.map(\.text), ["Text with a note. More.\n\nThe note words."])
    }

    /// A note reference's number is not the text's: kept, it glues to the word it
    /// annotates ("Rusticus6", "Virginalls2961"), which full text cannot find. The
    /// note itself stays; a plain link, and a number the text writes, stay too.
    func testNoteReferencesLeaveTheirWordsWhole() throws {
        let dir = TempDir()
        let chapter = xhtml("""
            <p>From Rusticus<a href="endnotes.xhtml#note-6" id="noteref-6" epub:type="noteref">6</a> I received the impression.</p>
            <p>A pair of Virginalls<a href="n.xhtml#note-2961" epub:type="noteref"><sup>2961</sup></a> in it, and 300 houses.</p>
            <p>Pandoc's kind<a href="#fn1" class="footnote-ref" id="fnref1" role="doc-noteref"><sup>1</sup></a> too; <a href="c2.xhtml">a link</a> stays.</p>
            """)
        let notes = xhtml("<section epub:type=\"endnotes\"><ol><li id=\"note-6\"><p>Junius Rusticus, a Stoic.</p></li></ol></section>")
        let pages = try parseFile(dir.write("n.epub", makeEPUB(chapters: [("c.xhtml", chapter), ("endnotes.xhtml", notes)]))).1
        XCTAssertEqual(pages.map(\.text), ["From Rusticus I received the impression.\n\nA pair of Virginalls in it, and 300 houses.\n\n"
                                           + "Pandoc's kind too; a link stays.", "Junius Rusticus, a Stoic."])
        let html = "<html><body><p>Word<a href=\"#fn1\" role=\"doc-noteref\"><sup>1</sup></a> end.</p></body></html>"
        XCTAssertEqual(try parseFile(dir.write("n.html", html)).1.map(\.text), ["Word end."])
    }

    func testXHTMLSelfClosingTitleDoesNotSwallowTheBody() throws {
        let dir = TempDir()
        let chapter = "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title/></head><body><p>Body survives.</p><div/><p>After.</p></body></html>"
        XCTAssertEqual(try parseFile(dir.write("t.epub", makeEPUB(chapters: [("c.xhtml", chapter)]))).1.map(\.text), ["Body survives.\n\nAfter."])
    }
}
