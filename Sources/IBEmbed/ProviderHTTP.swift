// Embedding providers over HTTP: OpenAI (POST {base}/v1/embeddings) and
// Ollama (POST {host}/api/embed). Both cut the texts into batches (a number
// of texts and an estimated token budget per request), retry 429 and 5xx
// with exponential backoff and jitter honouring Retry-After (IBHTTP), and
// check every answer before anything is returned: one vector per text, all
// of one dimension, the dimension expected (--dim, or the first answer).
// A bad answer is an IBError with exit code 4 and nothing of that batch
// comes back, so nothing of it is written or cached.
import Foundation
import IBCore
import IBHTTP

/// What an HTTP provider needs; the factory (ProviderOptions.swift) fills it
/// from flags and the environment, tests fill it directly.
public struct HTTPEmbeddingSettings {
    /// The provider's own model name, e.g. "text-embedding-3-small".
    public var model: String
    /// OpenAI: "https://api.openai.com/v1" (/v1 is added when missing); Ollama:
    /// "http://127.0.0.1:11434". The factory reads them with ProviderEndpoint (IBCore).
    public var baseURL: String
    /// Sent as `Authorization: Bearer KEY` (OpenAI). Never printed.
    public var apiKey: String?
    /// Expected vector length (--dim). OpenAI is also asked for it ("dimensions").
    public var dimension: Int?
    /// Texts per request.
    public var batchSize: Int
    /// Estimated tokens per request (a text counts as ceil(UTF-8 bytes / 3)).
    public var maxBatchTokens: Int = 200_000
    /// Idle timeout per request, seconds.
    public var timeout: Double = 60
    /// Extra attempts on 429 and 5xx.
    public var maxRetries: Int = 5
    /// First backoff, seconds (doubles each attempt, jitter in [50%, 100%]).
    public var baseBackoff: Double = 0.5
    /// Requests in flight at once.
    public var concurrency: Int = 1
    /// Called before each retry sleep (from any request thread).
    public var onRetry: (@Sendable (HTTPRetry) -> Void)?

    public init(model: String, baseURL: String, apiKey: String? = nil, dimension: Int? = nil, batchSize: Int) {
        self.model = model; self.baseURL = baseURL; self.apiKey = apiKey
        self.dimension = dimension; self.batchSize = batchSize
    }
}

/// The shared part of the HTTP providers: batching, the client, checks, errors.
public class HTTPEmbeddingProvider: EmbeddingProvider, EmbeddingCacheKeyed {
    public let settings: HTTPEmbeddingSettings
    public let modelID: String
    /// "OpenAI", "Ollama": for messages.
    public let label: String
    /// The environment variable that holds the key, named in 401 messages.
    let keyVariable: String?
    let client: HTTPClient
    private var expected: Int?
    /// Requests sent that got an answer (retries not counted).
    public private(set) var requestCount = 0
    /// Texts sent.
    public private(set) var textsSent = 0

    init(settings: HTTPEmbeddingSettings, modelID: String, label: String, keyVariable: String?) {
        self.settings = settings
        self.modelID = modelID
        self.label = label
        self.keyVariable = keyVariable
        self.expected = settings.dimension
        client = HTTPClient(timeout: settings.timeout, maxRetries: settings.maxRetries, baseBackoff: settings.baseBackoff)
        client.onRetry = settings.onRetry
    }

    private struct Job: @unchecked Sendable {
        let provider: HTTPEmbeddingProvider
        let client: HTTPClient
        let batch: [String]
    }

    /// The results of concurrent requests, filled in by their threads.
    private final class ResultsBox: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Result<[[Float]], any Error>?]
        init(count: Int) { items = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ result: Result<[[Float]], any Error>) { lock.lock(); items[i] = result; lock.unlock() }
        var results: [Result<[[Float]], any Error>] {
            lock.lock(); defer { lock.unlock() }
            return items.map { $0! }
        }
    }

    /// The expected vector length: --dim, else the first answer's; 0 before either.
    public var dimension: Int { expected ?? 0 }

    /// Key for the content cache: vectors of one key are interchangeable.
    public var cacheKey: String { modelID }

    /// Takes a dimension learned elsewhere (the cache) as the expected one.
    public func adopt(dimension: Int) { if expected == nil, dimension > 0 { expected = dimension } }

    /// The requests `texts` is cut into, in order.
    public func batches(_ texts: [String]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var start = 0, tokens = 0
        for (i, text) in texts.enumerated() {
            let estimate = (text.utf8.count + 2) / 3 + 1
            if i > start, i - start >= settings.batchSize || tokens + estimate > settings.maxBatchTokens {
                out.append(start..<i)
                start = i
                tokens = 0
            }
            tokens += estimate
        }
        if start < texts.count { out.append(start..<texts.count) }
        return out
    }

    public func embed(_ texts: [String]) throws -> [[Float]] { try embed(texts, onBatch: nil) }

    /// Embeds `texts`, up to `settings.concurrency` requests at a time. Each
    /// batch is checked in order on the calling thread, then handed to
    /// `onBatch` (the cache stores it) before the next one; the first failure
    /// in order is thrown, and nothing of the failed batch or after it returns.
    public func embed(_ texts: [String], onBatch: ((Range<Int>, [[Float]]) -> Void)?) throws -> [[Float]] {
        var out: [[Float]] = []
        out.reserveCapacity(texts.count)
        let ranges = batches(texts)
        var next = 0
        while next < ranges.count {
            let group = Array(ranges[next..<min(ranges.count, next + max(1, settings.concurrency))])
            next += group.count
            let results = send(group.map { Array(texts[$0]) })
            for (range, result) in zip(group, results) {
                let vectors: [[Float]]
                switch result {
                case .success(let v): vectors = v
                case .failure(let error as HTTPError): throw describe(error)
                case .failure(let error): throw error
                }
                requestCount += 1
                textsSent += range.count
                try check(vectors, count: range.count)
                onBatch?(range, vectors)
                out.append(contentsOf: vectors)
            }
        }
        return out
    }

    /// Sends the batches, one thread each when there are several; results in order.
    private func send(_ batches: [[String]]) -> [Result<[[Float]], any Error>] {
        if batches.count == 1 { return [Result { try request(batches[0], client: client) }] }
        let box = ResultsBox(count: batches.count)
        let done = DispatchGroup()
        for (i, batch) in batches.enumerated() {
            // request(_:client:) reads only immutable state, and each thread has its own client.
            let job = Job(provider: self, client: makeClient(), batch: batch)
            done.enter()
            let thread = Thread {
                box.set(i, Result { try job.provider.request(job.batch, client: job.client) })
                done.leave()
            }
            thread.start()
        }
        done.wait()
        return box.results
    }

    private func makeClient() -> HTTPClient {
        let client = HTTPClient(timeout: settings.timeout, maxRetries: settings.maxRetries, baseBackoff: settings.baseBackoff)
        client.onRetry = settings.onRetry
        return client
    }

    /// One request for one batch; overridden by each API. Runs on any thread.
    func request(_ texts: [String], client: HTTPClient) throws -> [[Float]] { fatalError("subclass") }

    /// One vector per text, all of the expected dimension; learns it from the first answer.
    func check(_ vectors: [[Float]], count: Int) throws(IBError) {
        guard vectors.count == count else {
            throw IBError("\(label) (\(settings.model)) returned \(vectors.count) embeddings for \(count) texts; nothing was written for this batch", code: .provider)
        }
        guard let first = vectors.first else { return }
        let want = expected ?? first.count
        for vector in vectors where vector.count != want {
            let source = settings.dimension != nil ? "--dim" : "earlier answers"
            throw IBError("\(label) (\(settings.model)) returned a vector of \(vector.count) dimensions, expected \(want) (from \(source)); nothing was written for this batch", code: .provider)
        }
        guard want > 0 else {
            throw IBError("\(label) (\(settings.model)) returned empty embeddings; nothing was written for this batch", code: .provider)
        }
        expected = want
    }

    /// The HTTP failure as a clear IBError (exit 4).
    func describe(_ error: HTTPError) -> IBError {
        if error.kind == .cancelled, let inner = error.underlying as? IBError { return inner }
        let who = "\(label) (\(settings.model))"
        let detail = apiMessage(error.body).map { ": " + $0 } ?? (error.bodyExcerpt.isEmpty ? "" : ": " + error.bodyExcerpt)
        if error.kind == .status && error.status == 404 { return IBError(notFoundMessage(detail: detail), code: .provider) }
        return IBError(error.providerMessage(who: who, label: label, keyVariable: keyVariable, retries: settings.maxRetries,
                                             detail: detail, timeoutHint: " (raise it with --timeout SECONDS)",
                                             unreachableHint: unreachableHint), code: .provider)
    }

    var unreachableHint: String { "" }

    func notFoundMessage(detail: String) -> String {
        "\(label): \(HTTPError.describe(endpoint)) answered HTTP 404\(detail) (check the base URL and the model name)"
    }

    public var endpoint: String { settings.baseURL }

    /// The "error" message of an API's error body: {"error": {"message": ...}} or {"error": "..."}.
    func apiMessage(_ body: [UInt8]) -> String? {
        guard !body.isEmpty, let json = try? JSON.parse(body), let error = json["error"] else { return nil }
        if let text = error.stringValue { return text }
        return error["message"]?.stringValue
    }

    /// An answer that is not what the API documents.
    func malformed(_ what: String) -> IBError {
        IBError("\(label) (\(settings.model)) sent an unexpected answer: \(what); nothing was written for this batch", code: .provider)
    }

    /// A JSON array of numbers as floats.
    func floats(_ json: JSON?, what: String) throws(IBError) -> [Float] {
        guard let array = json?.arrayValue else { throw malformed("\(what) is not an array") }
        var out = [Float](repeating: 0, count: array.count)
        for (i, value) in array.enumerated() {
            guard let number = value.doubleValue else { throw malformed("\(what)[\(i)] is not a number") }
            out[i] = Float(number)
        }
        return out
    }
}

/// OpenAI embeddings (and compatible servers): POST {base}/v1/embeddings.
public final class OpenAIEmbeddingProvider: HTTPEmbeddingProvider {
    public static let defaultModel = "text-embedding-3-small"
    public static let defaultBaseURL = ProviderEndpoint.defaultBase(.openai)
    public static let defaultBatchSize = 96
    public static let defaultConcurrency = 2
    public static let keyVariable = "OPENAI_API_KEY"

    /// `settings.apiKey` must be set (the factory checks the environment).
    public init(settings: HTTPEmbeddingSettings) {
        super.init(settings: settings, modelID: "openai/" + settings.model, label: "OpenAI",
                   keyVariable: OpenAIEmbeddingProvider.keyVariable)
    }

    /// `{base}/v1/embeddings`; a base that already ends in /v1 (as OPENAI_BASE_URL
    /// usually does) gets only `/embeddings` (ProviderEndpoint.versioned, as ib-ask).
    public override var endpoint: String {
        ProviderEndpoint.url(ProviderEndpoint.versioned(settings.baseURL), "embeddings")
    }

    public override var cacheKey: String {
        settings.dimension.map { modelID + "?dimensions=\($0)" } ?? modelID
    }

    override func request(_ texts: [String], client: HTTPClient) throws -> [[Float]] {
        var body = JSONObject([
            ("model", .string(settings.model)),
            ("input", .array(texts.map { .string($0) })),
            ("encoding_format", "float"),
        ])
        if let dimension = settings.dimension { body["dimensions"] = .number(Double(dimension)) }
        let response = try client.send(.json(endpoint, body: .object(body),
                                             headers: [("Authorization", "Bearer " + (settings.apiKey ?? ""))]))
        let json: JSON
        do { json = try response.json() } catch { throw malformed("not JSON") }
        guard let data = json["data"]?.arrayValue else {
            if let message = json["error"]?["message"]?.stringValue { throw malformed("error: \(message)") }
            throw malformed("no \"data\" array")
        }
        var vectors = [[Float]?](repeating: nil, count: data.count)
        for (position, item) in data.enumerated() {
            let index = item["index"]?.intValue ?? position
            guard index >= 0, index < data.count, vectors[index] == nil else {
                throw malformed("data[\(position)].index \(index) is out of range or repeated")
            }
            vectors[index] = try floats(item["embedding"], what: "data[\(position)].embedding")
        }
        return vectors.map { $0! }
    }
}

/// Ollama: POST {OLLAMA_HOST}/api/embed.
public final class OllamaEmbeddingProvider: HTTPEmbeddingProvider {
    public static let defaultModel = "nomic-embed-text"
    public static let defaultHost = ProviderEndpoint.defaultBase(.ollama)
    public static let defaultBatchSize = 32

    public init(settings: HTTPEmbeddingSettings) {
        super.init(settings: settings, modelID: "ollama/" + settings.model, label: "Ollama", keyVariable: nil)
    }

    /// OLLAMA_HOST as Ollama reads it (ProviderEndpoint, shared with ib-ask); nil: the default.
    public static func baseURL(host: String?) throws(IBError) -> String {
        guard let host else { return defaultHost }
        return try ProviderEndpoint.parse(host, api: .ollama, source: "OLLAMA_HOST")
    }

    public override var endpoint: String { ProviderEndpoint.url(settings.baseURL, "api/embed") }

    override var unreachableHint: String { " (is `ollama serve` running? OLLAMA_HOST sets where)" }

    override func notFoundMessage(detail: String) -> String {
        "Ollama has no model \(settings.model)\(detail) (run `ollama pull \(settings.model)`)"
    }

    override func request(_ texts: [String], client: HTTPClient) throws -> [[Float]] {
        let body: JSON = .object(JSONObject([
            ("model", .string(settings.model)),
            ("input", .array(texts.map { .string($0) })),
        ]))
        let response = try client.send(.json(endpoint, body: body))
        let json: JSON
        do { json = try response.json() } catch { throw malformed("not JSON") }
        guard let embeddings = json["embeddings"]?.arrayValue else {
            if let message = json["error"]?.stringValue { throw malformed("error: \(message)") }
            throw malformed("no \"embeddings\" array")
        }
        var out: [[Float]] = []
        out.reserveCapacity(embeddings.count)
        for (i, item) in embeddings.enumerated() { out.append(try floats(item, what: "embeddings[\(i)]")) }
        return out
    }
}
