// The HTTP embedding providers against a real HTTP/1.1 server on 127.0.0.1
// (IBTestSupport) that speaks each API's documented shapes. The tests assert
// the requests the server received: path, headers, model, batching.
import XCTest
import IBCore
import IBHTTP
import IBTestSupport
@testable import IBEmbed

/// A vector that depends only on the text (so tests can check order and caching).
func fakeVector(_ text: String, dim: Int) -> [Float] {
    var h: UInt32 = 2166136261
    for b in text.utf8 { h = (h ^ UInt32(b)) &* 16777619 }
    return (0..<dim).map { j in Float(Int((h >> UInt32(j % 24)) & 1023) - 512) / 512 }
}

func floatsJSON(_ v: [Float]) -> String { "[" + v.map { "\($0)" }.joined(separator: ",") + "]" }

/// OpenAI's documented answer, with the items in reverse order (the client must sort by index).
func openAIAnswer(_ request: RecordedRequest, dim: Int) -> TestResponse {
    let input = request.json?["input"]?.arrayValue?.compactMap(\.stringValue) ?? []
    let items = input.enumerated().reversed().map { i, text in
        #"{"object":"embedding","index":\#(i),"embedding":\#(floatsJSON(fakeVector(text, dim: dim)))}"#
    }
    return .json(#"{"object":"list","data":[\#(items.joined(separator: ","))],"model":"text-embedding-3-small","usage":{"prompt_tokens":5,"total_tokens":5}}"#)
}

/// Ollama's documented /api/embed answer.
func ollamaAnswer(_ request: RecordedRequest, dim: Int) -> TestResponse {
    let input = request.json?["input"]?.arrayValue?.compactMap(\.stringValue) ?? []
    let vectors = input.map { floatsJSON(fakeVector($0, dim: dim)) }
    return .json(#"{"model":"nomic-embed-text","embeddings":[\#(vectors.joined(separator: ","))],"total_duration":1,"load_duration":1,"prompt_eval_count":3}"#)
}

func openAI(_ server: TestHTTPServer, batch: Int = 96, dim: Int? = nil, timeout: Double = 10, retries: Int = 3,
            base: String? = nil) -> OpenAIEmbeddingProvider {
    var settings = HTTPEmbeddingSettings(model: "text-embedding-3-small", baseURL: base ?? server.baseURL,
                                         apiKey: "sk-test", dimension: dim, batchSize: batch)
    settings.timeout = timeout
    settings.maxRetries = retries
    settings.baseBackoff = 0.01
    return OpenAIEmbeddingProvider(settings: settings)
}

func ollama(_ server: TestHTTPServer, batch: Int = 32, dim: Int? = nil) -> OllamaEmbeddingProvider {
    var settings = HTTPEmbeddingSettings(model: "nomic-embed-text", baseURL: server.baseURL, dimension: dim, batchSize: batch)
    settings.maxRetries = 2
    settings.baseBackoff = 0.01
    return OllamaEmbeddingProvider(settings: settings)
}

/// The error an expression throws, as an IBError.
func ibError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> IBError? {
    do { try body() } catch let error as IBError { return error } catch {
        XCTFail("not an IBError: \(error)", file: file, line: line)
        return nil
    }
    XCTFail("no error thrown", file: file, line: line)
    return nil
}

final class OpenAIProviderTests: XCTestCase {
    func testRequestsBatchesAndOrder() throws {
        let server = try TestHTTPServer { openAIAnswer($0, dim: 8) }
        defer { server.stop() }
        let provider = openAI(server, batch: 3)
        let texts = (0..<7).map { "text number \($0)" }
        let vectors = try provider.embed(texts)

        XCTAssertEqual(vectors, texts.map { fakeVector($0, dim: 8) }, "vectors in input order, whatever the index order")
        XCTAssertEqual(provider.dimension, 8)
        XCTAssertEqual(provider.modelID, "openai/text-embedding-3-small")
        let requests = server.requests
        XCTAssertEqual(requests.count, 3)
        var sent: [String] = []
        for request in requests {
            XCTAssertEqual(request.method, "POST")
            XCTAssertEqual(request.path, "/v1/embeddings")
            XCTAssertEqual(request.header("authorization"), "Bearer sk-test")
            XCTAssertEqual(request.header("content-type"), "application/json")
            let json = try XCTUnwrap(request.json)
            XCTAssertEqual(json["model"]?.stringValue, "text-embedding-3-small")
            XCTAssertEqual(json["encoding_format"]?.stringValue, "float")
            XCTAssertNil(json["dimensions"])
            sent += json["input"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        XCTAssertEqual(requests.map { $0.json?["input"]?.arrayValue?.count ?? -1 }, [3, 3, 1])
        XCTAssertEqual(sent, texts)
    }

    func testTokenBudgetSplitsBatches() throws {
        let server = try TestHTTPServer { openAIAnswer($0, dim: 4) }
        defer { server.stop() }
        var settings = openAI(server).settings
        settings.maxBatchTokens = 100
        let provider = OpenAIEmbeddingProvider(settings: settings)
        let long = String(repeating: "word ", count: 60)  // 300 bytes: about 101 estimated tokens
        _ = try provider.embed([long, "a", "b", long])
        XCTAssertEqual(server.requests.map { $0.json?["input"]?.arrayValue?.count ?? -1 }, [1, 2, 1])
    }

    func testBaseURLWithV1AndDimensions() throws {
        let server = try TestHTTPServer { openAIAnswer($0, dim: 16) }
        defer { server.stop() }
        let provider = openAI(server, dim: 16, base: server.baseURL + "/v1/")
        _ = try provider.embed(["hello"])
        XCTAssertEqual(server.requests.first?.path, "/v1/embeddings")
        XCTAssertEqual(server.requests.first?.json?["dimensions"]?.intValue, 16)
        XCTAssertEqual(provider.cacheKey, "openai/text-embedding-3-small?dimensions=16")
    }

    func testRetryAfterOn429ThenSuccess() throws {
        let queue = ScriptedQueue([.status(429, body: #"{"error":{"message":"Rate limit reached"}}"#, headers: [("Retry-After", "1")])])
        let server = try TestHTTPServer { queue.next() ?? openAIAnswer($0, dim: 4) }
        defer { server.stop() }
        let vectors = try openAI(server).embed(["a", "b"])
        XCTAssertEqual(vectors.count, 2)
        let requests = server.requests
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests[0].bodyText, requests[1].bodyText, "the same batch is sent again")
        // Retry-After: 1 is honoured (a lower bound, not a speed check).
        XCTAssertGreaterThanOrEqual(requests[1].arrival - requests[0].arrival, 0.9)
    }

    func test500ThenSuccess() throws {
        let queue = ScriptedQueue([.status(500, body: "oops"), .status(503)])
        let server = try TestHTTPServer { queue.next() ?? openAIAnswer($0, dim: 4) }
        defer { server.stop() }
        XCTAssertEqual(try openAI(server).embed(["x"]), [fakeVector("x", dim: 4)])
        XCTAssertEqual(server.requests.count, 3)
    }

    func testPersistent500Fails() throws {
        let server = try TestHTTPServer { _ in .status(502, body: #"{"error":{"message":"upstream down"}}"#) }
        defer { server.stop() }
        let error = ibError { _ = try openAI(server, retries: 2).embed(["x"]) }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertTrue(error?.message.contains("HTTP 502") == true, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("upstream down") == true, error?.message ?? "")
        XCTAssertEqual(server.requests.count, 3, "one try and two retries")
    }

    func test401NamesTheVariableAndIsNotRetried() throws {
        let server = try TestHTTPServer { _ in
            .json(#"{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","code":"invalid_api_key"}}"#, status: 401)
        }
        defer { server.stop() }
        let error = ibError { _ = try openAI(server).embed(["x"]) }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertTrue(error?.message.contains("OPENAI_API_KEY") == true, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("401") == true, error?.message ?? "")
        XCTAssertEqual(server.requests.count, 1)
    }

    func testMissingKeyNamesTheVariable() throws {
        let args = try Arguments(["--provider", "openai"], options: ProviderOptions.arguments)
        let options = try ProviderOptions(args, environment: { _ in nil })
        let error = ibError { _ = try options.makeProvider { XCTFail("native built"); throw IBError("x") } }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertTrue(error?.message.contains("OPENAI_API_KEY") == true, error?.message ?? "")
    }

    func testTimeout() throws {
        let server = try TestHTTPServer { .delayed(3, openAIAnswer($0, dim: 4)) }
        defer { server.stop() }
        let error = ibError { _ = try openAI(server, timeout: 0.5).embed(["x"]) }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertTrue(error?.message.contains("did not answer in time") == true, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("--timeout") == true, error?.message ?? "")
    }

    func testWrongDimensionAgainstDimFlag() throws {
        let server = try TestHTTPServer { openAIAnswer($0, dim: 3) }
        defer { server.stop() }
        let error = ibError { _ = try openAI(server, dim: 4).embed(["x"]) }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertTrue(error?.message.contains("3 dimensions, expected 4") == true, error?.message ?? "")
    }

    func testWrongDimensionAgainstFirstAnswer() throws {
        let counter = Counter()
        let server = try TestHTTPServer { counter.next() == 0 ? openAIAnswer($0, dim: 8) : openAIAnswer($0, dim: 6) }
        defer { server.stop() }
        let provider = openAI(server, batch: 2)
        let error = ibError { _ = try provider.embed(["a", "b", "c"]) }
        XCTAssertTrue(error?.message.contains("6 dimensions, expected 8") == true, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("nothing was written") == true, error?.message ?? "")
    }

    func testWrongNumberOfVectors() throws {
        let server = try TestHTTPServer { _ in
            .json(#"{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,2]}]}"#)
        }
        defer { server.stop() }
        let error = ibError { _ = try openAI(server).embed(["a", "b"]) }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertTrue(error?.message.contains("1 embeddings for 2 texts") == true, error?.message ?? "")
    }

    func testNotJSONIsAClearError() throws {
        let server = try TestHTTPServer { _ in .text("<html>proxy</html>") }
        defer { server.stop() }
        let error = ibError { _ = try openAI(server).embed(["a"]) }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertTrue(error?.message.contains("unexpected answer") == true, error?.message ?? "")
    }

    func testConnectionRefused() throws {
        let server = try TestHTTPServer { _ in .status(500) }
        let url = server.baseURL
        server.stop()
        var settings = HTTPEmbeddingSettings(model: "m", baseURL: url, apiKey: "k", batchSize: 4)
        settings.maxRetries = 0
        let error = ibError { _ = try OpenAIEmbeddingProvider(settings: settings).embed(["a"]) }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertTrue(error?.message.contains("cannot reach OpenAI") == true, error?.message ?? "")
    }
}

final class OllamaProviderTests: XCTestCase {
    func testRequestsAndBatching() throws {
        let server = try TestHTTPServer { ollamaAnswer($0, dim: 5) }
        defer { server.stop() }
        let provider = ollama(server, batch: 2)
        let texts = ["one", "two", "three"]
        XCTAssertEqual(try provider.embed(texts), texts.map { fakeVector($0, dim: 5) })
        XCTAssertEqual(provider.modelID, "ollama/nomic-embed-text")
        let requests = server.requests
        XCTAssertEqual(requests.count, 2)
        for request in requests {
            XCTAssertEqual(request.method, "POST")
            XCTAssertEqual(request.path, "/api/embed")
            XCTAssertNil(request.header("authorization"))
            XCTAssertEqual(request.json?["model"]?.stringValue, "nomic-embed-text")
        }
        XCTAssertEqual(requests.map { $0.json?["input"]?.arrayValue?.compactMap(\.stringValue) ?? [] }, [["one", "two"], ["three"]])
    }

    func test429ThenSuccessAndPersistent503() throws {
        let queue = ScriptedQueue([.status(429, headers: [("Retry-After", "0")])])
        let server = try TestHTTPServer { queue.next() ?? ollamaAnswer($0, dim: 3) }
        defer { server.stop() }
        XCTAssertEqual(try ollama(server).embed(["a"]).count, 1)
        XCTAssertEqual(server.requests.count, 2)

        let down = try TestHTTPServer { _ in .status(503) }
        defer { down.stop() }
        let error = ibError { _ = try ollama(down).embed(["a"]) }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertEqual(down.requests.count, 3)
    }

    func testMissingModelSaysPull() throws {
        let server = try TestHTTPServer { _ in .json(#"{"error":"model \"nomic-embed-text\" not found, try pulling it first"}"#, status: 404) }
        defer { server.stop() }
        let error = ibError { _ = try ollama(server).embed(["a"]) }
        XCTAssertTrue(error?.message.contains("ollama pull nomic-embed-text") == true, error?.message ?? "")
    }

    func testWrongDimension() throws {
        let server = try TestHTTPServer { ollamaAnswer($0, dim: 3) }
        defer { server.stop() }
        let error = ibError { _ = try ollama(server, dim: 768).embed(["a"]) }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertTrue(error?.message.contains("expected 768") == true, error?.message ?? "")
    }

    func testHostForms() throws {
        // The forms themselves are ProviderEndpoint's (IBCoreTests/EndpointTests); this is the wiring.
        XCTAssertEqual(try OllamaEmbeddingProvider.baseURL(host: nil), "http://127.0.0.1:11434")
        XCTAssertEqual(try OllamaEmbeddingProvider.baseURL(host: "myhost"), "http://myhost:11434")
        XCTAssertEqual(try OllamaEmbeddingProvider.baseURL(host: "0.0.0.0"), "http://127.0.0.1:11434")
        XCTAssertEqual(try OllamaEmbeddingProvider.baseURL(host: "0.0.0.0:8080"), "http://127.0.0.1:8080")
        XCTAssertEqual(try OllamaEmbeddingProvider.baseURL(host: "gpu-box:11434"), "http://gpu-box:11434")
        XCTAssertEqual(try OllamaEmbeddingProvider.baseURL(host: "https://ollama.example.com/"), "https://ollama.example.com:443")
        XCTAssertEqual(ibError { _ = try OllamaEmbeddingProvider.baseURL(host: "ftp://x") }?.code, .usage)
    }

    func testBadEndpointSettingsAreUsageErrorsNamingThem() throws {
        func options(_ flags: [String], _ env: [String: String]) throws -> ProviderOptions {
            try ProviderOptions(try Arguments(flags, options: ProviderOptions.arguments), environment: { env[$0] })
        }
        // A bad --base-url is refused when the options are read.
        let flag = ibError { _ = try options(["--provider", "ollama", "--base-url", "ftp://box"], [:]) }
        XCTAssertEqual(flag?.code, .usage)
        XCTAssertTrue(flag?.message.hasPrefix("--base-url:") == true, flag?.message ?? "")
        // Bad or empty variables, when the provider that reads them is built.
        for (provider, variable, value) in [("ollama", "OLLAMA_HOST", ""), ("ollama", "OLLAMA_HOST", "box:port"),
                                            ("openai", "OPENAI_BASE_URL", ""), ("openai", "OPENAI_BASE_URL", "gopher://x")] {
            let o = try options(["--provider", provider, "--no-cache"], [variable: value, "OPENAI_API_KEY": "k"])
            let error = ibError { _ = try o.makeHTTPProvider() }
            XCTAssertEqual(error?.code, .usage, "\(variable)=\(value)")
            XCTAssertTrue(error?.message.hasPrefix(variable) == true, error?.message ?? "")
        }
        // An empty variable of another provider is not read; other empty variables count as unset.
        let o = try options(["--no-cache"], ["IB_EMBED_PROVIDER": "ollama", "OPENAI_BASE_URL": "", "IB_EMBED_MODEL": ""])
        let provider = try XCTUnwrap(try o.makeHTTPProvider() as? OllamaEmbeddingProvider)
        XCTAssertEqual(provider.endpoint, "http://127.0.0.1:11434/api/embed")
        XCTAssertEqual(provider.settings.model, OllamaEmbeddingProvider.defaultModel)
    }
}

final class ProviderOptionsTests: XCTestCase {
    func testChoiceFromFlagsAndEnvironment() throws {
        let env: [String: String] = ["IB_EMBED_PROVIDER": "ollama", "OLLAMA_HOST": "box:1234", "OPENAI_API_KEY": "k",
                                     "OPENAI_BASE_URL": "http://compat.local/v1"]
        let fromEnv = try ProviderOptions(try Arguments(["--no-cache"], options: ProviderOptions.arguments), environment: { env[$0] })
        let ollama = try XCTUnwrap(try fromEnv.makeHTTPProvider() as? OllamaEmbeddingProvider)
        XCTAssertEqual(ollama.endpoint, "http://box:1234/api/embed")
        XCTAssertEqual(ollama.settings.batchSize, OllamaEmbeddingProvider.defaultBatchSize)

        let flags = try Arguments(["--provider", "openai", "--model", "text-embedding-3-large", "--batch", "10"],
                                  options: ProviderOptions.arguments + [.init("batch", takesValue: true)])
        let openai = try XCTUnwrap(try ProviderOptions(flags, environment: { env[$0] }).makeHTTPProvider() as? OpenAIEmbeddingProvider)
        XCTAssertEqual(openai.endpoint, "http://compat.local/v1/embeddings")
        XCTAssertEqual(openai.modelID, "openai/text-embedding-3-large")
        XCTAssertEqual(openai.settings.batchSize, 10)

        let stored = ProviderOptions(modelID: "ollama/mxbai-embed-large", environment: { _ in nil })
        XCTAssertEqual(stored.provider, "ollama")
        XCTAssertEqual(try stored.makeHTTPProvider()?.modelID, "ollama/mxbai-embed-large")
        XCTAssertEqual(ProviderOptions(modelID: "all-MiniLM-L6-v2").provider, "native")

        let bad = try Arguments(["--provider", "cohere"], options: ProviderOptions.arguments)
        XCTAssertEqual(ibError { _ = try ProviderOptions(bad, environment: { _ in nil }) }?.code, .usage)
    }
}

/// Scripted answers first, then nil (the handler falls back to the API's answer).
final class ScriptedQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [TestResponse]
    init(_ items: [TestResponse]) { self.items = items }
    func next() -> TestResponse? {
        lock.lock(); defer { lock.unlock() }
        return items.isEmpty ? nil : items.removeFirst()
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func next() -> Int {
        lock.lock(); defer { lock.unlock() }
        n += 1
        return n - 1
    }
}
