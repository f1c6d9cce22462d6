import XCTest
#if canImport(Glibc)
import Glibc
#endif
import IBCore
@testable import IBCapture

/// Line breaking and sizing, without drawing.
final class QuoteCardLayoutTests: XCTestCase {
    func testBalancedLinesLeaveNoLoneLastWord() {
        let text = "You have power over your mind, not outside events. Realize this, and you will find strength."
        for measure in stride(from: 12.0, through: 40.0, by: 1.0) {
            let lines = LineBreaking.balanced(LineBreaking.pieces(text), measure: measure)
            XCTAssertEqual(lines.joined(separator: " "), text, "measure \(measure): words lost or moved")
            if lines.count > 1 {
                XCTAssertGreaterThan(lines.last!.split(separator: " ").count, 1, "measure \(measure): a lone last word in \(lines)")
            }
            for line in lines where line.contains(" ") {
                XCTAssertLessThanOrEqual(LineBreaking.width(line), measure + 0.001, "measure \(measure): \(line) too wide")
            }
        }
        // Balanced, not greedy: the lines of a two-line quote are near the same width.
        let two = LineBreaking.balanced(LineBreaking.pieces("The unexamined life is not worth living for a human being"), measure: 20)
        XCTAssertEqual(two.count, 2)
        guard two.count == 2 else { return }
        XCTAssertLessThan(abs(LineBreaking.width(two[0]) - LineBreaking.width(two[1])), 8, "\(two)")
    }

    func testChineseBreaksKeepPunctuationWithItsCharacter() {
        let text = "人类的历史就是一部想象的历史，我们因为相信同样的故事而合作。「想象」让陌生人也能合作；这就是力量！"
        for measure in stride(from: 5.0, through: 16.0, by: 1.0) {
            let lines = LineBreaking.balanced(LineBreaking.pieces(text), measure: measure)
            XCTAssertEqual(lines.joined(), text)
            for (i, line) in lines.enumerated() {
                XCTAssertFalse(LineBreaking.noLineStart.contains(line.first!), "measure \(measure): line \(i) starts with \(line.first!)")
                XCTAssertFalse(LineBreaking.noLineEnd.contains(line.last!), "measure \(measure): line \(i) ends with \(line.last!)")
            }
            XCTAssertGreaterThan(lines.last!.count, 1, "measure \(measure): one character alone on the last line")
        }
        // Mixed text: a Latin word inside Chinese stays whole.
        let mixed = LineBreaking.balanced(LineBreaking.pieces("我们读了Sapiens这本书，很有意思"), measure: 6)
        XCTAssertTrue(mixed.contains { $0.contains("Sapiens") }, "\(mixed)")
    }

    func testTheSizeStepsDownForALongQuoteAndALongOneFits() {
        let long = QuoteCard(text: String(repeating: "Life is long enough if you know how to use it well. ", count: 12),
                             title: "On the Shortness of Life", authors: ["Seneca"], pageLabel: "3")
        XCTAssertGreaterThanOrEqual(long.body.count, 600)
        let short = QuoteCard(text: "The unexamined life is worthless.", title: "Apology", authors: ["Plato"], pageLabel: nil)
        for (w, h) in [(1080, 1080), (1080, 1350), (1200, 630)] {
            let l = long.layout(width: w, height: h), s = short.layout(width: w, height: h)
            XCTAssertLessThan(l.size, s.size * 0.6, "\(w)x\(h): a long quote is set smaller")
            let margins = 0.2 * Double(min(w, h))
            XCTAssertLessThanOrEqual(Double(l.lines.count) * l.lineHeight, Double(h) - margins, "\(w)x\(h): the long quote overflows")
            XCTAssertLessThanOrEqual(LineBreaking.widest(l.lines) * l.size, Double(w) - margins + 0.001)
        }
    }

    func testALongTitleWrapsInsideTheMargins() {
        let card = QuoteCard(text: "Short and sweet.", title: "The Extraordinarily Long and Winding Title of a Book About Many Things",
                             authors: ["Somebody With A Long Name"], pageLabel: "5")
        let l = card.layout(width: 1080, height: 1080)
        XCTAssertGreaterThan(l.attribution.count, 2, "\(l.attribution)")
        XCTAssertEqual(l.attribution.joined(separator: " "), card.attribution.joined(separator: " "))
        XCTAssertLessThanOrEqual(LineBreaking.widest(l.attribution) * l.attributionSize, 1080 * 0.8 + 0.001)
    }

    func testHelpNamesThePictureOptionsInBothLanguages() {
        for word in ["--style", "--size", "--output", "-o,", "--svg", "card QUOTE", "chart streak|pages|plan|progress", "suggest", "cards", "$IB_NOW"] {
            XCTAssertTrue(CaptureTool.help.contains(word), "English help lacks \(word)")
        }
        for word in ["--style", "--size", "--output", "--svg", "suggest", "cards", "$IB_NOW", "摘录卡片"] {
            XCTAssertTrue(CaptureTool.helpChinese.contains(word), "Chinese help lacks \(word)")
        }
    }

    func testSVGEscapesTextAndNamesTheFaces() {
        let card = QuoteCard(text: "Less <than> & \"more\"", title: "A & B", authors: [], pageLabel: "xii")
        let svg = card.picture(style: .minimal, width: 600, height: 400).svg()
        XCTAssertTrue(svg.contains("&lt;than&gt;"), svg)
        XCTAssertTrue(svg.contains("A &amp; B"))
        XCTAssertTrue(svg.contains("p. xii"))
        XCTAssertFalse(svg.contains("<than>"))
        XCTAssertTrue(svg.contains("DejaVu Sans"))
    }
}

/// Cards drawn for real: cairo's PNG and rsvg-convert's rendering of the SVG, read back with tesseract.
final class QuoteCardRenderingTests: XCTestCase {
    static let root = #filePath.replacingAll("Tests/IBCaptureTests/QuoteCardTests.swift", "")
    static let outDir = root + ".build/cards-test"

    static func shell(_ command: String) -> (status: Int32, output: String) {
        guard let f = popen(command, "r") else { return (-1, "") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        let status = pclose(f)
        return (status, String(decoding: bytes, as: UTF8.self))
    }

    override func setUp() async throws {
        if case .failure(let e) = CairoPango.shared { throw XCTSkip("cairo/pango absent: \(e.message)") }
        for tool in ["tesseract", "rsvg-convert"] where QuoteCardRenderingTests.shell("command -v \(tool)").status != 0 {
            throw XCTSkip("\(tool) absent")
        }
        try FileSystem.createDirectories(QuoteCardRenderingTests.outDir)
    }

    /// Letters and digits only, lower-cased (CJK kept): what OCR is compared on.
    static func letters(_ s: String) -> [Character] {
        Array(s.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    /// The share of `expected`'s letters OCR read back in order (longest common subsequence).
    static func readBack(_ expected: String, in ocr: String) -> Double {
        let a = letters(expected), b = letters(ocr)
        guard !a.isEmpty else { return 1 }
        var row = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var diagonal = 0
            for j in 1...max(1, b.count) where j <= b.count {
                let up = row[j]
                row[j] = x == b[j - 1] ? diagonal + 1 : max(row[j], row[j - 1])
                diagonal = up
            }
        }
        return Double(row[b.count]) / Double(a.count)
    }

    /// Draws `card` both ways, checks each PNG, OCRs each; returns the OCR texts (cairo, rsvg).
    func render(_ card: QuoteCard, _ style: CardStyle, name: String, size: (Int, Int) = (1080, 1080), language: String = "eng",
                file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let dir = QuoteCardRenderingTests.outDir
        let picture = card.picture(style: style, width: size.0, height: size.1)
        let png = "\(dir)/\(name)-\(style.rawValue).png", svg = "\(dir)/\(name)-\(style.rawValue).svg"
        let rsvg = "\(dir)/\(name)-\(style.rawValue).rsvg.png"
        try picture.write(format: "png", to: png)
        try picture.write(format: "svg", to: svg)
        let converted = QuoteCardRenderingTests.shell("rsvg-convert '\(svg)' -o '\(rsvg)' 2>&1")
        XCTAssertEqual(converted.status, 0, "rsvg-convert: \(converted.output)", file: file, line: line)
        var texts: [String] = []
        for path in [png, rsvg] {
            let seen = try PictureCairo.inspectPNG(path)
            XCTAssertEqual(seen.width, size.0, "\(path) width", file: file, line: line)
            XCTAssertEqual(seen.height, size.1, "\(path) height", file: file, line: line)
            XCTAssertGreaterThan(seen.inked, size.0 * size.1 / 200, "\(path): next to nothing drawn", file: file, line: line)
            let ocr = QuoteCardRenderingTests.shell("tesseract '\(path)' - -l \(language) 2>/dev/null")
            XCTAssertEqual(ocr.status, 0, file: file, line: line)
            texts.append(ocr.output)
        }
        return texts
    }

    let meditations = QuoteCard(text: "You have power over your mind, not outside events. Realize this, and you will find strength.",
                                title: "Meditations", authors: ["Marcus Aurelius"], pageLabel: "47")

    func testEveryStyleReadsBackTheQuoteAndAttributionInBothRenderers() throws {
        for style in CardStyle.allCases {
            for (i, ocr) in try render(meditations, style, name: "meditations").enumerated() {
                let renderer = i == 0 ? "cairo" : "rsvg"
                XCTAssertGreaterThan(Self.readBack(meditations.text, in: ocr), 0.92, "\(style) \(renderer): \(ocr)")
                XCTAssertGreaterThan(Self.readBack("Meditations Marcus Aurelius p 47", in: ocr), 0.9, "\(style) \(renderer): \(ocr)")
            }
        }
    }

    func testChineseCardsReadBack() throws {
        let card = QuoteCard(text: "人类的历史就是一部想象的历史，我们因为相信同样的故事而合作。", title: "人类简史",
                             authors: ["尤瓦尔·赫拉利"], pageLabel: "12")
        for style in [CardStyle.serif, .modern] {
            for ocr in try render(card, style, name: "sapiens-zh", language: "chi_sim") {
                XCTAssertGreaterThan(Self.readBack(card.text, in: ocr), 0.85, "\(style): \(ocr)")
                XCTAssertGreaterThan(Self.readBack("人类简史第12页", in: ocr), 0.8, "\(style): \(ocr)")
            }
        }
    }

    func testASixHundredCharacterQuoteFitsAndItsLastWordsAreRead() throws {
        let text = "It is not that we have a short time to live, but that we waste a lot of it. Life is long enough, and a sufficiently "
            + "generous amount has been given to us for the highest achievements if it were all well invested. But when it is wasted "
            + "in heedless luxury and spent on no good activity, we are forced at last by death's final constraint to realize that it "
            + "has passed away before we knew it was passing. So it is: we are not given a short life but we make it short, and we are "
            + "not ill-supplied but wasteful of it. Just as great and princely wealth is squandered the moment it falls to a careless and bad owner."
        XCTAssertGreaterThanOrEqual(text.count, 600)
        let card = QuoteCard(text: text, title: "On the Shortness of Life", authors: ["Seneca"], pageLabel: "3")
        for ocr in try render(card, .minimal, name: "seneca-long") {
            XCTAssertGreaterThan(Self.readBack("falls to a careless and bad owner", in: ocr), 0.9, ocr)
            XCTAssertGreaterThan(Self.readBack("It is not that we have", in: ocr), 0.9, ocr)
            XCTAssertGreaterThan(Self.readBack("On the Shortness of Life Seneca", in: ocr), 0.9, ocr)
        }
    }

    func testAFiveWordQuoteIsCentred() throws {
        let card = QuoteCard(text: "The unexamined life is worthless.", title: "Apology", authors: ["Plato"], pageLabel: "38a")
        for style in CardStyle.allCases {
            _ = try render(card, style, name: "plato-short")
            let edge = Int(1080 * 0.06)
            for suffix in [".png", ".rsvg.png"] {
                let seen = try PictureCairo.inspectPNG("\(Self.outDir)/plato-short-\(style.rawValue)\(suffix)", ignoringEdge: edge)
                let cx = Double(seen.minX + seen.maxX) / 2, cy = Double(seen.minY + seen.maxY) / 2
                XCTAssertEqual(cx, 540, accuracy: 1080 * 0.06, "\(style)\(suffix): ink centred across")
                XCTAssertEqual(cy, 540, accuracy: 1080 * 0.06, "\(style)\(suffix): ink centred down")
                XCTAssertGreaterThan(Double(seen.maxX - seen.minX), 1080 * 0.45, "\(style)\(suffix): set large, not lost in a corner")
            }
        }
    }
}
