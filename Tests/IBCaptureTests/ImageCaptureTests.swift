// ib-capture --image without the OCR: the page number from a running header or
// footer, the span of recognised text that best matches --text, and the line beside it.
// (The OCR itself is tested in IBParseTests and scripts/eval/capture-image.)
import XCTest
import IBCore
@testable import IBCapture

final class ImageCaptureTests: XCTestCase {
    let page = """
        48 THE ADVENTURES OF SHERLOCK HOLMES

        “It is most unlikely that she carries it about with her. It is cabinet
        size. Too large for easy concealment about a woman’s dress. She knows that
        the King is capable of having her waylaid and searched.”
        """

    func testPageNumberFromHeaderOrFooter() {
        let (n, body) = ImageCapture.pageNumber(page)
        XCTAssertEqual(n, 48)
        XCTAssertFalse(body.contains("ADVENTURES"))
        XCTAssertEqual(ImageCapture.pageNumber("A SCANDAL IN BOHEMIA 49\n\nSome text here.").page, 49)
        XCTAssertEqual(ImageCapture.pageNumber("Some text here.\nMore text.\n\n— 112 —").page, 112)
        XCTAssertEqual(ImageCapture.pageNumber("Some text.\n\nPage 7").page, 7)
        XCTAssertEqual(ImageCapture.pageNumber("正文内容。\n\n第23页").page, 23)
        // No number, or a number inside prose: none.
        XCTAssertNil(ImageCapture.pageNumber("He paid 40 pounds for it.\nAnd left.").page)
        XCTAssertNil(ImageCapture.pageNumber("It was 1888 when we met,\nsaid he").page)
        XCTAssertNil(ImageCapture.pageNumber("0\nText").page)
    }

    func testSpanMatchesDespiteTyposAndOCRErrors() {
        // The reader's words: lower case, no punctuation, a typo and a word left out.
        let m = ImageCapture.bestSpans(page, query: "it is most unlikly that she carries about with her").first
        XCTAssertEqual(m?.text, "“It is most unlikely that she carries it about with her.")
        XCTAssertGreaterThan(m?.share ?? 0, 0.8)
        // OCR errors in the page ("rn" for "m", a broken word) still match.
        let noisy = "The King is capable of having her waylaid and searched. Too large for easy concealrnent about a wo man’s dress."
        XCTAssertEqual(ImageCapture.bestSpans(noisy, query: "too large for easy concealment about a woman's dress").first?.text,
                       "Too large for easy concealrnent about a wo man’s dress.")
        // Words that are not there: a weak match, never a confident one.
        XCTAssertLessThan(ImageCapture.bestSpans(page, query: "elementary my dear watson said the detective").first?.share ?? 0, 0.6)
        // Chinese: character by character.
        let zh = "小城坐落在两条河流交汇的地方，清晨的集市上人来人往。镇上的钟楼每到整点便会敲响。"
        XCTAssertEqual(ImageCapture.bestSpans(zh, query: "镇上钟楼每到整点便会敲响").first?.text, "镇上的钟楼每到整点便会敲响。")
    }

    func testWholePassageJoinsLinesKeepsParagraphs() {
        XCTAssertEqual(ImageCapture.passage("one two\nthree\n\nfour\nfive"), "one two three\n\nfour five")
        XCTAssertEqual(ImageCapture.passage("小城坐落\n在两条河"), "小城坐落在两条河")
    }

    func testLineBesideTheImage() {
        var p = ImageCapture.lineParts("Quote from Meditations p. 47 #stoic")
        XCTAssertEqual(p.book, "Meditations"); XCTAssertEqual(p.page, 47); XCTAssertEqual(p.tags, ["stoic"])
        p = ImageCapture.lineParts("《沉思录》第12页 #哲学")
        XCTAssertEqual(p.book, "沉思录"); XCTAssertEqual(p.page, 12); XCTAssertEqual(p.tags, ["哲学"])
        p = ImageCapture.lineParts("")
        XCTAssertNil(p.book); XCTAssertNil(p.page)
        p = ImageCapture.lineParts("p. 0")
        XCTAssertNil(p.page); XCTAssertEqual(p.badPage, "0")
    }
}

final class CoverTests: XCTestCase {
    let matcher = TitleMatcher([
        TitleMatcher.Entry(id: "a", title: "Meditations", authors: ["Marcus Aurelius"]),
        TitleMatcher.Entry(id: "b", title: "Meditations on First Philosophy", authors: ["René Descartes"]),
        TitleMatcher.Entry(id: "c", title: "The Odyssey", authors: ["Homer"]),
        TitleMatcher.Entry(id: "d", title: "人类简史", authors: ["尤瓦尔·赫拉利"]),
        TitleMatcher.Entry(id: "e", title: "Pride and Prejudice", authors: ["Jane Austen"]),
    ])

    func testCoverShowsOneBookEvenOnTwoLines() {
        XCTAssertTrue(ImageCapture.looksLikeCover("Pride and\nPrejudice\n\nJane Austen"))
        XCTAssertEqual(ImageCapture.booksShown("Pride and\nPrejudice\n\nJane Austen", matcher: matcher).map(\.id), ["e"])
        XCTAssertEqual(ImageCapture.booksShown("人类简史\n\n尤瓦尔.赫拉利", matcher: matcher).map(\.id), ["d"])
        // The exact title wins over the longer one.
        XCTAssertEqual(ImageCapture.booksShown("Meditations\n\nMarcus Aurelius", matcher: matcher).first?.id, "a")
    }

    func testShelfShowsSeveralAndNoiseShowsNone() {
        XCTAssertEqual(Set(ImageCapture.booksShown("The Odyssey\nPride and Prejudice\nwUBA", matcher: matcher).map(\.id)), ["c", "e"])
        XCTAssertTrue(ImageCapture.booksShown("ATTTATOTAT TTDTIT\nvv", matcher: matcher).isEmpty)
        XCTAssertTrue(ImageCapture.shows("The Name of\nthe Rose\nUmberto Eco", title: "The Name of the Rose"))
        XCTAssertFalse(ImageCapture.shows("The Odyssey", title: "The Name of the Rose"))
        XCTAssertFalse(ImageCapture.looksLikeCover(String(repeating: "word ", count: 80)))
    }
}
