// ib-embed's progress line: an ETA in a pipe (from the pages reached of the
// book's page count), and whole lines when make -j runs several at once.
import XCTest
import IBCore
@testable import IBEmbed

final class ProgressTests: XCTestCase {
    func testSharesTerminalOnlyUnderParallelMake() {
        XCTAssertTrue(Progress.sharesTerminal(makeflags: " -j2 --jobserver-auth=3,4"))
        XCTAssertTrue(Progress.sharesTerminal(makeflags: "-j8"))
        XCTAssertTrue(Progress.sharesTerminal(makeflags: "--jobserver-fds=3,4 -j"))
        XCTAssertFalse(Progress.sharesTerminal(makeflags: nil))
        XCTAssertFalse(Progress.sharesTerminal(makeflags: "s"))
        XCTAssertFalse(Progress.sharesTerminal(makeflags: "-j1"))
    }

    func testETAFromPagesInAPipe() {
        let progress = Progress(environment: nil)
        XCTAssertFalse(progress.wholeLines)
        progress.startFile(path: "/dev/null")          // not a regular file: no size
        XCTAssertNil(progress.eta(now: Timestamp.monotonic()), "no book yet: no ETA")
        progress.startBook(title: "Dracula", pages: 400)
        progress.reached(page: 100)
        // A quarter of the pages in 10 s (the clock given): 30 s left.
        XCTAssertEqual(progress.eta(now: Timestamp.monotonic() + 10) ?? 0, 30, accuracy: 1)
        progress.reached(page: 400)
        XCTAssertNil(progress.eta(now: Timestamp.monotonic()), "the last page reached: no ETA")
    }
}
