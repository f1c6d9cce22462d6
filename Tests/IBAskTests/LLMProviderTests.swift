// --provider llm against the real `llm` command (scripts/.venv-llm, made by
// scripts/e2e/lib/llm-venv.sh or scripts/install-deps test; skipped when it is
// not there), configured with an extra-openai-models.yaml in a temporary
// LLM_USER_PATH that points at a loopback OpenAI-compatible server: the
// passages reach the prompt, the answer and its citations come back, usage is
// read, and llm missing, failing or stalling is one provider error (exit 4).
import XCTest
import Foundation
import IBCore
@testable import IBAsk
import IBTestSupport

final class LLMProviderTests: XCTestCase {
    var userPath = ""
    var savedUserPath: String?

    /// The llm command: $IB_LLM, else the project's venv.
    static var llmCommand: String? {
        if let path = ProcessInfo.processInfo.environment["IB_LLM"], !path.isEmpty { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let venv = root + "/scripts/.venv-llm/bin/llm"
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : nil
    }

    override func setUp() {
        userPath = "/tmp/ib-llm-test-\(UInt32.random(in: 0 ... .max))"
        try? FileManager.default.createDirectory(atPath: userPath, withIntermediateDirectories: true)
        savedUserPath = ProcessInfo.processInfo.environment["LLM_USER_PATH"]
        setenv("LLM_USER_PATH", userPath, 1)
    }

    override func tearDown() {
        if let savedUserPath { setenv("LLM_USER_PATH", savedUserPath, 1) } else { unsetenv("LLM_USER_PATH") }
        try? FileManager.default.removeItem(atPath: userPath)
    }

    /// llm's settings: model `ib-stub` is the server's `stub-model`.
    func configure(_ server: TestHTTPServer) throws -> String {
        guard let llm = Self.llmCommand else {
            throw XCTSkip("llm is not installed here: scripts/e2e/lib/llm-venv.sh (or scripts/install-deps test) makes scripts/.venv-llm")
        }
        try "- model_id: ib-stub\n  model_name: stub-model\n  api_base: \"\(server.baseURL)/v1\"\n"
            .write(toFile: userPath + "/extra-openai-models.yaml", atomically: true, encoding: .utf8)
        return llm
    }

    func llmSettings(_ llm: String, model: String? = "ib-stub", extra: [String: String] = [:], timeout: Double = 30) throws -> ProviderSettings {
        let env = ["IB_LLM": llm].merging(extra) { $1 }
        var s = try ProviderSettings.resolve(provider: "llm", model: model, environment: { env[$0] })
        s.timeout = timeout
        return s
    }

    func testTheRetrievedPassagesReachLLMAndTheCitedAnswerComesBack() throws {
        let server = try TestHTTPServer(script: [OpenAI.answer(["Elena found a brass key ", "inside the box (p. 2)."])])
        defer { server.stop() }
        let llm = try configure(server)
        let lib = try TestLibrary(currentPage: 4)
        let settings = try llmSettings(llm)
        let provider = try XCTUnwrap(settings.makeProvider())
        XCTAssertFalse(provider.supportsTools, "llm's command line has no tools: retrieve first")
        let asker = Asker(book: try lib.context(), provider: provider, retriever: { FullTextRetriever(db: lib.library.db) })
        var streamed: [String] = []
        let result = try asker.ask("What did Elena find in the wooden box?", history: []) { streamed.append($0) }

        XCTAssertEqual(server.requests.count, 1)
        let body = try XCTUnwrap(server.requests.first?.json)
        XCTAssertEqual(body["model"]?.stringValue, "stub-model")
        let messages = body["messages"]?.arrayValue ?? []
        XCTAssertEqual(messages.first?["role"]?.stringValue, "system")
        XCTAssertTrue(messages.first?["content"]?.stringValue?.contains("(p. N)") ?? false, "the system prompt asks for citations")
        let user = messages.last?["content"]?.stringValue ?? ""
        // The passage of physical page 3 (label "2"), never one past the reader's page 4.
        XCTAssertTrue(user.contains("(p. 2)\nElena found a wooden box washed up on the shore."), user)
        XCTAssertFalse(user.contains("old chapel"), "a passage past the reader's page reached the prompt")
        XCTAssertTrue(user.contains("What did Elena find in the wooden box?"))

        XCTAssertEqual(result.answer, "Elena found a brass key inside the box (p. 2).")
        XCTAssertEqual(streamed.joined().trimmingCharacters(in: "\n"), result.answer)
        XCTAssertEqual(result.citations.map(\.supported), [true])
        XCTAssertEqual(result.provider, "llm")
        XCTAssertEqual(result.model, "ib-stub")
        XCTAssertEqual(result.usage, TokenUsage(input: 40, output: 9), "llm -u's token line")
    }

    func testLLMsDefaultModelIsUsedWhenNoneIsNamed() throws {
        let server = try TestHTTPServer(script: [OpenAI.answer(["Yes (p. 1)."])])
        defer { server.stop() }
        let llm = try configure(server)
        try "ib-stub".write(toFile: userPath + "/default_model.txt", atomically: true, encoding: .utf8)
        let provider = try XCTUnwrap(try llmSettings(llm, model: nil).makeProvider())
        XCTAssertEqual(provider.model, "default")
        let turn = try provider.complete(ChatRequest(system: "S", messages: [.user("Q")], tools: [], toolChoice: .auto, maxTokens: 64)) { _ in }
        XCTAssertEqual(turn.text.trimmed, "Yes (p. 1).")
        XCTAssertEqual(server.requests.first?.json?["model"]?.stringValue, "stub-model")
    }

    func testTheAnswerStreamsAsLLMWritesIt() throws {
        // The second half leaves the server 3 s after the first: the first must be handed on before.
        let first = OpenAI.chunk(#"{"role":"assistant","content":"Elena kept the light "}"#)
        let rest = [OpenAI.chunk(#"{"content":"(p. 1)."}"#), OpenAI.chunk("{}", finish: "stop"), OpenAI.done]
        let server = try TestHTTPServer(script: [.stream(pieces: [.init(first)] + rest.enumerated().map { .init($1, delay: $0 == 0 ? 3 : 0) })])
        defer { server.stop() }
        let llm = try configure(server)
        let provider = try XCTUnwrap(try llmSettings(llm).makeProvider())
        var arrivals: [(text: String, at: Double)] = []
        let turn = try provider.complete(ChatRequest(system: "S", messages: [.user("Q")], tools: [], toolChoice: .auto, maxTokens: 64)) {
            arrivals.append(($0, Timestamp.monotonic()))
        }
        XCTAssertEqual(turn.text.trimmed, "Elena kept the light (p. 1).")
        let sent = try XCTUnwrap(server.requests.first?.arrival)
        let early = arrivals.filter { $0.at < sent + 2.5 }.map(\.text).joined()
        XCTAssertTrue(early.hasPrefix("Elena kept the light"), "nothing streamed before the second half was sent: \(arrivals)")
    }

    func testPromptsAreNotLoggedUnlessAsked() throws {
        let server = try TestHTTPServer(script: [OpenAI.answer(["One."]), OpenAI.answer(["Two."])])
        defer { server.stop() }
        let llm = try configure(server)
        let request = ChatRequest(system: "S", messages: [.user("a private question")], tools: [], toolChoice: .auto, maxTokens: 64)
        _ = try XCTUnwrap(try llmSettings(llm).makeProvider()).complete(request) { _ in }
        XCTAssertEqual(try loggedPrompts(), [], "--no-log by default")
        _ = try XCTUnwrap(try llmSettings(llm, extra: ["IB_LLM_LOG": "1"]).makeProvider()).complete(request) { _ in }
        XCTAssertEqual(try loggedPrompts(), ["a private question"], "IB_LLM_LOG=1 lets llm log")
    }

    /// The prompts llm's own `llm logs list` shows (none before it has a database).
    func loggedPrompts() throws -> [String] {
        guard FileManager.default.fileExists(atPath: userPath + "/logs.db") else { return [] }
        let llm = try XCTUnwrap(Self.llmCommand)
        let process = try Subprocess([llm, "logs", "list", "-n", "0", "--json"], stallSeconds: 60)
        let output = try process.readAllStdout(limit: 1 << 20)
        XCTAssertEqual(process.wait(), 0, process.lastErrorLine ?? "")
        return try JSON.parse(output).arrayValue?.compactMap { $0["prompt"]?.stringValue } ?? []
    }

    func testLLMFailingIsAProviderErrorWithItsMessage() throws {
        let server = try TestHTTPServer(script: [])
        defer { server.stop() }
        let llm = try configure(server)
        let provider = try XCTUnwrap(try llmSettings(llm, model: "no-such-model").makeProvider())
        XCTAssertThrowsError(try provider.complete(ChatRequest(system: "S", messages: [.user("Q")], tools: [], toolChoice: .auto, maxTokens: 64)) { _ in }) { error in
            let e = error as? IBError
            XCTAssertEqual(e?.code, .provider)
            XCTAssertTrue(e?.message.hasPrefix("llm failed (exit status 1): Error: ") ?? false, "\(error)")
            XCTAssertTrue(e?.message.contains("no-such-model") ?? false, "\(error)")
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testAStalledModelIsStoppedAfterTheTimeout() throws {
        let server = try TestHTTPServer(script: [.delayed(20, OpenAI.answer(["late"]))])
        defer { server.stop() }
        let llm = try configure(server)
        let provider = try XCTUnwrap(try llmSettings(llm, timeout: 3).makeProvider())
        let started = Timestamp.monotonic()
        XCTAssertThrowsError(try provider.complete(ChatRequest(system: "S", messages: [.user("Q")], tools: [], toolChoice: .auto, maxTokens: 64)) { _ in }) { error in
            XCTAssertEqual((error as? IBError)?.code, .provider)
            XCTAssertEqual((error as? IBError)?.message, "llm wrote nothing for 3 s (--timeout) and was stopped; nothing was saved")
        }
        XCTAssertLessThan(Timestamp.monotonic() - started, 15, "the timeout bounds the wait")
    }

    func testMissingLLMSaysHowToInstallIt() {
        for env in [["IB_LLM": "/nonexistent/llm"], ["IB_LLM": "ib-no-such-llm-command"]] {
            XCTAssertThrowsError(try ProviderSettings.resolve(provider: "llm", model: nil, environment: { env[$0] })) { error in
                XCTAssertEqual((error as? IBError)?.code, .provider)
                XCTAssertTrue("\(error)".contains("pipx install llm, or pip install llm"), "\(error)")
            }
        }
        XCTAssertThrowsError(try ProviderSettings.resolve(provider: "llm", model: nil, baseURL: "http://127.0.0.1:1",
                                                          environment: { _ in nil })) { error in
            XCTAssertEqual((error as? IBError)?.code, .usage)
        }
    }

    func testEarlierTurnsBecomeATranscriptAboveTheQuestion() {
        XCTAssertEqual(LLMProvider.prompt([.user("Only this")]), "Only this")
        let prompt = LLMProvider.prompt([.user("Who keeps the light?"), .assistant(text: "Elena (p. 1).", toolCalls: []),
                                         .user("And her brother?")])
        XCTAssertEqual(prompt, "Earlier in this conversation:\n\nReader: Who keeps the light?\n\nYou answered: Elena (p. 1).\n\n---\n\nAnd her brother?")
    }

    func testUsageLineAndSplitCharacters() {
        XCTAssertEqual(LLMProvider.usage(["Token usage: 1,234 input, 56 output"]), TokenUsage(input: 1234, output: 56))
        XCTAssertEqual(LLMProvider.usage(["Token usage: 10 input, 5 output, {\"reasoning_tokens\": 2}"]), TokenUsage(input: 10, output: 5))
        XCTAssertEqual(LLMProvider.usage(["Error: nothing"]), TokenUsage())
        // "灯" is 3 bytes, "é" 2: cut inside each, nothing is lost or replaced.
        let bytes = Array("a灯é".utf8)
        for cut in 1..<bytes.count {
            var pieces = UTF8Pieces()
            let text = pieces.feed(Array(bytes[..<cut])) + pieces.feed(Array(bytes[cut...])) + pieces.finish()
            XCTAssertEqual(text, "a灯é", "cut at \(cut)")
        }
    }
}
