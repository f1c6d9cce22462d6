// Chinese numerals and the parts Chinese titles and questions count.
import XCTest
@testable import IBCore

final class CJKNumeralsTests: XCTestCase {
    func testValues() {
        let cases: [(String, Int?)] = [("一", 1), ("十", 10), ("十二", 12), ("二十", 20), ("二十一", 21), ("一百零三", 103),
                                       ("两百", 200), ("一千二百三十四", 1234), ("12", 12), ("１２", 12), ("〇", nil),
                                       ("", nil), ("十百", nil), ("一九三七", nil), ("一百零五", 105), ("第", nil), ("一二三四五六七八九", nil)]
        for (text, value) in cases { XCTAssertEqual(CJKNumerals.value(text), value, text) }
    }

    func testCountedParts() {
        let parts = CJKNumerals.countedParts("在第三幕第二场，然后是最后一章；第二天不是")
        XCTAssertEqual(parts.map(\.kind), ["act", "scene", "chapter"])
        XCTAssertEqual(parts.map(\.number), [3, 2, -1])
        XCTAssertEqual(parts.map(\.range), [1..<4, 4..<7, 11..<15])
        XCTAssertEqual(CJKNumerals.countedParts("第十二章").first?.number, 12)
        XCTAssertEqual(CJKNumerals.countedParts("第二十一回").first?.kind, "chapter")
        XCTAssertEqual(CJKNumerals.countedParts("第章 第 第一"), [])
    }
}
