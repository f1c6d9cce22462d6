import XCTest
import Foundation
import IBCore
import IBStore
@testable import IBAsk
import IBTestSupport

/// ib-ask end to end in process: a real library file, a real loopback
/// provider, stdout/stderr captured.
final class CommandTests: XCTestCase {
    var lib: TestLibrary!
    let secret = "sk-ant-VERY-SECRET-KEY-42"

    override func setUpWithError() throws { lib = try TestLibrary(currentPage: 4) }
    override func tearDown() { lib = nil }

    struct Run { var out: String; var err: String; var error: IBError? }

    /// Runs AskCommand with fds 0/1/2 redirected and the environment set.
    /// `assist`: keep ib-ask's default provider-assisted search (--expand/--rerank
    /// requests before the answer); off, the scripts below hold the answer requests only.
    func ask(_ args: [String], env: [String: String], stdin: String? = nil, assist: Bool = false) -> Run {
        let names = ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST", "IB_PROVIDER", "IB_MODEL", "IB_DB"]
        for n in names { unsetenv(n) }
        for (k, v) in env { setenv(k, v, 1) }
        defer { for n in names { unsetenv(n) } }
        let outPath = lib.directory + "/out", errPath = lib.directory + "/err", inPath = lib.directory + "/in"
        FileManager.default.createFile(atPath: inPath, contents: Data((stdin ?? "").utf8))
        OutputStream.standardOutput.flush()
        let saved = (dup(0), dup(1), dup(2))
        let o = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644), e = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let i = open(inPath, O_RDONLY)
        dup2(i, 0); dup2(o, 1); dup2(e, 2)
        var failure: IBError?
        // stdout is a file here: ask for the text a terminal gets unless the test chooses (OutputFormat).
        let format = args.contains("--json") || args.contains("--format") ? [] : ["--format", "text"]
        do { try AskCommand.run(["--db", lib.path] + (assist ? [] : ["--no-expand", "--no-rerank"]) + format + args) } catch let error as IBError { failure = error } catch { failure = IBError("\(error)") }
        OutputStream.standardOutput.flush()
        dup2(saved.0, 0); dup2(saved.1, 1); dup2(saved.2, 2)
        close(o); close(e); close(i); close(saved.0); close(saved.1); close(saved.2)
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Run(out: out, err: err, error: failure)
    }

    func anthropicEnv(_ server: TestHTTPServer) -> [String: String] {
        ["ANTHROPIC_API_KEY": secret, "ANTHROPIC_BASE_URL": server.baseURL]
    }

    /// A fresh connection each time: a long-lived one may sit on an old snapshot.
    func rows(_ sql: String) throws -> [Row] { try Database(path: lib.path, readOnly: true).query(sql) }

    func testTurnIsStoredWithSearchesAndNoSecrets() throws {
        let server = try TestHTTPServer(script: [Anthropic.search("box key"), Anthropic.answer(["A brass key (p. 2)."])])
        defer { server.stop() }
        let run = ask(["--verbose", "What did Elena find in the box?"], env: anthropicEnv(server))
        XCTAssertNil(run.error, run.err)
        XCTAssertEqual(run.out, "A brass key (p. 2).\n")
        XCTAssertTrue(run.err.contains("search_book(\"box key\""), run.err)
        XCTAssertNotNil(run.err.range(of: #"search_book\("box key", k: \d+\) up to p\. \d+ -> pp?\. \d+"#, options: .regularExpression),
                        "verbose output names the pages retrieved: \(run.err)")
        XCTAssertTrue(run.err.contains("tokens:"), run.err)
        XCTAssertFalse(run.err.contains(secret), "the key must not reach verbose output")

        let conversations = try rows("SELECT id, book_id, title FROM conversations")
        XCTAssertEqual(conversations.count, 1)
        XCTAssertEqual(conversations[0].text("title"), "What did Elena find in the box?")
        XCTAssertEqual(conversations[0].text("book_id"), lib.bookID)
        let messages = try rows("SELECT role, content FROM chat_messages ORDER BY rowid")
        XCTAssertEqual(messages.map { $0.text("role") }, ["user", "tool_result", "assistant"])
        XCTAssertTrue(messages[1].text("content")?.contains("brass key") == true)
        XCTAssertEqual(messages[2].text("content"), "A brass key (p. 2).")
        for file in [lib.path, lib.path + "-wal"] {
            if let data = FileManager.default.contents(atPath: file) {
                XCTAssertNil(data.range(of: Data(secret.utf8)), "the key must not reach \(file)")
            }
        }
    }

    func testContinueReplaysHistoryAndStoredSearchResults() throws {
        let server = try TestHTTPServer(script: [
            Anthropic.search("box"), Anthropic.answer(["A brass key (p. 2)."]),
            Anthropic.answer(["Under the lamp (p. 2)."]),
        ])
        defer { server.stop() }
        XCTAssertNil(ask(["What did Elena find?"], env: anthropicEnv(server)).error)
        let run = ask(["-c", "Where did she hide it?"], env: anthropicEnv(server))
        XCTAssertNil(run.error, run.err)
        XCTAssertEqual(run.out, "Under the lamp (p. 2).\n")
        XCTAssertFalse(run.err.contains("unsupported"), "p. 2 was retrieved in the replayed turn: \(run.err)")
        let messages = try XCTUnwrap(server.requests[2].json?["messages"]?.arrayValue)
        XCTAssertEqual(messages.count, 3)
        let replayed = try XCTUnwrap(messages[0]["content"]?.stringValue)
        XCTAssertTrue(replayed.contains("Passages retrieved") && replayed.contains("brass key") && replayed.hasSuffix("What did Elena find?"), replayed)
        XCTAssertEqual(messages[1]["content"]?.arrayValue?.first?["text"]?.stringValue, "A brass key (p. 2).")
        XCTAssertEqual(try rows("SELECT count(*) AS n FROM conversations")[0].int("n"), 1)
        XCTAssertEqual(try rows("SELECT count(*) AS n FROM chat_messages")[0].int("n"), 5)

        let list = ask(["--list"], env: [:])
        XCTAssertTrue(list.out.contains("What did Elena find?"), list.out)
        let id = try XCTUnwrap(try rows("SELECT id FROM conversations")[0].text("id"))
        XCTAssertTrue(list.out.hasPrefix(id))
        let byID = try TestHTTPServer(script: [Anthropic.answer(["Yes."])])
        defer { byID.stop() }
        XCTAssertNil(ask(["--conversation", String(id.prefix(6)), "Really?"], env: anthropicEnv(byID)).error)
        XCTAssertEqual(byID.requests[0].json?["messages"]?.arrayValue?.count, 5)
    }

    func testFailuresLeaveNothingHalfWritten() throws {
        let dropped = try TestHTTPServer(script: [
            Anthropic.search("box"),
            .sse([Anthropic.start()] + Anthropic.text(["A brass", " key"]).prefix(2), drop: true),
        ])
        defer { dropped.stop() }
        let run = ask(["What did Elena find?"], env: anthropicEnv(dropped))
        XCTAssertEqual(run.error?.code, .provider)
        XCTAssertTrue(run.error?.message.contains("cut off") == true, "\(String(describing: run.error))")
        XCTAssertEqual(try rows("SELECT count(*) AS n FROM conversations")[0].int("n"), 0)
        XCTAssertEqual(try rows("SELECT count(*) AS n FROM chat_messages")[0].int("n"), 0)

        let unauthorized = try TestHTTPServer { _ in .status(401, body: #"{"error":"bad key"}"#) }
        defer { unauthorized.stop() }
        XCTAssertEqual(ask(["Q?"], env: anthropicEnv(unauthorized)).error?.code, .provider)
        let missing = ask(["--provider", "openai", "Q?"], env: [:])
        XCTAssertEqual(missing.error?.code, .provider)
        XCTAssertTrue(missing.error?.message.contains("OPENAI_API_KEY") == true)
        XCTAssertEqual(try rows("SELECT count(*) AS n FROM chat_messages")[0].int("n"), 0)
    }

    /// 429 after its retries, 5xx, a timeout and a refused connection: each a
    /// provider error (exit 4), and not a row written.
    func testProviderFailuresStoreNothing() throws {
        let busy = try TestHTTPServer { _ in .status(429, body: "busy", headers: [("Retry-After", "0")]) }
        defer { busy.stop() }
        let broken = try TestHTTPServer { _ in .status(503, body: "down") }
        defer { broken.stop() }
        let slow = try TestHTTPServer { _ in .delayed(3, Anthropic.answer(["Too late."])) }
        defer { slow.stop() }
        let cases: [(String, [String], [String: String])] = [
            ("429", ["--retries", "1"], anthropicEnv(busy)),
            ("503", ["--retries", "1"], anthropicEnv(broken)),
            ("timeout", ["--timeout", "0.3", "--retries", "0"], anthropicEnv(slow)),
            ("refused", [], ["ANTHROPIC_API_KEY": secret, "ANTHROPIC_BASE_URL": "http://127.0.0.1:\(unusedLocalPort())"]),
        ]
        for (name, flags, env) in cases {
            let run = ask(flags + ["What did Elena find?"], env: env)
            XCTAssertEqual(run.error?.code, .provider, "\(name): \(String(describing: run.error))")
            XCTAssertEqual(run.out, "", "\(name): nothing on stdout")
            XCTAssertEqual(try rows("SELECT count(*) AS n FROM conversations")[0].int("n"), 0, name)
            XCTAssertEqual(try rows("SELECT count(*) AS n FROM chat_messages")[0].int("n"), 0, name)
        }
        XCTAssertGreaterThanOrEqual(busy.requests.count, 2, "429 is retried")
        XCTAssertGreaterThanOrEqual(broken.requests.count, 2, "5xx is retried")
    }

    func testWithAProviderTheSearchIsRewrittenAndRankedFirst() throws {
        let server = try TestHTTPServer(script: [
            Anthropic.answer(["brass key box\n", "Elena found a box with a key"]),
            Anthropic.answer(["2 1"]),
            Anthropic.answer(["A brass key (p. 2)."]),
        ])
        defer { server.stop() }
        let run = ask(["--no-tools", "What did Elena find in the box?"], env: anthropicEnv(server), assist: true)
        XCTAssertNil(run.error, run.err)
        XCTAssertEqual(server.requests.count, 3, "expand, rerank, answer")
        XCTAssertTrue(server.requests[0].bodyText.contains("words and names the book itself would most likely use"))
        XCTAssertTrue(server.requests[1].bodyText.contains("[1] "), "the numbered candidates")
        XCTAssertTrue(server.requests[2].bodyText.contains("brass key"), "the answer request carries the passages")
        XCTAssertFalse(server.requests[1].bodyText.contains("old chapel"), "page 5 is past the reader (page 4)")
        XCTAssertEqual(run.err.contains("--rerank") || run.err.contains("--expand"), false, run.err)
    }

    func testJSONWithStrictCitations() throws {
        let server = try TestHTTPServer(script: [Anthropic.search("storm"), Anthropic.answer(["Tomas was lost at sea (p. 3), or so the end says (p. 5)."])])
        defer { server.stop() }
        let run = ask(["--json", "--strict", "What happened to Tomas?"], env: anthropicEnv(server))
        XCTAssertNil(run.error, run.err)
        XCTAssertTrue(run.err.contains("unsupported citation (p. 5)"), run.err)
        let lines = run.out.split(separator: "\n")
        XCTAssertEqual(lines.count, 1)
        let json = try JSON.parse(String(lines[0]))
        XCTAssertEqual(json["answer"]?.stringValue, "Tomas was lost at sea (p. 3), or so the end says.")
        XCTAssertEqual(json["citations"]?.arrayValue?.map { $0["text"]?.stringValue }, ["(p. 3)"])
        XCTAssertEqual(json["citations"]?.arrayValue?.first?["pages"], [4])
        let sources = try XCTUnwrap(json["sources"]?.arrayValue)
        XCTAssertTrue(sources.contains { $0["chunk"]?.stringValue == "\(lib.bookID):3" && $0["labels"] == ["3", "3"] })
        XCTAssertTrue(sources.allSatisfy { ($0["pages"]?.arrayValue?.last?.intValue ?? 99) <= 4 })
        XCTAssertEqual(json["usage"]?["output_tokens"]?.intValue, 24)
        XCTAssertEqual(json["provider"]?.stringValue, "anthropic")
        // The stored answer is what the model said; --strict changes only the output.
        XCTAssertEqual(try rows("SELECT content FROM chat_messages WHERE role = 'assistant'")[0].text("content"),
                       "Tomas was lost at sea (p. 3), or so the end says (p. 5).")
    }

    func testPipedLinesShareOneConversation() throws {
        let server = try TestHTTPServer(script: [Anthropic.answer(["One."]), Anthropic.answer(["Two."])])
        defer { server.stop() }
        let run = ask([], env: anthropicEnv(server), stdin: "First question?\n\nSecond question?\n")
        XCTAssertNil(run.error, run.err)
        XCTAssertEqual(run.out, "One.\nTwo.\n")
        XCTAssertEqual(try rows("SELECT count(*) AS n FROM conversations")[0].int("n"), 1)
        XCTAssertEqual(try rows("SELECT role FROM chat_messages ORDER BY rowid").map { $0.text("role") }, ["user", "assistant", "user", "assistant"])
        XCTAssertEqual(server.requests[1].json?["messages"]?.arrayValue?.count, 3)
    }

    func testPageOverrideAndProviderChoice() throws {
        let server = try TestHTTPServer(script: [OpenAI.search("chapel"), OpenAI.answer(["The journal (p. 4)."])])
        defer { server.stop() }
        let run = ask(["--page", "5", "--verbose", "What was behind the door?"],
                      env: ["OPENAI_API_KEY": secret, "OPENAI_BASE_URL": server.baseURL])
        XCTAssertNil(run.error, run.err)
        XCTAssertTrue(run.err.contains("provider openai"), run.err)
        XCTAssertTrue(server.requests[0].json?["messages"]?.arrayValue?.first?["content"]?.stringValue?.contains("page 5") == true)
        XCTAssertTrue(server.requests[1].bodyText.contains("chapel"), "page 6 (label 5) is now readable")
        XCTAssertEqual(ask(["--provider", "nope", "Q"], env: [:]).error?.code, .usage)
    }
}

final class HistoryWindowTests: XCTestCase {
    func testSearchResultsCountTowardTheWindow() {
        let book = BookContext(id: "b", title: "T")
        let big = StoredSearch(query: "q", maxPage: nil, passages: [Passage(bookID: "b", chunkIndex: 0, startPage: 1, endPage: 1, text: String(repeating: "x", count: 5000))])
        let turns = (0..<5).map { Turn(question: "Q\($0)", searches: $0 == 3 ? [big] : [], answer: "A\($0)") }
        let window = HistoryWindow(maxTurns: 8, maxCharacters: 4000)
        XCTAssertEqual(window.select(turns, book: book).map(\.question), ["Q4"], "the turn with 5000 characters of results does not fit")
        XCTAssertEqual(HistoryWindow(maxTurns: 8, maxCharacters: 6000).select(turns, book: book).map(\.question), ["Q0", "Q1", "Q2", "Q3", "Q4"])
        XCTAssertEqual(HistoryWindow(maxTurns: 1).select(turns, book: book).map(\.question), ["Q4"])
    }

    func testTitles() {
        XCTAssertEqual(ConversationStore.title(from: "  Who is Elena?\nmore"), "Who is Elena?")
        let long = ConversationStore.title(from: String(repeating: "word ", count: 30))
        XCTAssertLessThanOrEqual(long.count, 61)
        XCTAssertTrue(long.hasSuffix("…"))
    }
}

final class SpoilerHistoryTests: XCTestCase {
    func testTurnsThatSawLaterPagesAreNotReplayed() throws {
        let lib = try TestLibrary(currentPage: 4)
        let server = try TestHTTPServer(script: [Anthropic.answer(["ok"])])
        defer { server.stop() }
        let s = try settings("anthropic", server)
        let asker = Asker(book: try lib.context(), provider: s.makeProvider(), retriever: { FullTextRetriever(db: lib.library.db) })
        let late = Passage(bookID: lib.bookID, chunkIndex: 4, startPage: 5, endPage: 5, text: "The brass key opened the chapel door.")
        let history = [
            Turn(question: "Early?", searches: [StoredSearch(query: "q", maxPage: 3, passages: [])], answer: "Early answer."),
            Turn(question: "Late?", searches: [StoredSearch(query: "q", maxPage: 6, passages: [late])], answer: "The chapel held the journal."),
            Turn(question: "Whole book?", searches: [StoredSearch(query: "q", maxPage: nil, passages: [])], answer: "Everything."),
            Turn(question: "No search?", searches: [], answer: "Plain."),
        ]
        _ = try asker.ask("Now?", history: history) { _ in }
        let body = server.requests[0].bodyText
        XCTAssertTrue(body.contains("Early answer.") && body.contains("Plain."), body)
        XCTAssertFalse(body.contains("chapel"), "a turn that saw page 5 must not be replayed at page 4")
        XCTAssertFalse(body.contains("Everything."), "a turn that searched the whole book must not be replayed")
    }
}
