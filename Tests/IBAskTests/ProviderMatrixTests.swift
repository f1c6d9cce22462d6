import XCTest
import IBCore
@testable import IBAsk
import IBTestSupport

/// The same scripted turns against each provider's wire format: a direct
/// answer, several rounds, the round limit, a malformed stream, a dropped
/// connection.
final class ProviderMatrixTests: XCTestCase {
    struct Wire {
        var name: String
        var answer: ([String]) -> TestResponse
        var search: (String, String) -> TestResponse
        var malformed: TestResponse
        var dropped: TestResponse
        /// Checks the request sent after the last allowed round.
        var checkFinal: (JSON) -> Void
        var path: String
    }

    var wires: [Wire] {
        [
            Wire(name: "anthropic", answer: { Anthropic.answer($0) }, search: { Anthropic.search($0, id: $1) },
                 malformed: .sse([Anthropic.start(), sseEvent("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
                                  sseEvent("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"#)]),
                 dropped: .sse([Anthropic.start()] + Anthropic.text(["half"]).prefix(2), drop: true),
                 checkFinal: { body in
                     XCTAssertEqual(body["tool_choice"]?["type"]?.stringValue, "none")
                     XCTAssertEqual(body["tools"]?.arrayValue?.count, 1)
                 }, path: "/v1/messages"),
            Wire(name: "openai", answer: { OpenAI.answer($0) }, search: { OpenAI.search($0, id: $1) },
                 malformed: .sse([OpenAI.chunk(#"{"content":"x"}"#), "data: {\"choices\": [\n\n", OpenAI.done]),
                 dropped: .sse([OpenAI.chunk(#"{"content":"half"}"#)], drop: true),
                 checkFinal: { body in
                     XCTAssertEqual(body["tool_choice"]?.stringValue, "none")
                     XCTAssertEqual(body["tools"]?.arrayValue?.count, 1)
                 }, path: "/v1/chat/completions"),
            Wire(name: "ollama", answer: { Ollama.answer($0) }, search: { q, _ in Ollama.search(q) },
                 malformed: .stream(contentType: "application/x-ndjson", pieces: [.init(Ollama.line("x")), .init("{\"message\": nope}\n"), .init(Ollama.done)]),
                 dropped: .stream(contentType: "application/x-ndjson", pieces: [.init(Ollama.line("half"))], drop: true),
                 checkFinal: { body in
                     // Ollama has no tool_choice: the final call offers no tools.
                     XCTAssertNil(body["tools"])
                     XCTAssertEqual(body["messages"]?.arrayValue?.last?["role"]?.stringValue, "tool")
                 }, path: "/api/chat"),
        ]
    }

    func run(_ wire: Wire, _ script: [TestResponse], rounds: Int = 3, question: String = "Q?") throws -> (AskResult?, Error?, TestHTTPServer, RecordingRetriever) {
        let lib = try TestLibrary(currentPage: 4)
        let retriever = RecordingRetriever(FullTextRetriever(db: lib.library.db))
        let server = try TestHTTPServer(script: script)
        let s = try settings(wire.name, server, key: wire.name == "ollama" ? nil : "k")
        let asker = Asker(book: try lib.context(), provider: s.makeProvider(), retriever: { retriever })
        asker.maxRounds = rounds
        do {
            return (try asker.ask(question, history: []) { _ in }, nil, server, retriever)
        } catch {
            return (nil, error, server, retriever)
        }
    }

    func testDirectAnswer() throws {
        for wire in wires {
            let (result, error, server, retriever) = try run(wire, [wire.answer(["Elena ", "keeps it (p. 1)."])])
            defer { server.stop() }
            XCTAssertNil(error, wire.name)
            XCTAssertEqual(result?.answer, "Elena keeps it (p. 1).", wire.name)
            XCTAssertEqual(server.requests.count, 1, wire.name)
            XCTAssertEqual(server.requests.first?.path, wire.path, wire.name)
            XCTAssertEqual(server.requests.first?.json?["model"]?.stringValue, "\(wire.name)-test-model", wire.name)
            // Every provider (Ollama too) is offered the one search_book tool on its first call.
            let tools = server.requests.first?.json?["tools"]?.arrayValue ?? []
            XCTAssertEqual(tools.count, 1, wire.name)
            XCTAssertTrue(tools.first?.serialized.contains("\"search_book\"") == true, "\(wire.name): \(tools)")
            XCTAssertEqual(server.requests.first?.json?["stream"]?.boolValue, true, wire.name)
            XCTAssertTrue(retriever.calls.isEmpty, wire.name)
        }
    }

    func testSeveralRounds() throws {
        for wire in wires {
            let (result, error, server, retriever) = try run(wire, [wire.search("lighthouse", "c1"), wire.search("storm", "c2"), wire.answer(["Lost at sea (p. 3)."])])
            defer { server.stop() }
            XCTAssertNil(error, "\(wire.name): \(String(describing: error))")
            XCTAssertEqual(retriever.calls.map(\.query), ["lighthouse", "storm"], wire.name)
            XCTAssertEqual(retriever.calls.map(\.maxPage), [4, 4], wire.name)
            XCTAssertEqual(result?.citations.map(\.supported), [true], wire.name)
            XCTAssertEqual(server.requests.count, 3, wire.name)
        }
    }

    func testRoundLimit() throws {
        for wire in wires {
            let (result, error, server, retriever) = try run(wire, [wire.search("one", "c1"), wire.search("two", "c2"), wire.answer(["Enough (p. 2)."])], rounds: 2)
            defer { server.stop() }
            XCTAssertNil(error, "\(wire.name): \(String(describing: error))")
            XCTAssertEqual(retriever.calls.count, 2, wire.name)
            XCTAssertEqual(server.requests.count, 3, wire.name)
            if let final = server.requests.last?.json { wire.checkFinal(final) } else { XCTFail(wire.name) }
            XCTAssertEqual(result?.answer, "Enough (p. 2).", wire.name)
        }
    }

    func testMalformedStream() throws {
        for wire in wires {
            let (_, error, server, _) = try run(wire, [wire.malformed])
            defer { server.stop() }
            let e = error as? IBError
            XCTAssertEqual(e?.code, .provider, wire.name)
            XCTAssertTrue(e?.message.contains("malformed") == true, "\(wire.name): \(String(describing: error))")
        }
    }

    func testDroppedConnection() throws {
        for wire in wires {
            let (_, error, server, _) = try run(wire, [wire.dropped])
            defer { server.stop() }
            let e = error as? IBError
            XCTAssertEqual(e?.code, .provider, wire.name)
            XCTAssertTrue(e?.message.contains("cut off") == true, "\(wire.name): \(String(describing: error))")
            XCTAssertEqual(server.requests.count, 1, wire.name)
        }
    }
}

final class ProviderSettingsTests: XCTestCase {
    func testChoiceAndKeys() throws {
        func resolve(_ flag: String?, _ env: [String: String]) throws -> ProviderSettings {
            try ProviderSettings.resolve(provider: flag, model: nil, environment: { env[$0] })
        }
        XCTAssertEqual(try resolve(nil, [:]).name, "extractive")
        XCTAssertEqual(try resolve(nil, ["OPENAI_API_KEY": "k"]).name, "openai")
        XCTAssertEqual(try resolve(nil, ["OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "a"]).name, "anthropic")
        XCTAssertEqual(try resolve(nil, ["ANTHROPIC_API_KEY": "a", "IB_PROVIDER": "ollama"]).name, "ollama")
        XCTAssertEqual(try resolve("extractive", ["ANTHROPIC_API_KEY": "a"]).name, "extractive")
        XCTAssertEqual(try resolve(nil, ["IB_PROVIDER": "openai", "IB_MODEL": "m1", "OPENAI_API_KEY": "k"]).model, "m1")
        XCTAssertEqual(try resolve("ollama", ["OLLAMA_HOST": "10.0.0.2:11434"]).baseURL, "http://10.0.0.2:11434")
        XCTAssertEqual(try resolve("openai", ["OPENAI_BASE_URL": "http://127.0.0.1:8080/v1/"]).baseURL, "http://127.0.0.1:8080/v1")
        XCTAssertThrowsError(try resolve("openai", [:])) { XCTAssertEqual(($0 as! IBError).code, .provider) }
        XCTAssertThrowsError(try resolve("gemini", [:])) { XCTAssertEqual(($0 as! IBError).code, .usage) }
    }

    func testCompatibleServerWithoutKeySendsNoAuthorization() throws {
        let server = try TestHTTPServer(script: [OpenAI.answer(["hi"])])
        defer { server.stop() }
        let env = ["OPENAI_BASE_URL": server.baseURL + "/v1"]
        let s = try ProviderSettings.resolve(provider: "openai", model: nil, environment: { env[$0] })
        let lib = try TestLibrary()
        _ = try Asker(book: lib.context(), provider: s.makeProvider(), retriever: { FullTextRetriever(db: lib.library.db) }).ask("Q?", history: []) { _ in }
        XCTAssertNil(server.requests[0].header("authorization"))
        XCTAssertEqual(server.requests[0].json?["model"]?.stringValue, "gpt-4o-mini")
    }
}
