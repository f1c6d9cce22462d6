import XCTest
@testable import IBCore

final class CalendarWordsTests: XCTestCase {
    /// A shortened second year is the first at or after the first year with its digits.
    func testYearEndingAfterADash() {
        XCTAssertEqual(CalendarWords.yearEnding(in: "3", from: 1662), 1663)
        XCTAssertEqual(CalendarWords.yearEnding(in: "0", from: 1669), 1670, "across a decade")
        XCTAssertEqual(CalendarWords.yearEnding(in: "15", from: 1714), 1715)
        XCTAssertEqual(CalendarWords.yearEnding(in: "00", from: 1699), 1700, "across a century")
        XCTAssertEqual(CalendarWords.yearEnding(in: "1660", from: 1659), 1660)
        XCTAssertEqual(CalendarWords.yearEnding(in: "35", from: 1835), 1835, "the same year")
        XCTAssertNil(CalendarWords.yearEnding(in: "166", from: 1659), "three digits shorten nothing")
        XCTAssertNil(CalendarWords.yearEnding(in: "x", from: 1659))
    }
}
