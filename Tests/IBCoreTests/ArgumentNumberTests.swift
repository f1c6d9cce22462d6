// The one routine every numeric option goes through (Arguments.int, .double,
// .seconds, .path): hostile values are usage errors (exit 2) naming the option
// and the value, on one line; boundaries are inclusive as documented.
import XCTest
@testable import IBCore

final class ArgumentNumberTests: XCTestCase {
    static let hostile = ["inf", "-inf", "infinity", "nan", "NaN", "-nan", "-1", "1e308", "-1e308",
                          "99999999999999999999", "-99999999999999999999", "", " ", " 5", "5 ", "0x10",
                          "1.5.2", "abc", "5abc", "--", "1_000", String(repeating: "9", count: 100_000),
                          String(repeating: "x", count: 100_000), "\u{FFFD}\u{FFFD}", "5\n6", "\u{0}"]

    func args(_ name: String, _ value: String) throws(IBError) -> Arguments {
        try Arguments(["--\(name)", value], options: [.init(name, takesValue: true)])
    }

    /// Asserts a usage error that names the option and is one line.
    func assertUsage<T>(_ body: @autoclosure () throws -> T, option: String, _ value: String,
                        file: StaticString = #filePath, line: UInt = #line) {
        do {
            let result = try body()
            XCTFail("--\(option) \(value.prefix(20)) was accepted as \(result)", file: file, line: line)
        } catch let error as IBError {
            XCTAssertEqual(error.code, .usage, file: file, line: line)
            XCTAssertTrue(error.message.contains("--\(option)"), error.message, file: file, line: line)
            XCTAssertFalse(error.message.contains("\n"), error.message, file: file, line: line)
            XCTAssertLessThan(error.message.count, 200, file: file, line: line)
            XCTAssertTrue(error.message.contains("'" + Arguments.shown(value) + "'"), error.message, file: file, line: line)
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
        }
    }

    func testIntRefusesHostileValues() throws {
        for value in Self.hostile + ["0", "101", "1.0", "1e2"] {
            assertUsage(try args("count", value).int("count", min: 1, max: 100), option: "count", value)
        }
    }

    func testIntBoundaries() throws {
        XCTAssertEqual(try args("n", "1").int("n", min: 1, max: 100), 1)
        XCTAssertEqual(try args("n", "100").int("n", min: 1, max: 100), 100)
        XCTAssertEqual(try args("n", "+7").int("n", min: 1, max: 100), 7)
        XCTAssertEqual(try args("n", "0").int("n", min: 0, max: 0), 0)
        XCTAssertEqual(try args("n", "-5").int("n", min: -5, max: 5), -5)
        XCTAssertEqual(try args("n", "\(Int.max)").int("n", min: 0, max: .max), .max)
        assertUsage(try args("n", "0").int("n", min: 1, max: 100), option: "n", "0")
        assertUsage(try args("n", "101").int("n", min: 1, max: 100), option: "n", "101")
        assertUsage(try args("n", "9223372036854775808").int("n", min: 0, max: .max), option: "n", "9223372036854775808")
        // Not given: nil, whatever the range.
        XCTAssertNil(try Arguments([], options: [.init("n", takesValue: true)]).int("n", min: 1, max: 2))
        // The last value counts.
        let twice = try Arguments(["--n", "abc", "--n=3"], options: [.init("n", takesValue: true)])
        XCTAssertEqual(try twice.int("n", min: 1, max: 5), 3)
    }

    func testDoubleRefusesHostileValues() throws {
        for value in Self.hostile + ["0", "1000001"] {
            assertUsage(try args("rrf-k", value).double("rrf-k", min: 0, max: 1e6, minExclusive: true), option: "rrf-k", value)
        }
    }

    func testDoubleBoundaries() throws {
        XCTAssertEqual(try args("x", "1e6").double("x", min: 0, max: 1e6, minExclusive: true), 1e6)
        XCTAssertEqual(try args("x", "5e-324").double("x", min: 0, max: 1, minExclusive: true), 5e-324)
        assertUsage(try args("x", "0").double("x", min: 0, max: 1, minExclusive: true), option: "x", "0")
        assertUsage(try args("x", "-0").double("x", min: 0, max: 1, minExclusive: true), option: "x", "-0")
        XCTAssertEqual(try args("x", "0").double("x", min: 0, max: 1), 0)
        XCTAssertEqual(try args("x", "0.5").double("x", min: 0, max: 1), 0.5)
        XCTAssertEqual(try args("x", "1").double("x", min: 0, max: 1), 1)
        assertUsage(try args("x", "1.0000001").double("x", min: 0, max: 1), option: "x", "1.0000001")
        do {
            _ = try args("x", "0").double("x", min: 0, max: 1e6, minExclusive: true)
        } catch {
            XCTAssertEqual(error.message, "--x must be a number above 0 and at most 1000000, not '0'")
        }
    }

    func testSecondsRefuseHostileValues() throws {
        for value in Self.hostile + ["0", "0.0", "0.0004", "86400.5", "1e5"] {
            assertUsage(try args("timeout", value).seconds("timeout"), option: "timeout", value)
        }
        // A timeout never becomes 0 ms (libcurl's "no timeout") nor overflows as ms or ns.
        XCTAssertEqual(try args("timeout", "0.001").seconds("timeout"), 0.001)
        XCTAssertEqual(try args("timeout", "86400").seconds("timeout"), 86_400)
        XCTAssertLessThan(Arguments.maxSeconds * 1e9, Double(Int.max))
        XCTAssertGreaterThanOrEqual(Arguments.minSeconds * 1000, 1)
        XCTAssertEqual(try args("timeout", "3600").seconds("timeout", max: 3600), 3600)
        assertUsage(try args("timeout", "3601").seconds("timeout", max: 3600), option: "timeout", "3601")
        do {
            _ = try args("timeout", "inf").seconds("timeout")
        } catch {
            XCTAssertEqual(error.message, "--timeout must be a number of seconds from 0.001 to 86400, not 'inf'")
        }
    }

    func testPathRefusesEmpty() throws {
        XCTAssertEqual(try args("db", "/tmp/x.db").path("db"), "/tmp/x.db")
        XCTAssertNil(try Arguments([], options: [.init("db", takesValue: true)]).path("db"))
        do {
            _ = try Arguments(["--db="], options: [.init("db", takesValue: true)]).path("db")
            XCTFail("--db '' accepted")
        } catch {
            XCTAssertEqual(error.code, .usage)
            XCTAssertTrue(error.message.contains("--db"))
        }
    }

    func testParseIntNamesWhatItParses() throws {
        XCTAssertEqual(try Arguments.parseInt("0", name: "set-page N", min: 0, max: 10), 0)
        do {
            _ = try Arguments.parseInt("-1", name: "set-page N", min: 0, max: 10)
            XCTFail("-1 accepted")
        } catch {
            XCTAssertEqual(error.message, "set-page N must be a whole number from 0 to 10, not '-1'")
        }
    }

    func testShownKeepsMessagesToOneShortLine() {
        XCTAssertEqual(Arguments.shown("abc"), "abc")
        XCTAssertEqual(Arguments.shown("a\nb\tc\u{0}"), "a?b?c?")
        XCTAssertEqual(Arguments.shown(String(repeating: "7", count: 100_000)), String(repeating: "7", count: 40) + "...")
        XCTAssertEqual(Arguments.shown(""), "")
    }
}
