// ib-embed and ib-ask read OLLAMA_HOST, OPENAI_BASE_URL and --base-url the
// same way (ProviderEndpoint in IBCore): for one environment, both tools'
// requests reach the same host, port and path prefix. Each case sends one
// embedding request (IBEmbed's provider, built from ib-embed's options) and
// one chat request (IBAsk's provider, through the Asker) to a real HTTP
// server on 127.0.0.1 and compares the paths it received.
import XCTest
import IBCore
import IBStore
import IBTestSupport
import IBEmbed
@testable import IBAsk

final class EndpointAgreementTests: XCTestCase {
    var lib: TestLibrary!
    override func setUpWithError() throws { lib = try TestLibrary() }
    override func tearDown() { lib = nil }

    /// One server that speaks both tools' APIs, chosen by the request path.
    func makeServer(port: Int = 0) throws -> TestHTTPServer {
        try TestHTTPServer(port: port) { request in
            let input = request.json?["input"]?.arrayValue?.count ?? 1
            if request.path.hasSuffix("/embeddings") {
                let items = (0..<input).map { #"{"object":"embedding","index":\#($0),"embedding":[0.1,0.2,0.3]}"# }
                return .json(#"{"object":"list","data":[\#(items.joined(separator: ","))],"model":"m"}"#)
            }
            if request.path.hasSuffix("/api/embed") {
                return .json(#"{"model":"m","embeddings":[\#(Array(repeating: "[0.1,0.2,0.3]", count: input).joined(separator: ","))]}"#)
            }
            if request.path.hasSuffix("/chat/completions") { return OpenAI.answer(["It was the brass key."]) }
            if request.path.hasSuffix("/api/chat") { return Ollama.answer(["It was the brass key."]) }
            return .status(404, body: "no such path: \(request.path)")
        }
    }

    /// The URL ib-embed posts to, and the one ib-ask posts to, for `provider` in `env` (with `flag` as --base-url).
    func urls(_ provider: String, _ env: [String: String], flag: String? = nil) throws -> (embed: String, chat: String) {
        var flags = ["--provider", provider, "--no-cache", "--retries", "0"]
        if let flag { flags += ["--base-url", flag] }
        let options = try ProviderOptions(try Arguments(flags, options: ProviderOptions.arguments), environment: { env[$0] })
        let embedder = try XCTUnwrap(try options.makeHTTPProvider())
        let settings = try ProviderSettings.resolve(provider: provider, model: nil, baseURL: flag, environment: { env[$0] })
        return (embedder.endpoint, settings.endpoint(provider == "ollama" ? "api/chat" : "chat/completions"))
    }

    /// Sends one request from each tool to `server`; returns the two paths it received.
    func send(_ provider: String, _ env: [String: String], flag: String? = nil, server: TestHTTPServer,
              file: StaticString = #filePath, line: UInt = #line) throws -> (embed: String, chat: String) {
        let before = server.requests.count
        var flags = ["--provider", provider, "--no-cache", "--retries", "0"]
        if let flag { flags += ["--base-url", flag] }
        let options = try ProviderOptions(try Arguments(flags, options: ProviderOptions.arguments), environment: { env[$0] })
        let vectors = try XCTUnwrap(try options.makeHTTPProvider()).embed(["Elena kept the lighthouse."])
        XCTAssertEqual(vectors.count, 1, file: file, line: line)

        var settings = try ProviderSettings.resolve(provider: provider, model: nil, baseURL: flag, environment: { env[$0] })
        settings.maxRetries = 0
        settings.timeout = 5
        settings.useTools = false
        let answer = try Asker(book: lib.context(), provider: settings.makeProvider(),
                               retriever: { FullTextRetriever(db: self.lib.library.db) }).ask("What was in the box?", history: []) { _ in }
        XCTAssertTrue(answer.answer.contains("brass key"), answer.answer, file: file, line: line)

        let requests = Array(server.requests.dropFirst(before))
        XCTAssertEqual(requests.count, 2, requests.map(\.path).joined(separator: " "), file: file, line: line)
        return (requests.first?.path ?? "", requests.last?.path ?? "")
    }

    func testOpenAIBaseWithOrWithoutV1ReachesTheSamePrefix() throws {
        let server = try makeServer()
        defer { server.stop() }
        let port = server.port
        let cases: [(String, String)] = [
            ("http://127.0.0.1:\(port)", ""),
            ("http://127.0.0.1:\(port)/", ""),
            ("http://127.0.0.1:\(port)/v1", ""),
            ("http://127.0.0.1:\(port)/v1//", ""),
            ("http://0.0.0.0:\(port)", ""),
            ("HTTP://127.0.0.1:\(port)/proxy/", "/proxy"),
            ("http://127.0.0.1:\(port)/proxy/v1", "/proxy"),
        ]
        for (base, prefix) in cases {
            // The variable, and the same value as --base-url (no key: a compatible server).
            for (env, flag) in [(["OPENAI_BASE_URL": base, "OPENAI_API_KEY": "sk-test"], nil as String?),
                                (["OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": "http://127.0.0.1:1/elsewhere"], base)] {
                let paths = try send("openai", env, flag: flag, server: server)
                XCTAssertEqual(paths.embed, prefix + "/v1/embeddings", "\(base) flag=\(flag != nil)")
                XCTAssertEqual(paths.chat, prefix + "/v1/chat/completions", "\(base) flag=\(flag != nil)")
            }
        }
    }

    func testOllamaHostFormsReachTheSameServer() throws {
        let server = try makeServer()
        defer { server.stop() }
        let port = server.port
        let cases: [(String, String)] = [
            ("127.0.0.1:\(port)", ""),
            ("http://127.0.0.1:\(port)", ""),
            ("http://127.0.0.1:\(port)///", ""),
            ("0.0.0.0:\(port)", ""),
            (":\(port)", ""),
            (" localhost:\(port)/ ", ""),
            ("127.0.0.1:\(port)/ollama/", "/ollama"),
        ]
        for (host, prefix) in cases {
            for (env, flag) in [(["OLLAMA_HOST": host], nil as String?), (["OLLAMA_HOST": "127.0.0.1:1"], host)] {
                let paths = try send("ollama", env, flag: flag, server: server)
                XCTAssertEqual(paths.embed, prefix + "/api/embed", "\(host) flag=\(flag != nil)")
                XCTAssertEqual(paths.chat, prefix + "/api/chat", "\(host) flag=\(flag != nil)")
            }
        }
    }

    /// OLLAMA_HOST=127.0.0.1 (a host alone): both tools go to port 11434.
    func testOllamaHostAloneUsesPort11434InBothTools() throws {
        let server: TestHTTPServer
        do { server = try makeServer(port: 11434) } catch { throw XCTSkip("port 11434 is in use here: \(error)") }
        defer { server.stop() }
        let paths = try send("ollama", ["OLLAMA_HOST": "127.0.0.1"], server: server)
        XCTAssertEqual(paths.embed, "/api/embed")
        XCTAssertEqual(paths.chat, "/api/chat")
    }

    /// The URLs themselves, for hosts no test server can be: the same base in both tools.
    func testRequestURLsAgreeForOneEnvironment() throws {
        let ollama: [(String, String)] = [
            ("myhost", "http://myhost:11434"), ("myhost:8080", "http://myhost:8080"), ("http://myhost", "http://myhost:80"),
            ("https://myhost/", "https://myhost:443"), ("0.0.0.0", "http://127.0.0.1:11434"), ("[::1]:11434", "http://[::1]:11434"),
            ("::1", "http://[::1]:11434"), ("gpu-box:11434/prefix//", "http://gpu-box:11434/prefix"),
        ]
        for (host, base) in ollama {
            let u = try urls("ollama", ["OLLAMA_HOST": host])
            XCTAssertEqual(u.embed, base + "/api/embed", host)
            XCTAssertEqual(u.chat, base + "/api/chat", host)
        }
        let openai: [(String, String)] = [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1"), ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),
            ("https://api.example.com/openai", "https://api.example.com/openai/v1"), ("http://[::1]:8000", "http://[::1]:8000/v1"),
        ]
        for (value, base) in openai {
            let u = try urls("openai", ["OPENAI_BASE_URL": value, "OPENAI_API_KEY": "k"])
            XCTAssertEqual(u.embed, base + "/embeddings", value)
            XCTAssertEqual(u.chat, base + "/chat/completions", value)
        }
        // Nothing set: each API's default, the same in both tools.
        let defaults = try urls("openai", ["OPENAI_API_KEY": "k"])
        XCTAssertEqual(defaults.embed, "https://api.openai.com/v1/embeddings")
        XCTAssertEqual(defaults.chat, "https://api.openai.com/v1/chat/completions")
        let local = try urls("ollama", [:])
        XCTAssertEqual(local.embed, "http://127.0.0.1:11434/api/embed")
        XCTAssertEqual(local.chat, "http://127.0.0.1:11434/api/chat")
    }

    /// A bad value is one usage error naming the variable, in both tools, before any request.
    func testBadValuesAreTheSameErrorInBothTools() throws {
        for (provider, variable, value) in [("ollama", "OLLAMA_HOST", "ftp://box"), ("ollama", "OLLAMA_HOST", ""),
                                            ("ollama", "OLLAMA_HOST", "box:99999"), ("openai", "OPENAI_BASE_URL", "box:8080/v1"),
                                            ("openai", "OPENAI_BASE_URL", "")] {
            let env = [variable: value, "OPENAI_API_KEY": "k"]
            var embedError: IBError?, askError: IBError?
            do {
                let options = try ProviderOptions(try Arguments(["--provider", provider], options: ProviderOptions.arguments), environment: { env[$0] })
                _ = try options.makeHTTPProvider()
            } catch { embedError = error }
            do { _ = try ProviderSettings.resolve(provider: provider, model: nil, environment: { env[$0] }) } catch { askError = error }
            XCTAssertEqual(embedError?.code, .usage, "\(variable)=\(value)")
            XCTAssertEqual(askError?.code, .usage, "\(variable)=\(value)")
            XCTAssertEqual(embedError?.message, askError?.message, "\(variable)=\(value)")
            XCTAssertTrue(askError?.message.hasPrefix(variable) == true, askError?.message ?? "")
        }
        // --base-url with the offline provider has nothing to reach.
        XCTAssertThrowsError(try ProviderSettings.resolve(provider: "extractive", model: nil, baseURL: "http://h", environment: { _ in nil })) {
            XCTAssertEqual(($0 as? IBError)?.code, .usage)
        }
    }
}
