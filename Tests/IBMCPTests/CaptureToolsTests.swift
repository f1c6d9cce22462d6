// ib-mcp's capture tools lose nothing and guess nothing (issue 29): a note
// holding NUL is refused whole (never stored cut at the NUL), and a plan names
// each book once however often it is given, with a cap on its size. On the
// real library file of ServerTests.
import XCTest
import IBCore
import IBStore
@testable import IBMCP

extension ServerTests {
    func tableCount(_ table: String) throws -> Int {
        try Library.open(path: path).db.scalarInt("SELECT count(*) FROM \(table)") ?? -1
    }

    func testNoteWithNULIsRefusedWhole() throws {
        _ = try makeLibrary()
        _ = try initialize()
        _ = try call("capture", ["line": "Reading The Adventures of Sherlock Holmes"])
        let r = try call("add_note", ["text": "A\u{0}hidden tail"])
        XCTAssertTrue(errorText(r).contains("NUL"), r.serialized)
        XCTAssertEqual(try tableCount("notes"), 0)
        let q = try call("add_quote", ["text": "before\u{0}after", "page": 1])
        XCTAssertTrue(errorText(q).contains("NUL"), q.serialized)
        XCTAssertEqual(try tableCount("quotes"), 0)
    }

    func testPlanNamesEachBookOnce() throws {
        let (holmes, _) = try makeLibrary()
        _ = try initialize()
        let plan = try call("set_plan", ["books": .array(Array(repeating: .string(holmes), count: 1000)), "due": "2099-12-31"])
        let s = try XCTUnwrap(plan["structuredContent"], plan.serialized)
        XCTAssertEqual(s["books"]?.arrayValue?.count, 1)
        XCTAssertEqual(s["pages_left"]?.intValue, 8)
        let byTitle = try call("set_plan", ["books": ["Sherlock", "Adventures of Sherlock Holmes", .string(holmes)], "due": "2099-12-31"])
        XCTAssertEqual(byTitle["structuredContent"]?["pages_left"]?.intValue, 8, byTitle.serialized)
    }

    func testPlanPastTheCapIsRefused() throws {
        _ = try makeLibrary()
        _ = try initialize()
        let names: [JSON] = (0...1000).map { .string("book \($0)") }
        let r = try call("set_plan", ["books": .array(names), "due": "2099-12-31"])
        XCTAssertTrue(errorText(r).contains("at most 1000"), r.serialized)
        XCTAssertEqual(try tableCount("reading_plans"), 0)
    }
}
