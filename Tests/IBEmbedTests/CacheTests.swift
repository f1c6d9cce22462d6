// The content cache: a real SQLite file, real HTTP providers over 127.0.0.1,
// and the request log as the proof that cached text is never sent again.
import XCTest
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import IBCore
import IBTestSupport
@testable import IBEmbed

final class CacheTests: XCTestCase {
    var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/ib-embed-cache-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        directory = String(cString: try XCTUnwrap(made))
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    var path: String { directory + "/cache/embeddings.db" }

    func testSecondRunMakesNoRequests() throws {
        let server = try TestHTTPServer { openAIAnswer($0, dim: 12) }
        defer { server.stop() }
        let texts = ["The game is afoot.", "Elementary.", "A study in scarlet.", "Elementary."]

        let first = CachedProvider(base: openAI(server, batch: 2), cache: try EmbeddingCache(path: path))
        let v1 = try first.embed(texts)
        XCTAssertEqual(v1, texts.map { fakeVector($0, dim: 12) })
        // A repeated text is sent once.
        XCTAssertEqual(server.requests.flatMap { $0.json?["input"]?.arrayValue?.compactMap(\.stringValue) ?? [] },
                       ["The game is afoot.", "Elementary.", "A study in scarlet."])
        let before = server.requests.count
        XCTAssertEqual(before, 2)

        // A new process: new provider, new connection to the same file.
        let second = CachedProvider(base: openAI(server, batch: 2), cache: try EmbeddingCache(path: path))
        XCTAssertEqual(second.dimension, 0, "the dimension is not known before an answer")
        let v2 = try second.embed(texts)
        XCTAssertEqual(v2, v1)
        XCTAssertEqual(server.requests.count, before, "a cache hit makes no request")
        XCTAssertEqual(second.hits, 4)
        XCTAssertEqual(second.misses, 0)
        XCTAssertEqual(second.dimension, 12, "the dimension is learned from the cache")
    }

    func testKeyedOnContentNotIDs() throws {
        let server = try TestHTTPServer { openAIAnswer($0, dim: 6) }
        defer { server.stop() }
        let cache = try EmbeddingCache(path: path)
        // Book A, then the same passages in book B under other ids and in another order, plus one new passage.
        let bookA = chunks(book: "aaaaaaaaaaaaaaaa", texts: ["alpha passage", "beta passage"])
        let bookB = chunks(book: "bbbbbbbbbbbbbbbb", texts: ["beta passage", "gamma passage", "alpha passage"])
        let outA = try runStream(bookA, provider: CachedProvider(base: openAI(server), cache: cache))
        XCTAssertEqual(server.requests.count, 1)
        let outB = try runStream(bookB, provider: CachedProvider(base: openAI(server), cache: cache))
        XCTAssertEqual(server.requests.count, 2)
        XCTAssertEqual(server.requests[1].json?["input"]?.arrayValue?.compactMap(\.stringValue), ["gamma passage"],
                       "only the new text is sent")
        // Same text, same vector, whichever book it came from.
        let a = Dictionary(uniqueKeysWithValues: outA.map { ($0.text, $0.embedding!) })
        for chunk in outB {
            XCTAssertEqual(chunk.model, "openai/text-embedding-3-small")
            XCTAssertEqual(chunk.embedding, fakeVector(chunk.text, dim: 6))
            if let old = a[chunk.text] { XCTAssertEqual(chunk.embedding, old) }
        }
        // A changed text is a miss; the model is part of the key.
        XCTAssertEqual(cache.count(model: "openai/text-embedding-3-small"), 3)
        let other = try TestHTTPServer { ollamaAnswer($0, dim: 6) }
        defer { other.stop() }
        _ = try CachedProvider(base: ollama(other), cache: cache).embed(["alpha passage"])
        XCTAssertEqual(other.requests.count, 1, "another model does not share vectors")
    }

    func testFailedBatchIsNotCachedButEarlierBatchesAre() throws {
        let counter = Counter()
        let server = try TestHTTPServer { counter.next() == 0 ? openAIAnswer($0, dim: 4) : openAIAnswer($0, dim: 5) }
        defer { server.stop() }
        let cache = try EmbeddingCache(path: path)
        let provider = CachedProvider(base: openAI(server, batch: 2), cache: cache)
        let error = ibError { _ = try provider.embed(["a", "b", "c", "d"]) }
        XCTAssertEqual(error?.code, .provider)
        XCTAssertTrue(error?.message.contains("5 dimensions, expected 4") == true, error?.message ?? "")
        XCTAssertEqual(cache.count(), 2, "the first batch is kept, the bad one is not")
    }

    func testWrongDimensionFromTheCacheIsReembedded() throws {
        let server = try TestHTTPServer { openAIAnswer($0, dim: 4) }
        defer { server.stop() }
        let cache = try EmbeddingCache(path: path)
        cache.store(model: "openai/text-embedding-3-small", entries: [(EmbeddingCache.digest("x"), [1, 2, 3])])
        let provider = CachedProvider(base: openAI(server, dim: 4), cache: cache)
        XCTAssertEqual(try provider.embed(["x"]), [fakeVector("x", dim: 4)])
        XCTAssertEqual(server.requests.count, 1)
    }

    func testStaleCacheOfAnotherLengthIsReembeddedBeforeTheFirstAnswer() throws {
        let server = try TestHTTPServer { ollamaAnswer($0, dim: 5) }
        defer { server.stop() }
        let cache = try EmbeddingCache(path: path)
        cache.store(model: "ollama/nomic-embed-text", entries: [(EmbeddingCache.digest("x"), [1, 2, 3]), (EmbeddingCache.digest("y"), [4, 5, 6])])
        let provider = CachedProvider(base: ollama(server), cache: cache)
        XCTAssertEqual(try provider.embed(["x", "y", "z"]), ["x", "y", "z"].map { fakeVector($0, dim: 5) })
        XCTAssertEqual(provider.dimension, 5)
        XCTAssertEqual(cache.lookup(model: "ollama/nomic-embed-text", digests: [EmbeddingCache.digest("x")])[0]?.count, 5, "replaced")
    }

    func testConcurrentRequestsKeepOrderAndAreCached() throws {
        let gauge = InFlight()
        let server = try TestHTTPServer { request in
            gauge.enter()
            Thread.sleep(forTimeInterval: 0.5)
            gauge.leave()
            return openAIAnswer(request, dim: 4)
        }
        defer { server.stop() }
        var settings = openAI(server, batch: 2).settings
        settings.concurrency = 3
        let cache = try EmbeddingCache(path: path)
        let provider = CachedProvider(base: OpenAIEmbeddingProvider(settings: settings), cache: cache)
        let texts = (0..<6).map { "text \($0)" }
        XCTAssertEqual(try provider.embed(texts), texts.map { fakeVector($0, dim: 4) })
        XCTAssertEqual(server.requests.count, 3)
        XCTAssertGreaterThanOrEqual(gauge.maximum, 2, "requests overlapped")
        XCTAssertEqual(cache.count(), 6)
    }

    func testVectorsRoundTripExactly() throws {
        let cache = try EmbeddingCache(path: path)
        let vector: [Float] = [0, -0.0, 1e-38, .pi, -3.4e38, 0.1]
        cache.store(model: "m", entries: [(EmbeddingCache.digest("t"), vector)])
        let back = try EmbeddingCache(path: path).lookup(model: "m", digests: [EmbeddingCache.digest("t"), EmbeddingCache.digest("u")])
        XCTAssertEqual(back[0]?.map(\.bitPattern), vector.map(\.bitPattern))
        XCTAssertNil(back[1])
        XCTAssertEqual(EmbeddingCache.digest("abc").map { String($0, radix: 16) }.joined().prefix(8), "ba7816bf")
    }

    func testConcurrentWritersShareTheFile() throws {
        _ = try EmbeddingCache(path: path)
        let path = self.path
        let group = DispatchGroup()
        let failures = Counter()
        for worker in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                guard let cache = try? EmbeddingCache(path: path) else { _ = failures.next(); return }
                for round in 0..<20 {
                    let entries = (0..<25).map { (EmbeddingCache.digest("w\(worker) r\(round) t\($0)"), [Float(worker), Float(round), Float($0)]) }
                    cache.store(model: "m", entries: entries)
                    _ = cache.lookup(model: "m", digests: entries.map(\.0))
                }
                if cache.disabled { _ = failures.next() }
            }
        }
        group.wait()
        XCTAssertEqual(failures.next(), 0, "no writer gave up")
        XCTAssertEqual(try EmbeddingCache(path: path).count(model: "m"), 4 * 20 * 25)
    }

    func testUnusableCacheIsAWarningNotAFailure() throws {
        XCTAssertNotNil(ibError { _ = try EmbeddingCache(path: "/proc/ib-cannot-write/embeddings.db") })
        let server = try TestHTTPServer { ollamaAnswer($0, dim: 3) }
        defer { server.stop() }
        let args = try Arguments(["--provider", "ollama", "--cache", "/proc/ib-cannot-write/embeddings.db"], options: ProviderOptions.arguments)
        let options = try ProviderOptions(args, environment: { $0 == "OLLAMA_HOST" ? server.baseURL : nil })
        let provider = try options.makeProvider { throw IBError("no native") }
        XCTAssertTrue(provider is OllamaEmbeddingProvider)
        XCTAssertEqual(try provider.embed(["a"]).count, 1)
    }

    func testNoCacheFlag() throws {
        let args = try Arguments(["--provider", "ollama", "--no-cache"], options: ProviderOptions.arguments)
        let provider = try ProviderOptions(args, environment: { _ in nil }).makeProvider { throw IBError("no native") }
        XCTAssertFalse(provider is CachedProvider)
        let cached = try ProviderOptions(try Arguments(["--provider", "ollama", "--cache", path], options: ProviderOptions.arguments),
                                         environment: { _ in nil }).makeProvider { throw IBError("no native") }
        XCTAssertEqual((cached as? CachedProvider)?.cache.path, path)
    }

    // MARK: helpers

    func chunks(book: String, texts: [String]) -> [ChunkRecord] {
        texts.enumerated().map { i, text in
            ChunkRecord(bookID: book, index: i, startPage: 1, endPage: 1, startOffset: 0, endOffset: text.unicodeScalars.count,
                        tokenCount: 3, text: text)
        }
    }

    /// Runs EmbedStream over chunk records written to a file and reads its output back.
    func runStream(_ input: [ChunkRecord], provider: any EmbeddingProvider) throws -> [ChunkRecord] {
        let inPath = directory + "/in-\(input.first?.bookID ?? "").jsonl"
        let outPath = inPath + ".out"
        let inFD = open(inPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let writer = OutputStream(fd: inFD)
        for chunk in input { writer.writeRecord(.chunk(chunk)) }
        writer.flush()
        close(inFD)
        let outFD = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let out = OutputStream(fd: outFD)
        var options = EmbedOptions()
        options.progress = false
        try EmbedStream(provider: provider, options: options, out: out).run(paths: [inPath])
        out.flush()
        close(outFD)
        var records: [ChunkRecord] = []
        try RecordReader(path: outPath).forEach { record, _ in
            if case .chunk(let chunk) = record { records.append(chunk) }
        }
        return records
    }
}

/// The most requests the server was handling at once.
final class InFlight: @unchecked Sendable {
    private let lock = NSLock()
    private var now = 0
    private(set) var maximum = 0
    func enter() { lock.lock(); now += 1; maximum = max(maximum, now); lock.unlock() }
    func leave() { lock.lock(); now -= 1; lock.unlock() }
}
