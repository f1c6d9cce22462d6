// ib-mcp's server on a real library file (text search: no model needed):
// the handshake and version negotiation, malformed and unknown messages,
// argument checking, no spoilers, ambiguity without writes, resources, and
// every structured result against its tool's output schema.
import XCTest
import IBCore
import IBStore
@testable import IBMCP
#if canImport(Glibc)
import Glibc
#endif

final class ServerTests: XCTestCase {
    var directory = ""
    var path: String { directory + "/library.db" }
    var server: MCPServer!
    var nextID = 0

    override func setUpWithError() throws {
        var template = Array("/tmp/ibmcp-test-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        server = MCPServer(databasePath: path, modelDirectory: directory + "/no-model")
    }

    override func tearDown() {
        _ = system("rm -rf '\(directory)'")
    }

    // Chunk 3 spans pages 5-6; the second and third books share a title word.
    static let passages: [(start: Int, end: Int, text: String)] = [
        (1, 1, "Mr. Sherlock Holmes sat at breakfast in Baker Street and read the morning paper."),
        (2, 3, "The governess was told she must cut her chestnut hair quite short."),
        (3, 4, "A great goose was bought at the market, and a blue stone was found in its crop."),
        (5, 6, "The speckled band was a swamp adder, the deadliest snake in India."),
        (7, 8, "Watson observed that the banker had brought the beryl coronet as security."),
    ]

    func addBook(_ title: String, _ library: Library, passages: [(start: Int, end: Int, text: String)] = passages) throws -> String {
        let sha = SHA256.hex(title)
        let id = BookRecord.id(forSHA256: sha)
        let indexer = Indexer(library: library)
        let pageCount = passages.map(\.end).max() ?? 1
        _ = try indexer.add(.book(BookRecord(id: id, title: title, authors: ["Arthur Conan Doyle"], language: "en", format: "txt",
                                             source: "/books/\(title)", sha256: sha, pageCount: pageCount)))
        for p in 1...pageCount {
            _ = try indexer.add(.page(PageRecord(bookID: id, page: p, label: "\(p + 10)", sectionIndex: (p - 1) / 4,
                                                 sectionTitle: p <= 4 ? "Part One" : "Part Two", text: "page \(p)")))
        }
        for (i, p) in passages.enumerated() {
            _ = try indexer.add(.chunk(ChunkRecord(bookID: id, index: i, startPage: p.start, endPage: p.end, startOffset: 0,
                                                   endOffset: 0, tokenCount: 10, text: p.text)))
        }
        try indexer.finish()
        return id
    }

    func makeLibrary() throws -> (holmes: String, other: [String]) {
        let library = try Library.open(path: path)
        let holmes = try addBook("The Adventures of Sherlock Holmes", library)
        let a = try addBook("The Valley of Fear", library, passages: [(1, 1, "A valley in fear.")])
        let b = try addBook("The Valley of Fear and Other Tales", library, passages: [(1, 1, "Other tales of the valley.")])
        return (holmes, [a, b])
    }

    // MARK: helpers

    @discardableResult
    func send(_ text: String) throws -> JSON? {
        guard let out = server.handle(text) else { return nil }
        XCTAssertFalse(out.contains("\n"), "a response is one line")
        return try JSON.parse(out)
    }

    func request(_ method: String, _ params: JSON = .object(JSONObject())) throws -> JSON {
        nextID += 1
        let message: JSON = ["jsonrpc": "2.0", "id": JSON(nextID), "method": .string(method), "params": params]
        let response = try XCTUnwrap(try send(message.serialized))
        XCTAssertEqual(response["id"], JSON(nextID))
        return response
    }

    func initialize(_ version: String = "2025-11-25") throws -> JSON {
        let r = try request("initialize", ["protocolVersion": .string(version), "capabilities": [:],
                                           "clientInfo": ["name": "test", "version": "1"]])
        XCTAssertNil(try send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#))
        return r
    }

    /// A tools/call's result; a successful one is checked against the tool's output schema.
    func call(_ name: String, _ arguments: JSON = [:]) throws -> JSON {
        let r = try request("tools/call", ["name": .string(name), "arguments": arguments])
        let result = try XCTUnwrap(r["result"], "\(r.serialized)")
        if result["isError"] == false, let tool = Tools.named(name) {
            let structured = try XCTUnwrap(result["structuredContent"])
            XCTAssertNil(Schema.violation(of: tool.output, by: structured, at: name), structured.serialized)
            XCTAssertEqual(try JSON.parse(result["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""), structured)
        }
        return result
    }

    func errorText(_ result: JSON) -> String {
        XCTAssertEqual(result["isError"], true, result.serialized)
        return result["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
    }

    // MARK: tests

    /// summarize: a range past the reading position is refused before anything is read; the
    /// offline summary (with the real model; skipped without it) cites nothing past the position.
    func testSummarizeStopsAtTheReadingPosition() throws {
        let ids = try makeLibrary()
        try Library.open(path: path).setPage(bookID: ids.holmes, page: 4)
        _ = try initialize()
        let refused = errorText(try call("summarize", ["book": .string(ids.holmes), "start_page": 2, "end_page": 6]))
        XCTAssertTrue(refused.contains("past the reading position"), refused)
        XCTAssertTrue(errorText(try call("summarize", ["book": .string(ids.holmes), "recap": true, "section": "1"])).contains("recap"))
        let modelDir = Config.modelDirectory()
        try XCTSkipUnless(FileSystem.exists(modelDir + "/model.safetensors"), "run scripts/fetch-model")
        server = MCPServer(databasePath: path, modelDirectory: modelDir)
        _ = try initialize()
        let result = try call("summarize", ["book": .string(ids.holmes)])
        let summary = try XCTUnwrap(result["structuredContent"], result.serialized)
        XCTAssertEqual(summary["language_model"], false)
        XCTAssertEqual(summary["up_to_page"], 4)
        let pages = summary["citations"]?.arrayValue?.flatMap { $0["pages"]?.arrayValue?.compactMap(\.intValue) ?? [] } ?? []
        XCTAssertFalse(pages.isEmpty, summary.serialized)
        XCTAssertTrue(pages.allSatisfy { $0 <= 4 }, "\(pages)")
        XCTAssertFalse(summary["summary"]?.stringValue?.contains("speckled") ?? true, "page 5 was quoted")
    }

    func testHandshakeNegotiatesVersions() throws {
        for version in MCPServer.supportedVersions {
            server = MCPServer(databasePath: path, modelDirectory: nil)
            let r = try initialize(version)
            XCTAssertEqual(r["result"]?["protocolVersion"]?.stringValue, version)
            XCTAssertEqual(r["result"]?["serverInfo"]?["name"], "ib-mcp")
            XCTAssertNotNil(r["result"]?["capabilities"]?["tools"])
            XCTAssertNotNil(r["result"]?["capabilities"]?["resources"])
        }
        server = MCPServer(databasePath: path, modelDirectory: nil)
        XCTAssertEqual(try initialize("1999-01-01")["result"]?["protocolVersion"]?.stringValue, "2025-11-25")
        XCTAssertTrue(server.initialized)
        let bad = try request("initialize", ["capabilities": [:]])
        XCTAssertEqual(bad["error"]?["code"]?.intValue, -32602)
        XCTAssertEqual(try request("ping")["result"], .object(JSONObject()))
    }

    static let envelope: JSON = ["io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                 "io.modelcontextprotocol/clientCapabilities": [:]]

    func testModernEra() throws {
        _ = try makeLibrary()
        let discover = try request("server/discover", ["_meta": Self.envelope])["result"]
        XCTAssertEqual(discover?["supportedVersions"]?.arrayValue?.compactMap(\.stringValue).last, "2026-07-28")
        XCTAssertEqual(discover?["resultType"], "complete")
        XCTAssertEqual(discover?["cacheScope"], "public")
        XCTAssertEqual(discover?["_meta"]?["io.modelcontextprotocol/serverInfo"]?["name"], "ib-mcp")
        let list = try request("tools/call", ["name": "list_books", "arguments": [:], "_meta": Self.envelope])["result"]
        XCTAssertEqual(list?["resultType"], "complete")
        XCTAssertEqual(list?["structuredContent"]?["books"]?.arrayValue?.count, 3)
        let read = try request("resources/read", ["uri": "ib://status", "_meta": Self.envelope])["result"]
        XCTAssertEqual(read?["cacheScope"], "private")
        XCTAssertEqual(read?["ttlMs"]?.intValue, 0)
        var old = Self.envelope.objectValue!
        old["io.modelcontextprotocol/protocolVersion"] = "2025-11-25"
        let refused = try request("tools/list", ["_meta": .object(old)])["error"]
        XCTAssertEqual(refused?["code"]?.intValue, -32022)
        XCTAssertEqual(refused?["data"]?["supported"], ["2026-07-28"])
        old["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
        old["io.modelcontextprotocol/clientCapabilities"] = nil
        XCTAssertEqual(try request("tools/list", ["_meta": .object(old)])["error"]?["code"]?.intValue, -32602)
        // The era is fixed: no handshake on a modern connection, no envelope on a handshake one.
        XCTAssertEqual(try request("tools/list")["error"]?["code"]?.intValue, -32602)
        XCTAssertEqual(try request("initialize", ["protocolVersion": "2025-11-25", "capabilities": [:],
                                                  "clientInfo": ["name": "t", "version": "1"]])["error"]?["code"]?.intValue, -32022)
        server = MCPServer(databasePath: path, modelDirectory: nil)
        _ = try initialize()
        XCTAssertEqual(try request("tools/list", ["_meta": Self.envelope])["error"]?["code"]?.intValue, -32600)
    }

    func testOlderClientsGetNoStructuredContent() throws {
        _ = try makeLibrary()
        _ = try initialize("2025-03-26")
        let tools = try XCTUnwrap(try request("tools/list")["result"]?["tools"]?.arrayValue)
        XCTAssertTrue(tools.allSatisfy { $0["outputSchema"] == nil && $0["inputSchema"] != nil })
        let r = try request("tools/call", ["name": "list_books", "arguments": [:]])["result"]
        XCTAssertNil(r?["structuredContent"])
        XCTAssertEqual(try JSON.parse(r?["content"]?.arrayValue?.first?["text"]?.stringValue ?? "")["books"]?.arrayValue?.count, 3)
    }

    func testBadMessagesGetErrorsAndTheSessionGoesOn() throws {
        _ = try initialize()
        func code(_ line: String) throws -> (JSON?, Int?) {
            let r = try XCTUnwrap(try send(line), line)
            return (r["id"], r["error"]?["code"]?.intValue)
        }
        XCTAssertEqual(try code("{not json").1, -32700)
        XCTAssertEqual(try code("{not json").0, .null)
        XCTAssertEqual(try code("[1,2]").1, -32600)
        XCTAssertEqual(try code("42").1, -32600)
        XCTAssertEqual(try code(#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#).1, -32600)
        XCTAssertEqual(try code(#"{"jsonrpc":"2.0","id":7}"#).1, -32600)
        XCTAssertEqual(try code(#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#).1, -32600)
        XCTAssertEqual(try code(#"{"jsonrpc":"2.0","id":8,"method":"ping","params":[1]}"#).1, -32602)
        XCTAssertEqual(try code(#"{"jsonrpc":"2.0","id":"x","method":"no/such"}"#).0, "x")
        XCTAssertEqual(try code(#"{"jsonrpc":"2.0","id":"x","method":"no/such"}"#).1, -32601)
        XCTAssertEqual(try code(#"{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{}}"#).1, -32602)
        XCTAssertNil(try send(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#))
        XCTAssertNil(try send(#"{"jsonrpc":"2.0","id":99,"result":{}}"#))
        XCTAssertNil(try send("   "))
        XCTAssertEqual(try request("tools/call", ["name": "no_such_tool"])["error"]?["code"]?.intValue, -32602)
        XCTAssertEqual(try request("tools/call", [:])["error"]?["code"]?.intValue, -32602)
        XCTAssertEqual(try request("resources/read", ["uri": "ib://nothing"])["error"]?["code"]?.intValue, -32002)
        // Still usable.
        XCTAssertEqual(try request("ping")["result"], .object(JSONObject()))
    }

    func testMissingLibraryIsAToolError() throws {
        _ = try initialize()
        XCTAssertTrue(errorText(try call("list_books")).contains("no library at"))
        XCTAssertTrue(errorText(try call("search_library", ["query": "x"])).contains("no library at"))
        XCTAssertFalse(FileSystem.exists(path), "ib-mcp never creates a library")
        XCTAssertNotNil(try request("resources/read", ["uri": "ib://status"])["error"])
    }

    func testArgumentsAreChecked() throws {
        _ = try makeLibrary()
        _ = try initialize()
        XCTAssertTrue(errorText(try call("search_library", ["query": 5])).contains("query: expected string, got an integer"))
        XCTAssertTrue(errorText(try call("search_library", [:])).contains("\"query\" is required"))
        XCTAssertTrue(errorText(try call("search_library", ["query": "x", "k": "ten"])).contains("k: expected integer"))
        XCTAssertTrue(errorText(try call("search_library", ["query": "x", "k": 0])).contains("k: must be at least 1"))
        XCTAssertTrue(errorText(try call("search_library", ["query": "x", "mode": "fuzzy"])).contains("mode: must be one of"))
        XCTAssertTrue(errorText(try call("search_library", ["query": "x", "bogus": 1])).contains("unknown property \"bogus\""))
        XCTAssertTrue(errorText(try call("search_library", ["query": "x", "min_score": "high"])).contains("min_score: expected number"))
        XCTAssertTrue(errorText(try call("add_quote", ["text": "x", "tags": [1]])).contains("tags[0]"))
        XCTAssertTrue(errorText(try call("log_progress", ["page": 3, "pages_read": 2])).contains("only one of"))
        XCTAssertTrue(errorText(try call("get_passage", ["chunk_id": "nonsense"])).contains("BOOK_ID:INDEX"))
        XCTAssertTrue(errorText(try call("set_plan", ["books": ["Sherlock"], "due": "soon"])).contains("due"))
        let tools = try XCTUnwrap(try request("tools/list")["result"]?["tools"]?.arrayValue)
        XCTAssertEqual(tools.compactMap { $0["name"]?.stringValue },
                       ["search_library", "get_passage", "list_books", "book_status", "continue_reading", "summarize", "capture",
                        "add_quote", "add_note", "log_progress", "set_plan"])
        XCTAssertTrue(tools.allSatisfy { $0["inputSchema"]?["type"] == "object" && $0["outputSchema"]?["type"] == "object" })
    }

    func testNoSpoilersUnlessAllPages() throws {
        let (holmes, _) = try makeLibrary()
        _ = try initialize()
        let progress = try call("log_progress", ["book": "Sherlock", "page": 5])
        XCTAssertEqual(progress["structuredContent"]?["page"]?.intValue, 5)
        func endPages(_ args: JSON) throws -> [Int] {
            try call("search_library", args)["structuredContent"]?["results"]?.arrayValue?.compactMap { $0["end_page"]?.intValue } ?? []
        }
        let bounded = try endPages(["query": "speckled band snake", "mode": "text", "book": "Sherlock"])
        XCTAssertFalse(bounded.contains { $0 > 5 }, "\(bounded)")
        XCTAssertTrue(try endPages(["query": "speckled band snake", "mode": "text", "book": "Sherlock", "all_pages": true]).contains(6))
        // Each passage names the reading position that bounded its book, as ib-search --json does.
        func bounds(_ args: JSON) throws -> [Int?] {
            try call("search_library", args)["structuredContent"]?["results"]?.arrayValue?.map { $0["up_to_page"]?.intValue } ?? []
        }
        let marked = try bounds(["query": "speckled band snake", "mode": "text", "book": "Sherlock"])
        XCTAssertFalse(marked.isEmpty)
        XCTAssertTrue(marked.allSatisfy { $0 == 5 }, "\(marked)")
        XCTAssertTrue(try bounds(["query": "speckled band snake", "mode": "text", "book": "Sherlock", "all_pages": true])
            .allSatisfy { $0 == nil })
        // min_score leaves out what scores below it, and says so when nothing is left.
        let strict = try call("search_library", ["query": "speckled band snake", "mode": "text", "min_score": 1_000_000])
        XCTAssertEqual(strict["structuredContent"]?["results"]?.arrayValue?.count, 0)
        XCTAssertTrue(strict["structuredContent"]?["warnings"]?.arrayValue?.contains { $0.stringValue?.contains("min_score") ?? false } ?? false,
                      strict.serialized)
        XCTAssertEqual(try endPages(["query": "speckled band snake", "mode": "text", "min_score": -1_000_000]).count,
                       try endPages(["query": "speckled band snake", "mode": "text"]).count)
        // The passage itself, and neighbours, stop at the page.
        XCTAssertTrue(errorText(try call("get_passage", ["chunk_id": .string("\(holmes):3")])).contains("past the reading position"))
        let p = try call("get_passage", ["chunk_id": .string("\(holmes):2"), "context": 2])["structuredContent"]
        XCTAssertEqual(p?["passages"]?.arrayValue?.compactMap { $0["end_page"]?.intValue }, [1, 3, 4])
        XCTAssertEqual(p?["more_hidden"], true)
        XCTAssertEqual(p?["passages"]?.arrayValue?.first?["start_label"], "11")
        let all = try call("get_passage", ["chunk_id": .string("\(holmes):3"), "all_pages": true])
        XCTAssertTrue(all["structuredContent"]?["passages"]?.arrayValue?.first?["text"]?.stringValue?.contains("speckled") ?? false)
        // continue_reading resumes at the last passage before the position.
        let c = try call("continue_reading")["structuredContent"]
        XCTAssertEqual(c?["book"]?["id"]?.stringValue, holmes)
        XCTAssertEqual(c?["resume"]?["end_page"]?.intValue, 4)
        // The first position given is where the reader is, not pages read today; the next one is.
        XCTAssertEqual(c?["pages_today"]?.intValue, 0)
        _ = try call("log_progress", ["book": "Sherlock", "page": 7])
        XCTAssertEqual(try call("continue_reading")["structuredContent"]?["pages_today"]?.intValue, 2)
    }

    func testAmbiguousBooksWriteNothing() throws {
        let (_, others) = try makeLibrary()
        _ = try initialize()
        for (name, args) in [("add_quote", ["text": "Fear is a valley", "book": "Valley"] as JSON),
                             ("capture", ["line": "Quote p. 1 of Valley: \"x\""]),
                             ("search_library", ["query": "valley", "book": "valley"]),
                             ("log_progress", ["book": "Valley", "page": 1])] {
            let r = try call(name, args)
            XCTAssertTrue(errorText(r).contains("matches") || errorText(r).contains("ambiguous") || errorText(r).lowercased().contains("which"), "\(name): \(errorText(r))")
            let ids = r["structuredContent"]?["candidates"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            XCTAssertEqual(Set(ids), Set(others), "\(name): \(r.serialized)")
        }
        let status = try call("continue_reading")["structuredContent"]
        XCTAssertEqual(status?["last_quote"], .null)
        XCTAssertEqual(status?["pages_today"]?.intValue, 0)
        // The second step: the id settles it.
        let saved = try call("add_quote", ["text": "Fear is a valley", "book": .string(others[0]), "page": 1])
        XCTAssertEqual(saved["structuredContent"]?["book_id"]?.stringValue, others[0])
        let after = try call("continue_reading")["structuredContent"]
        XCTAssertEqual(after?["last_quote"]?["text"], "Fear is a valley")
        // The quote of the day is among the suggestions, with its reason.
        let quote = after?["suggestions"]?.arrayValue?.first { $0["kind"] == "quote" }
        XCTAssertEqual(quote?["text"], "Fear is a valley", "\(after?["suggestions"] ?? .null)")
        XCTAssertEqual(quote?["reason"], "the quote of the day")
    }

    func testCaptureFormsAndStatus() throws {
        let (holmes, _) = try makeLibrary()
        _ = try initialize()
        XCTAssertEqual(try call("capture", ["line": "Reading The Adventures of Sherlock Holmes"])["structuredContent"]?["type"], "book")
        let note = try call("add_note", ["text": "Why a snake?", "question": true, "page": 2])["structuredContent"]
        XCTAssertEqual(note?["type"], "question")
        XCTAssertEqual(note?["book_id"]?.stringValue, holmes)
        XCTAssertEqual(try call("log_progress", ["pages_read": 3])["structuredContent"]?["page"]?.intValue, 3)
        XCTAssertEqual(try call("capture", ["line": "读了2页"])["structuredContent"]?["page"]?.intValue, 5)
        let plan = try call("set_plan", ["books": ["Sherlock"], "due": "2099-12-31"])["structuredContent"]
        XCTAssertEqual(plan?["pages_per_day"]?.intValue, 1)
        XCTAssertEqual(try call("log_progress", ["finished": true])["structuredContent"]?["finished"], true)
        XCTAssertTrue(errorText(try call("add_quote", ["text": "x", "page": 99])).contains("99"))
        let status = try call("book_status")["structuredContent"]
        XCTAssertEqual(status?["page"]?.intValue, 8)
        XCTAssertEqual(status?["percent"]?.doubleValue, 100)
        XCTAssertEqual(status?["searchable"], true)
        // The status resource is ib-capture status --json's report.
        let read = try request("resources/read", ["uri": "ib://status"])
        let text = try XCTUnwrap(read["result"]?["contents"]?.arrayValue?.first?["text"]?.stringValue)
        let report = try JSON.parse(text)
        XCTAssertEqual(report["type"], "status")
        XCTAssertEqual(report["version"]?.intValue, 1)
        XCTAssertEqual(report["date"]?.stringValue?.count, 10)
    }

    func testResources() throws {
        let (holmes, _) = try makeLibrary()
        _ = try initialize()
        let list = try XCTUnwrap(try request("resources/list")["result"]?["resources"]?.arrayValue)
        XCTAssertEqual(list.count, 4)
        XCTAssertEqual(list.first?["uri"], "ib://status")
        let read = try request("resources/read", ["uri": .string("ib://book/" + holmes)])
        let text = try XCTUnwrap(read["result"]?["contents"]?.arrayValue?.first?["text"]?.stringValue)
        let book = try JSON.parse(text)
        XCTAssertEqual(book["id"]?.stringValue, holmes)
        let contents = try XCTUnwrap(book["contents"]?.arrayValue)
        XCTAssertEqual(contents.map { [$0["title"], $0["start_page"], $0["end_page"]] },
                       [["Part One", 1, 4], ["Part Two", 5, 8]])
        XCTAssertEqual(try request("resources/read", ["uri": "ib://book/ffff"])["error"]?["code"]?.intValue, -32002)
        XCTAssertNotNil(try request("resources/templates/list")["result"]?["resourceTemplates"])
    }
}
