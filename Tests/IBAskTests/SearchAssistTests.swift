import XCTest
import IBCore
import IBSearch
@testable import IBAsk
import IBTestSupport

/// Provider-assisted search (ib-search --expand/--rerank, ib-ask's default with
/// a provider) against each provider's wire format over real HTTP on 127.0.0.1,
/// with the real search engine over a real library (text only: the test book
/// has no vectors).
final class SearchAssistTests: XCTestCase {
    var lib: TestLibrary!
    var engine: SearchEngine!

    override func setUpWithError() throws {
        lib = try TestLibrary(currentPage: 4)   // pages 5 and 6 are past the reader
        engine = SearchEngine(library: lib.library)
    }

    override func tearDown() { engine = nil; lib = nil }

    func query(_ text: String, k: Int = 3) -> SearchQuery {
        SearchQuery(text: text, books: [lib.bookID], pageLimit: .readingPosition, k: k, mode: .hybrid)
    }

    func assistant(_ name: String, _ server: TestHTTPServer, timeout: Double = 5) throws -> ProviderAssistant {
        ProviderAssistant(provider: try XCTUnwrap(try settings(name, server, retries: 0, timeout: timeout).makeProvider()))
    }

    /// The text of the last user message of a recorded chat request, whatever the provider.
    func lastUserText(_ request: RecordedRequest) throws -> String {
        let messages = try XCTUnwrap(request.json?["messages"]?.arrayValue)
        let last = try XCTUnwrap(messages.last { $0["role"]?.stringValue == "user" })
        if let s = last["content"]?.stringValue { return s }
        return (last["content"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }.joined()
    }

    func testExpandThenRerankSendTheDocumentedRequestsAndFollowTheAnswers() throws {
        for name in ["openai", "anthropic", "ollama"] {
            func reply(_ pieces: [String]) -> TestResponse {
                switch name {
                case "openai": return OpenAI.answer(pieces)
                case "anthropic": return Anthropic.answer(pieces)
                default: return Ollama.answer(pieces)
                }
            }
            let server = try TestHTTPServer(script: [
                reply(["1. storm lantern room light\n", "- Tomas missing at sea\n", "\"Elena watched the storm and kept the light burning.\""]),
                reply(["2 1"]),
            ])
            defer { server.stop() }
            var warnings: [String] = []
            let question = "who stayed up all night during the storm"
            let plain = try engine.search(query(question))
            let results = try engine.search(query(question), assistant: try assistant(name, server),
                                            options: AssistOptions(expand: true, rerank: true)) { warnings.append($0) }
            XCTAssertEqual(warnings, [], name)
            XCTAssertEqual(server.requests.count, 2, name)

            // The expansion: the question, as the user message, and the prompt as the system.
            let expand = server.requests[0]
            XCTAssertEqual(try lastUserText(expand), question, name)
            XCTAssertTrue(expand.bodyText.contains("words and names the book itself would most likely use"), name)

            // The ranking: the question and the numbered candidates, none past the reader's page.
            let rerank = try lastUserText(server.requests[1])
            XCTAssertTrue(rerank.contains(question), name)
            XCTAssertTrue(rerank.contains("[1] ") && rerank.contains("[2] "), name)
            XCTAssertFalse(rerank.contains("brass key opened the locked door"), "page 5 reached the provider (\(name))")
            XCTAssertFalse(rerank.contains("returned in spring"), "page 6 reached the provider (\(name))")
            XCTAssertTrue(results.allSatisfy { $0.endPage <= 4 }, name)

            // The model's order: its second candidate first, then its first.
            XCTAssertGreaterThanOrEqual(results.count, 2, name)
            let candidates = rerank.components(separatedBy: "\n\n").filter { $0.hasPrefix("[") }
            XCTAssertTrue(candidates[1].contains(String(results[0].text.prefix(40))), "\(name): \(candidates) vs \(results.map(\.text))")
            XCTAssertTrue(candidates[0].contains(String(results[1].text.prefix(40))), name)
            XCTAssertEqual(results.map(\.rank), Array(1...results.count))
            XCTAssertEqual(Set(results.map(\.chunkID)).count, results.count, "no chunk twice")
            XCTAssertFalse(plain.isEmpty)
        }
    }

    func testAFailingProviderGivesOneWarningAndThePlainSearch() throws {
        let server = try TestHTTPServer { _ in .status(500, body: "{\"error\":\"boom\"}") }
        defer { server.stop() }
        let question = "the lamp and the key"
        let plain = try engine.search(query(question))
        var warnings: [String] = []
        let results = try engine.search(query(question), assistant: try assistant("openai", server),
                                        options: AssistOptions(expand: true, rerank: true)) { warnings.append($0) }
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings[0].contains("HTTP 500"), warnings[0])
        XCTAssertEqual(server.requests.count, 1, "a provider that failed is not asked to rerank")
        XCTAssertEqual(results.map(\.chunkID), plain.map(\.chunkID))
    }

    func testASlowProviderTimesOutToThePlainOrder() throws {
        let server = try TestHTTPServer { _ in .delayed(3, OpenAI.answer(["1"])) }
        defer { server.stop() }
        let question = "the lamp and the key"
        let plain = try engine.search(query(question))
        var warnings: [String] = []
        let started = Timestamp.monotonic()
        let results = try engine.search(query(question), assistant: try assistant("openai", server, timeout: 0.5),
                                        options: AssistOptions(rerank: true)) { warnings.append($0) }
        XCTAssertLessThan(Timestamp.monotonic() - started, 2.5, "the timeout, not the provider, decided")
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertEqual(results.map(\.chunkID), plain.map(\.chunkID))
    }

    func testAnAnswerWithoutNumbersKeepsTheOrder() throws {
        let server = try TestHTTPServer(script: [OpenAI.answer(["I cannot tell."])])
        defer { server.stop() }
        let question = "the lamp and the key"
        let plain = try engine.search(query(question))
        var warnings: [String] = []
        let results = try engine.search(query(question), assistant: try assistant("openai", server),
                                        options: AssistOptions(rerank: true)) { warnings.append($0) }
        XCTAssertEqual(warnings.count, 1)
        XCTAssertEqual(results.map(\.chunkID), plain.map(\.chunkID))
    }

    func testParsing() {
        XCTAssertEqual(ProviderAssistant.numbers(in: "3, 1 and [7]; 3 again, 0 and 99", count: 7), [2, 0, 6])
        XCTAssertEqual(ProviderAssistant.numbers(in: "none", count: 5), [])
        XCTAssertEqual(ProviderAssistant.searches(in: "1. whale line\n\n- \"a quoted search\"\n• third one\n"),
                       ["whale line", "a quoted search", "third one"])
    }
}
