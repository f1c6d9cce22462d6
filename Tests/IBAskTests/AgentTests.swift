import XCTest
import IBCore
import IBHTTP
@testable import IBAsk
import IBTestSupport

/// The agent loop against each provider's wire format, over real HTTP on
/// 127.0.0.1, with the real full-text retriever over a real library.
final class AgentTests: XCTestCase {
    var lib: TestLibrary!
    var retriever: RecordingRetriever!

    override func setUpWithError() throws {
        lib = try TestLibrary(currentPage: 4)   // the reader is on physical page 4 (label "3")
        retriever = RecordingRetriever(FullTextRetriever(db: lib.library.db))
    }

    override func tearDown() { retriever = nil; lib = nil }

    func asker(_ settings: ProviderSettings, rounds: Int = 3) throws -> Asker {
        let a = Asker(book: try lib.context(), provider: settings.makeProvider(), retriever: { self.retriever })
        a.maxRounds = rounds
        return a
    }

    // MARK: Anthropic

    func testAnthropicDirectAnswerStreamsAndSendsTheDocumentedRequest() throws {
        let server = try TestHTTPServer(script: [Anthropic.answer(["Elena keeps ", "the lighthouse (p. 1)."], input: 31, output: 9)])
        defer { server.stop() }
        var pieces: [String] = []
        let result = try asker(settings("anthropic", server)).ask("Who keeps the lighthouse?", history: []) { pieces.append($0) }
        XCTAssertEqual(pieces, ["Elena keeps ", "the lighthouse (p. 1)."])
        XCTAssertEqual(result.answer, "Elena keeps the lighthouse (p. 1).")
        XCTAssertEqual(result.usage, TokenUsage(input: 31, output: 9))
        XCTAssertEqual(result.calls, 1)
        // No search happened, so the citation is unsupported.
        XCTAssertEqual(result.citations.map(\.supported), [false])

        let request = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/v1/messages")
        XCTAssertEqual(request.header("x-api-key"), "sk-test-SECRET-123")
        XCTAssertEqual(request.header("anthropic-version"), "2023-06-01")
        XCTAssertEqual(request.header("content-type"), "application/json")
        let body = try XCTUnwrap(request.json)
        XCTAssertEqual(body["model"]?.stringValue, "anthropic-test-model")
        XCTAssertEqual(body["stream"]?.boolValue, true)
        XCTAssertEqual(body["tools"]?.arrayValue?.first?["name"]?.stringValue, "search_book")
        XCTAssertEqual(body["tools"]?.arrayValue?.first?["input_schema"]?["required"], ["query"])
        XCTAssertEqual(body["tool_choice"]?["type"]?.stringValue, "auto")
        XCTAssertEqual(body["messages"]?.arrayValue?.count, 1)
        XCTAssertEqual(body["messages"]?.arrayValue?.first?["content"]?.stringValue, "Who keeps the lighthouse?")
        let system = try XCTUnwrap(body["system"]?.stringValue)
        XCTAssertTrue(system.contains("The Lighthouse Keeper"), system)
        XCTAssertTrue(system.contains("page 3"), "the model is told the reader's page (label 3): \(system)")
    }

    func testAnthropicOneToolRound() throws {
        let server = try TestHTTPServer(script: [
            Anthropic.search("brass key", preface: "Let me look."),
            Anthropic.answer(["The key was in a box on the shore (p. 2)."]),
        ])
        defer { server.stop() }
        let result = try asker(settings("anthropic", server)).ask("What did Elena find?", history: []) { _ in }
        XCTAssertEqual(server.requests.count, 2)
        XCTAssertEqual(retriever.calls.map(\.query), ["brass key"])
        XCTAssertEqual(retriever.calls.first?.maxPage, 4, "searches are bounded by the reader's page")
        XCTAssertEqual(result.citations.map(\.supported), [true])
        XCTAssertTrue(result.sources.contains { $0.startPage == 3 })
        XCTAssertFalse(result.sources.contains { $0.endPage > 4 }, "nothing past the page")

        let second = try XCTUnwrap(server.requests[1].json)
        let messages = try XCTUnwrap(second["messages"]?.arrayValue)
        XCTAssertEqual(messages.count, 3)
        XCTAssertEqual(messages[1]["role"]?.stringValue, "assistant")
        let blocks = try XCTUnwrap(messages[1]["content"]?.arrayValue)
        XCTAssertEqual(blocks.map { $0["type"]?.stringValue }, ["text", "tool_use"])
        XCTAssertEqual(blocks[1]["id"]?.stringValue, "toolu_1")
        XCTAssertEqual(blocks[1]["input"]?["query"]?.stringValue, "brass key")
        let toolResult = try XCTUnwrap(messages[2]["content"]?.arrayValue?.first)
        XCTAssertEqual(messages[2]["role"]?.stringValue, "user")
        XCTAssertEqual(toolResult["type"]?.stringValue, "tool_result")
        XCTAssertEqual(toolResult["tool_use_id"]?.stringValue, "toolu_1")
        let content = try XCTUnwrap(toolResult["content"]?.stringValue)
        XCTAssertTrue(content.contains("(p. 2)") && content.contains("brass key"), content)
        XCTAssertFalse(content.contains("chapel"), "page 5 is past the reader's page: \(content)")
        XCTAssertNotNil(second["tools"], "tools stay defined while the history holds tool calls")
    }

    func testAnthropicSeveralRounds() throws {
        let server = try TestHTTPServer(script: [
            Anthropic.search("lighthouse", id: "toolu_a"),
            Anthropic.search("Tomas storm", id: "toolu_b"),
            Anthropic.answer(["Tomas was lost in a storm (p. 3) and Elena kept the light (p. 1)."]),
        ])
        defer { server.stop() }
        let result = try asker(settings("anthropic", server)).ask("What happened to Tomas?", history: []) { _ in }
        XCTAssertEqual(server.requests.count, 3)
        XCTAssertEqual(retriever.calls.map(\.query), ["lighthouse", "Tomas storm"])
        XCTAssertEqual(result.searches.count, 2)
        XCTAssertEqual(result.citations.map(\.supported), [true, true])
        let last = try XCTUnwrap(server.requests[2].json?["messages"]?.arrayValue)
        XCTAssertEqual(last.count, 5)
        XCTAssertEqual(server.requests[2].json?["tool_choice"]?["type"]?.stringValue, "auto")
    }

    func testAnthropicRoundLimitEndsWithAnAcceptableFinalRequest() throws {
        let server = try TestHTTPServer(script: [
            Anthropic.search("one", id: "t1"),
            Anthropic.search("two", id: "t2"),
            Anthropic.answer(["Done (p. 2)."]),
        ])
        defer { server.stop() }
        let result = try asker(settings("anthropic", server), rounds: 2).ask("Tell me everything.", history: []) { _ in }
        XCTAssertEqual(server.requests.count, 3, "two search rounds, then the final call")
        XCTAssertEqual(retriever.calls.count, 2)
        let final = try XCTUnwrap(server.requests[2].json)
        // The history holds tool_use blocks: the tools must stay defined, with tool_choice none.
        XCTAssertEqual(final["tools"]?.arrayValue?.first?["name"]?.stringValue, "search_book")
        XCTAssertEqual(final["tool_choice"]?["type"]?.stringValue, "none")
        XCTAssertEqual(final["messages"]?.arrayValue?.count, 5)
        XCTAssertEqual(result.answer, "Done (p. 2).")
    }

    func testAnthropicRoundLimitIgnoresFurtherToolCalls() throws {
        let server = try TestHTTPServer { _ in Anthropic.search("again") }
        defer { server.stop() }
        let result = try asker(settings("anthropic", server), rounds: 1).ask("Loop?", history: []) { _ in }
        XCTAssertEqual(server.requests.count, 2, "at most rounds + 1 calls")
        XCTAssertEqual(retriever.calls.count, 1)
        XCTAssertEqual(result.answer, "")
    }

    func testAnthropicMalformedStream() throws {
        let server = try TestHTTPServer(script: [.sse([Anthropic.start(), "event: content_block_delta\ndata: {not json\n\n"])])
        defer { server.stop() }
        XCTAssertThrowsError(try asker(settings("anthropic", server)).ask("Q?", history: []) { _ in }) { error in
            let e = error as! IBError
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("malformed stream"), e.message)
        }
    }

    func testAnthropicDroppedConnection() throws {
        let server = try TestHTTPServer(script: [
            .sse([Anthropic.start()] + Anthropic.text(["Elena ", "kept"]).prefix(2), delay: 0.01, drop: true)
        ])
        defer { server.stop() }
        var streamed = ""
        XCTAssertThrowsError(try asker(settings("anthropic", server)).ask("Q?", history: []) { streamed += $0 }) { error in
            let e = error as! IBError
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("cut off"), e.message)
        }
        XCTAssertEqual(server.requests.count, 1, "a stream that started is not retried")
    }

    func testAnthropicStreamEndingWithoutMessageStop() throws {
        let server = try TestHTTPServer(script: [.sse([Anthropic.start()] + Anthropic.text(["partial"]))])
        defer { server.stop() }
        XCTAssertThrowsError(try asker(settings("anthropic", server)).ask("Q?", history: []) { _ in }) { error in
            XCTAssertTrue((error as! IBError).message.contains("message_stop"), "\(error)")
        }
    }

    func testAnthropicErrorEventMidStream() throws {
        let server = try TestHTTPServer(script: [.sse([Anthropic.start(), sseEvent("error", #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)])])
        defer { server.stop() }
        XCTAssertThrowsError(try asker(settings("anthropic", server)).ask("Q?", history: []) { _ in }) { error in
            let e = error as! IBError
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("overloaded_error"), e.message)
        }
    }

    func testUnauthorizedNamesTheKeyVariableNotTheKey() throws {
        let server = try TestHTTPServer { _ in .json(#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#, status: 401) }
        defer { server.stop() }
        XCTAssertThrowsError(try asker(settings("anthropic", server)).ask("Q?", history: []) { _ in }) { error in
            let e = error as! IBError
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("401") && e.message.contains("ANTHROPIC_API_KEY"), e.message)
            XCTAssertFalse(e.message.contains("SECRET"), e.message)
        }
        XCTAssertEqual(server.requests.count, 1, "401 is not retried")
    }

    func testRateLimitHonoursRetryAfter() throws {
        let server = try TestHTTPServer(script: [
            .json(#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#, status: 429, headers: [("Retry-After", "1")]),
            Anthropic.answer(["ok"]),
        ])
        defer { server.stop() }
        var s = try settings("anthropic", server)
        var delays: [Double] = []
        s.onRetry = { delays.append($0.delay) }
        let result = try asker(s).ask("Q?", history: []) { _ in }
        XCTAssertEqual(result.answer, "ok")
        XCTAssertEqual(delays, [1])
        let r = server.requests
        XCTAssertEqual(r.count, 2)
        XCTAssertGreaterThanOrEqual(r[1].arrival - r[0].arrival, 0.95)
    }

    func testRateLimitGivesUpAfterRetries() throws {
        let server = try TestHTTPServer { _ in .status(429, body: "busy", headers: [("Retry-After", "0")]) }
        defer { server.stop() }
        XCTAssertThrowsError(try asker(settings("anthropic", server, retries: 2)).ask("Q?", history: []) { _ in }) { error in
            let e = error as! IBError
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("429"), e.message)
        }
        XCTAssertEqual(server.requests.count, 3)
    }

    func testServerErrorIsRetriedThenReported() throws {
        let server = try TestHTTPServer(script: [.status(503, body: "down"), Anthropic.answer(["back"])])
        defer { server.stop() }
        var s = try settings("anthropic", server)
        s.onRetry = { _ in }
        XCTAssertEqual(try asker(s).ask("Q?", history: []) { _ in }.answer, "back")
        let failing = try TestHTTPServer { _ in .status(500, body: "boom") }
        defer { failing.stop() }
        var f = try settings("openai", failing, retries: 1)
        f.onRetry = { _ in }
        XCTAssertThrowsError(try asker(f).ask("Q?", history: []) { _ in }) { error in
            let e = error as! IBError
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("HTTP 500") && e.message.contains("boom"), e.message)
        }
    }

    func testTimeoutAndConnectionRefused() throws {
        let slow = try TestHTTPServer { _ in .delayed(3, Anthropic.answer(["late"])) }
        defer { slow.stop() }
        XCTAssertThrowsError(try asker(settings("anthropic", slow, timeout: 0.4)).ask("Q?", history: []) { _ in }) { error in
            let e = error as! IBError
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("did not answer in time"), e.message)
        }
        let port = unusedLocalPort()
        var env = ["ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:\(port)"]
        let s = try ProviderSettings.resolve(provider: "anthropic", model: nil, environment: { env[$0] })
        XCTAssertThrowsError(try Asker(book: lib.context(), provider: s.makeProvider(), retriever: { self.retriever }).ask("Q?", history: []) { _ in }) { error in
            let e = error as! IBError
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("connection refused"), e.message)
        }
        env["ANTHROPIC_API_KEY"] = nil
        XCTAssertThrowsError(try ProviderSettings.resolve(provider: "anthropic", model: nil, environment: { env[$0] })) { error in
            let e = error as! IBError
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("ANTHROPIC_API_KEY"), e.message)
        }
    }

    // MARK: OpenAI

    func testOpenAIToolRoundAndRequests() throws {
        let server = try TestHTTPServer(script: [OpenAI.search("storm"), OpenAI.answer(["Tomas ", "vanished (p. 3)."])])
        defer { server.stop() }
        var streamed = ""
        let result = try asker(settings("openai", server)).ask("Where is Tomas?", history: []) { streamed += $0 }
        XCTAssertEqual(streamed, "Tomas vanished (p. 3).")
        XCTAssertEqual(result.usage, TokenUsage(input: 80, output: 18))
        XCTAssertEqual(result.citations.map(\.supported), [true])
        XCTAssertEqual(retriever.calls.map(\.query), ["storm"])
        let first = server.requests[0]
        XCTAssertEqual(first.path, "/v1/chat/completions")
        XCTAssertEqual(first.header("authorization"), "Bearer sk-test-SECRET-123")
        let body = try XCTUnwrap(first.json)
        XCTAssertEqual(body["model"]?.stringValue, "openai-test-model")
        XCTAssertEqual(body["messages"]?.arrayValue?.first?["role"]?.stringValue, "system")
        XCTAssertEqual(body["tools"]?.arrayValue?.first?["function"]?["name"]?.stringValue, "search_book")
        XCTAssertEqual(body["tool_choice"]?.stringValue, "auto")
        XCTAssertEqual(body["stream_options"]?["include_usage"]?.boolValue, true)
        let second = try XCTUnwrap(server.requests[1].json?["messages"]?.arrayValue)
        XCTAssertEqual(second.map { $0["role"]?.stringValue }, ["system", "user", "assistant", "tool"])
        XCTAssertEqual(second[2]["tool_calls"]?.arrayValue?.first?["function"]?["arguments"]?.stringValue, #"{"query":"storm"}"#)
        XCTAssertEqual(second[3]["tool_call_id"]?.stringValue, "call_1")
        XCTAssertTrue(second[3]["content"]?.stringValue?.contains("storm") == true)
    }

    func testOpenAIRoundLimitAndMissingDone() throws {
        let server = try TestHTTPServer(script: [OpenAI.search("a"), OpenAI.answer(["fine"])])
        defer { server.stop() }
        _ = try asker(settings("openai", server), rounds: 1).ask("Q?", history: []) { _ in }
        let final = try XCTUnwrap(server.requests[1].json)
        XCTAssertEqual(final["tool_choice"]?.stringValue, "none")
        XCTAssertNotNil(final["tools"]?.arrayValue?.first)

        let cut = try TestHTTPServer(script: [.sse([OpenAI.chunk(#"{"content":"half"}"#)])])
        defer { cut.stop() }
        XCTAssertThrowsError(try asker(settings("openai", cut)).ask("Q?", history: []) { _ in }) { error in
            XCTAssertTrue((error as! IBError).message.contains("[DONE]"), "\(error)")
        }
        let dropped = try TestHTTPServer(script: [.sse([OpenAI.chunk(#"{"content":"half"}"#)], drop: true)])
        defer { dropped.stop() }
        XCTAssertThrowsError(try asker(settings("openai", dropped)).ask("Q?", history: []) { _ in }) { error in
            XCTAssertTrue((error as! IBError).message.contains("cut off"), "\(error)")
        }
    }

    // MARK: Ollama

    func testOllamaToolRoundOverNDJSON() throws {
        let server = try TestHTTPServer(script: [Ollama.search("box"), Ollama.answer(["A brass ", "key (p. 2)."])])
        defer { server.stop() }
        var streamed = ""
        let result = try asker(settings("ollama", server, key: nil)).ask("What was in the box?", history: []) { streamed += $0 }
        XCTAssertEqual(streamed, "A brass key (p. 2).")
        XCTAssertEqual(result.usage, TokenUsage(input: 60, output: 14))
        XCTAssertEqual(result.citations.map(\.supported), [true])
        XCTAssertEqual(server.requests[0].path, "/api/chat")
        XCTAssertNil(server.requests[0].header("authorization"))
        let second = try XCTUnwrap(server.requests[1].json?["messages"]?.arrayValue)
        XCTAssertEqual(second.map { $0["role"]?.stringValue }, ["system", "user", "assistant", "tool"])
        XCTAssertEqual(second[2]["tool_calls"]?.arrayValue?.first?["function"]?["arguments"]?["query"]?.stringValue, "box")
    }

    func testOllamaMalformedAndCutStreams() throws {
        let bad = try TestHTTPServer(script: [.stream(contentType: "application/x-ndjson", pieces: [.init("{\"message\": {\"content\": \"x\"}\n"), .init("{oops}\n")])])
        defer { bad.stop() }
        XCTAssertThrowsError(try asker(settings("ollama", bad, key: nil)).ask("Q?", history: []) { _ in }) { error in
            XCTAssertTrue((error as! IBError).message.contains("malformed"), "\(error)")
        }
        let cut = try TestHTTPServer(script: [.stream(contentType: "application/x-ndjson", pieces: [.init(Ollama.line("half"))], drop: true)])
        defer { cut.stop() }
        XCTAssertThrowsError(try asker(settings("ollama", cut, key: nil)).ask("Q?", history: []) { _ in }) { error in
            XCTAssertEqual((error as! IBError).code, .provider)
        }
    }

    /// Without tools: always retrieve; a follow-up is first rewritten into a standalone query.
    func testWithoutToolsRetrievesAndRewritesFollowUps() throws {
        let server = try TestHTTPServer(script: [
            Ollama.answer(["brass key from the box"]),   // the rewrite
            Ollama.answer(["It was hidden under the lamp (p. 2)."]),
        ])
        defer { server.stop() }
        var s = try settings("ollama", server, key: nil)
        s.useTools = false
        let history = [Turn(question: "What did Elena find in the box?", searches: [], answer: "A brass key (p. 2).")]
        let result = try asker(s).ask("Where did she hide it?", history: history) { _ in }
        XCTAssertEqual(retriever.calls.map(\.query), ["brass key from the box"])
        XCTAssertEqual(retriever.calls.first?.maxPage, 4)
        let rewrite = try XCTUnwrap(server.requests[0].json)
        XCTAssertNil(rewrite["tools"])
        XCTAssertTrue(rewrite["messages"]?.arrayValue?.last?["content"]?.stringValue?.contains("Where did she hide it?") == true)
        let answer = try XCTUnwrap(server.requests[1].json?["messages"]?.arrayValue)
        XCTAssertNil(server.requests[1].json?["tools"])
        // history (user, assistant), then the question with its passages
        XCTAssertEqual(answer.map { $0["role"]?.stringValue }, ["system", "user", "assistant", "user"])
        let last = try XCTUnwrap(answer.last?["content"]?.stringValue)
        XCTAssertTrue(last.contains("hid the key under the lamp") && last.hasSuffix("Question: Where did she hide it?"), last)
        XCTAssertEqual(result.citations.map(\.supported), [true])
    }

    func testOllamaModelWithoutToolsFallsBackToRetrieval() throws {
        let server = try TestHTTPServer(script: [
            .json(#"{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}"#, status: 400),
            Ollama.answer(["Gull Rock (p. 1)."]),
        ])
        defer { server.stop() }
        let result = try asker(settings("ollama", server, key: nil)).ask("Where is the lighthouse?", history: []) { _ in }
        XCTAssertEqual(result.answer, "Gull Rock (p. 1).")
        XCTAssertEqual(retriever.calls.count, 1)
        XCTAssertNil(server.requests[1].json?["tools"])
    }

    // MARK: spoilers

    func testNothingPastThePageReachesThePrompt() throws {
        let server = try TestHTTPServer(script: [Anthropic.search("chapel journal stranger"), Anthropic.answer(["I can only discuss up to p. 3."])])
        defer { server.stop() }
        let result = try asker(settings("anthropic", server)).ask("What is in the chapel?", history: []) { _ in }
        for request in server.requests {
            XCTAssertFalse(request.bodyText.contains("chapel door"), "page 5 leaked")
            XCTAssertFalse(request.bodyText.contains("stranger left"), "page 6 leaked")
        }
        XCTAssertTrue(result.sources.allSatisfy { $0.endPage <= 4 })
    }
}
