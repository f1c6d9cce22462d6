// The one output rule (OutputFormat): text on a terminal, JSON Lines in a
// pipe, --json and --format text|json to choose, contradictions refused.
import XCTest
import IBCore

final class OutputFormatTests: XCTestCase {
    func format(_ argv: [String], terminal: Bool) throws -> OutputFormat {
        try OutputFormat.chosen(Arguments(argv, options: OutputFormat.options), stdoutIsTerminal: terminal)
    }

    func testTerminalIsTextAndPipeIsJSON() throws {
        XCTAssertEqual(try format([], terminal: true), .text)
        XCTAssertEqual(try format([], terminal: false), .json)
    }

    func testFlagsChoose() throws {
        XCTAssertEqual(try format(["--json"], terminal: true), .json)
        XCTAssertEqual(try format(["--format", "text"], terminal: false), .text)
        XCTAssertEqual(try format(["--format=json"], terminal: true), .json)
        XCTAssertEqual(try format(["--json", "--format", "json"], terminal: true), .json)
    }

    func testContradictionsAndUnknownFormatsAreUsageErrors() {
        for argv in [["--json", "--format", "text"], ["--format", "yaml"], ["--format", ""]] {
            XCTAssertThrowsError(try format(argv, terminal: true), "\(argv)") { error in
                XCTAssertEqual((error as? IBError)?.code, .usage, "\(argv)")
            }
        }
    }
}
