// The child-process runner with real programs (cat, sh, sleep): input larger
// than any pipe or socket buffer goes in while the output comes out (no
// deadlock), a child that exits without reading its input does not kill us with
// SIGPIPE, the error line is the child's own, and a silent child is stopped.
import XCTest
import IBCore

final class SubprocessTests: XCTestCase {
    func testLargeInputIsEchoedWithoutDeadlock() throws {
        let input = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let process = try Subprocess(["cat"], stallSeconds: 30, input: input)
        let output = try process.readAllStdout(limit: 8 << 20)
        XCTAssertEqual(process.wait(), 0)
        XCTAssertEqual(output.count, input.count)
        XCTAssertTrue(output == input)
    }

    func testAChildThatIgnoresItsInputIsNoSIGPIPE() throws {
        let process = try Subprocess(["sh", "-c", "echo done"], stallSeconds: 30, input: [UInt8](repeating: 65, count: 1 << 20))
        XCTAssertEqual(String(decoding: try process.readAllStdout(limit: 1 << 20), as: UTF8.self), "done\n")
        XCTAssertEqual(process.wait(), 0)
    }

    func testWithoutInputStdinIsEmptyNotTheTerminal() throws {
        let process = try Subprocess(["sh", "-c", "wc -c"], stallSeconds: 30)
        XCTAssertEqual(String(decoding: try process.readAllStdout(limit: 1 << 10), as: UTF8.self).trimmed, "0")
        XCTAssertEqual(process.wait(), 0)
    }

    func testTheErrorLineAndTheExitStatus() throws {
        let process = try Subprocess(["sh", "-c", "echo warming up >&2; echo 'Error: no such model' >&2; echo trace >&2; exit 3"],
                                     stallSeconds: 30, input: Array("q".utf8))
        _ = try process.readAllStdout(limit: 1 << 10)
        XCTAssertEqual(process.wait(), 3)
        XCTAssertEqual(process.errorLine(startingWith: "Error"), "Error: no such model")
        XCTAssertEqual(process.errorLine(startingWith: "Fatal"), "trace", "else the last line")
        XCTAssertEqual(process.errorLines, ["warming up", "Error: no such model", "trace"])
    }

    func testASilentChildIsStoppedAndAMissingOneNamed() throws {
        let process = try Subprocess(["sleep", "30"], stallSeconds: 0.5)
        XCTAssertThrowsError(try process.readAllStdout(limit: 1 << 10)) { error in
            XCTAssertEqual((error as? SubprocessError)?.kind, .stalled(seconds: 0.5))
        }
        XCTAssertEqual(process.wait(), 128 + SIGKILL)
        XCTAssertThrowsError(try Subprocess(["ib-no-such-program"], stallSeconds: 1)) { error in
            XCTAssertEqual((error as? SubprocessError)?.kind, .missingTool)
        }
    }
}
