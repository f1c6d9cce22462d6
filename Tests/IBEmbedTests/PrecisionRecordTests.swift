// The "precision" ib-embed writes into chunk records: the native model's when
// it is not fp32 (also when the vectors come from the cache), none for fp32 and
// none for an HTTP provider (its vectors are the provider's own).
import XCTest
import IBCore
import IBModel
import IBTestSupport
@testable import IBEmbed

extension CacheTests {
    func nativeProvider(_ precision: Precision) throws -> NativeProvider {
        let dir = Config.modelDirectory()
        guard FileSystem.isDirectory(dir) else { throw XCTSkip("no model at \(dir): run scripts/fetch-model") }
        return try NativeProvider(modelDirectory: dir, precision: precision)
    }

    func testNativeInt8RecordsSayInt8EvenFromTheCache() throws {
        let texts = ["The game is afoot.", "Elementary, my dear Watson."]
        let provider = CachedProvider(base: try nativeProvider(.int8), cache: try EmbeddingCache(path: path))
        for run in 1...2 {
            let out = try runStream(chunks(book: "b8", texts: texts), provider: provider)
            XCTAssertEqual(out.map(\.precision), ["int8", "int8"], "run \(run)")
            XCTAssertEqual(out.map { $0.embedding?.count }, [384, 384])
        }
        XCTAssertEqual(provider.hits, 2, "the second run came from the cache")
    }

    func testNativeFP32RecordsCarryNoPrecision() throws {
        let out = try runStream(chunks(book: "b32", texts: ["A study in scarlet."]), provider: try nativeProvider(.fp32))
        XCTAssertEqual(out.count, 1)
        XCTAssertNil(out[0].precision)
        XCTAssertEqual(out[0].effectivePrecision, "fp32")
    }

    func testBF16IsRecordedOnlyWhereItRuns() throws {
        let provider = try nativeProvider(.bf16)
        XCTAssertEqual(provider.precision, SentenceEncoder.bf16Available ? "bf16" : nil)
    }

    func testHTTPProviderRecordsCarryNoPrecision() throws {
        let server = try TestHTTPServer { openAIAnswer($0, dim: 12) }
        defer { server.stop() }
        let out = try runStream(chunks(book: "bh", texts: ["The Sign of Four."]), provider: openAI(server, batch: 2))
        XCTAssertEqual(out.map { $0.embedding?.count }, [12])
        XCTAssertNil(out[0].precision)
    }
}
