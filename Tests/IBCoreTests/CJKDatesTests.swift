// Dates written the Chinese way, as titles and questions write them.
import XCTest
@testable import IBCore

final class CJKDatesTests: XCTestCase {
    func span(_ text: String) -> String {
        guard let d = CJKDates.find(text).first else { return "none" }
        let years = d.years.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0)" } ?? "-"
        guard let from = d.from, let to = d.to else { return "\(years) -" }
        return "\(years) \(from)-\(to)\(d.precise ? " day" : "")"
    }

    func testDaysMonthsAndYears() {
        XCTAssertEqual(span("5月4日"), "- 504-504 day")
        XCTAssertEqual(span("五月四日那天他去了哪里？"), "- 504-504 day")
        XCTAssertEqual(span("十二月二十五号"), "- 1225-1225 day")
        XCTAssertEqual(span("一九三七年五月四日 星期二 晴"), "1937 504-504 day")
        XCTAssertEqual(span("1937年5月"), "1937 501-531")
        XCTAssertEqual(span("在1835年"), "1835 -")
        XCTAssertEqual(span("五月初"), "- 501-510")
        XCTAssertEqual(span("九月中旬"), "- 911-920")
        XCTAssertEqual(span("二月下旬"), "- 221-229")
        XCTAssertEqual(span("六月底"), "- 621-630")
        XCTAssertEqual(span("二月三十日"), "- 201-229", "no 30th of February: the month")
    }

    func testSeasonsAndFeasts() {
        XCTAssertEqual(span("1834年春天"), "1834 301-531")
        XCTAssertEqual(span("那年冬天"), "- 1201-229")
        XCTAssertEqual(span("深秋的时候"), "- 1101-1130")
        XCTAssertEqual(span("早春"), "- 301-331")
        XCTAssertEqual(span("圣诞节那天"), "- 1224-1226")
        XCTAssertEqual(span("平安夜"), "- 1224-1224 day")
    }

    func testWordsThatAreNoDates() {
        for text in ["春节", "第二天", "有一天", "一年", "春风", "秋千", "in 1835 and May 4"] {
            XCTAssertEqual(span(text), "none", text)
        }
        XCTAssertEqual(span("三月份的"), "- 301-331", "a month, whatever follows")
    }
}
