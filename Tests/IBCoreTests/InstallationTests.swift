// --version's text and the paths an installed tool derives from its own.
import XCTest
@testable import IBCore

final class InstallationTests: XCTestCase {
    func testParent() {
        XCTAssertEqual(Installation.parent("/usr/bin/ib-parse"), "/usr/bin")
        XCTAssertEqual(Installation.parent("/usr"), "/")
        XCTAssertEqual(Installation.parent("ib-parse"), ".")
    }

    func testVersionTextIsThreeLines() {
        let text = Installation.versionText(tool: "ib-test", modelDirectoryFlag: "/nonexistent/model")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 4)       // three lines and the final newline
        XCTAssertEqual(lines[0], "ib-test \(ibVersion)")
        XCTAssertTrue(lines[1].hasPrefix("commit: "))
        XCTAssertEqual(lines[2], "model: /nonexistent/model (not installed: run \(Installation.fetchModelCommand))")
        XCTAssertTrue(Installation.versionText(tool: "t", model: "openai/x").contains("\nmodel: openai/x\n"))
    }

    func testNotInstalledPointsAtTheCheckoutScripts() {
        // The test runner lives in .build, with no lib/ib beside its bin folder.
        XCTAssertNil(Installation.libDirectory)
        XCTAssertEqual(Installation.fetchModelCommand, "scripts/fetch-model")
        XCTAssertEqual(Installation.buildThesaurusCommand, "scripts/build-thesaurus")
    }
}
