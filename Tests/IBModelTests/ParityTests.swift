// Parity of the native encoder with sentence-transformers: the reference
// vectors in shared/fixtures/minilm/embeddings.jsonl were made one text at a
// time by sentence-transformers in fp32. Every vector must reach cosine
// >= 0.99999 and max |difference| <= 1e-5, in every batch size.
import IBCore
import IBModel
import XCTest

final class ParityTests: XCTestCase {
    static let fixtures: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/shared/fixtures/minilm"
    }()

    struct Reference { let text: String; let ids: [Int32]; let embedding: [Float] }

    static func loadReference() throws -> [Reference] {
        func lines(_ name: String) throws -> [JSON] {
            let text = try FileSystem.readText(fixtures + "/" + name)
            return try text.split(separator: "\n").map { try JSON.parse(String($0)) }
        }
        let tokens = try lines("tokens.jsonl"), embeddings = try lines("embeddings.jsonl")
        XCTAssertEqual(tokens.count, embeddings.count)
        return zip(tokens, embeddings).map { t, e in
            XCTAssertEqual(t["text"], e["text"])
            return Reference(text: t["text"]!.stringValue!,
                             ids: t["input_ids"]!.arrayValue!.map { Int32($0.intValue!) },
                             embedding: e["embedding"]!.arrayValue!.map { Float($0.doubleValue!) })
        }
    }

    static func model() throws -> SentenceEncoder {
        try SentenceEncoder(directory: Config.modelDirectory())
    }

    /// (min cosine, max abs difference) over all vectors.
    func compare(_ got: [[Float]], _ want: [[Float]], file: StaticString = #filePath, line: UInt = #line) -> (Double, Double) {
        XCTAssertEqual(got.count, want.count, file: file, line: line)
        var minCos = 1.0, maxDiff = 0.0
        for (g, w) in zip(got, want) {
            XCTAssertEqual(g.count, w.count, file: file, line: line)
            var dot = 0.0, gg = 0.0, ww = 0.0
            for (a, b) in zip(g, w) {
                dot += Double(a) * Double(b); gg += Double(a) * Double(a); ww += Double(b) * Double(b)
                maxDiff = max(maxDiff, abs(Double(a) - Double(b)))
            }
            minCos = min(minCos, dot / (gg.squareRoot() * ww.squareRoot()))
        }
        return (minCos, maxDiff)
    }

    func assertParity(_ got: [[Float]], _ want: [[Float]], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let (minCos, maxDiff) = compare(got, want, file: file, line: line)
        print("parity \(label): min cosine \(minCos), max abs diff \(maxDiff)")
        XCTAssertGreaterThanOrEqual(minCos, 0.99999, label, file: file, line: line)
        XCTAssertLessThanOrEqual(maxDiff, 1e-5, label, file: file, line: line)
    }

    func testParityFromTokenIDsInEveryBatchSize() throws {
        let reference = try Self.loadReference()
        let model = try Self.model()
        for batch in [1, 7, 32, 80] {
            for threads in [1, 2] {
                model.batchSize = batch
                model.threads = threads
                let got = model.embed(tokenIDs: reference.map(\.ids))
                assertParity(got, reference.map(\.embedding), "batch \(batch), \(threads) threads, \(SentenceEncoder.kernelISA)")
            }
        }
    }

    func testParityFromText() throws {
        let reference = try Self.loadReference()
        let model = try Self.model()
        for (r, (ids, _)) in zip(reference, reference.map { model.tokenize($0.text) }) {
            XCTAssertEqual(ids, r.ids, "token ids of \(r.text.prefix(40))")
        }
        let before = model.truncatedCount
        let got = model.embed(reference.map(\.text))
        assertParity(got, reference.map(\.embedding), "from text")
        let long = reference.filter { model.tokenizer.encode($0.text).count > model.maxSequenceLength }.count
        XCTAssertGreaterThan(long, 0, "the fixture has texts over max_seq_length")
        XCTAssertEqual(model.truncatedCount - before, long)
    }

    func testBatchCompositionDoesNotChangeVectors() throws {
        let reference = try Self.loadReference()
        let model = try Self.model()
        model.batchSize = 80
        let all = model.embed(tokenIDs: reference.map(\.ids))
        model.batchSize = 1
        let one = model.embed(tokenIDs: [reference[3].ids])
        XCTAssertEqual(one[0], all[3])
    }

    func testAVX2KernelsToo() throws {
        let reference = try Self.loadReference()
        let model = try Self.model()
        defer { SentenceEncoder.selectKernels(avx512: true) }
        XCTAssertEqual(SentenceEncoder.selectKernels(avx512: false), "avx2")
        for batch in [1, 32] {
            model.batchSize = batch
            assertParity(model.embed(tokenIDs: reference.map(\.ids)), reference.map(\.embedding), "batch \(batch), avx2")
        }
    }

    func testModelFacts() throws {
        let model = try Self.model()
        XCTAssertEqual(model.modelID, "all-MiniLM-L6-v2")
        XCTAssertEqual(model.dimension, 384)
        XCTAssertEqual(model.maxSequenceLength, 256)
        XCTAssertEqual(model.embed([]).count, 0)
        let v = model.embed(["hello world"])[0]
        XCTAssertEqual(Double(v.reduce(0) { $0 + $1 * $1 }).squareRoot(), 1, accuracy: 1e-5)
    }
}

final class BF16Tests: XCTestCase {
    /// The opt-in bf16 path stays within cosine 0.999 of sentence-transformers.
    func testBF16StaysClose() throws {
        try XCTSkipUnless(SentenceEncoder.bf16Available, "this CPU has no AVX-512 BF16")
        let reference = try ParityTests.loadReference()
        let model = try SentenceEncoder(directory: Config.modelDirectory(), precision: .bf16)
        let got = model.embed(tokenIDs: reference.map(\.ids))
        var minCos = 1.0
        for (g, w) in zip(got, reference.map(\.embedding)) {
            var dot = 0.0, gg = 0.0, ww = 0.0
            for (a, b) in zip(g, w) { dot += Double(a) * Double(b); gg += Double(a * a); ww += Double(b * b) }
            minCos = min(minCos, dot / (gg * ww).squareRoot())
        }
        print("bf16: min cosine \(minCos)")
        XCTAssertGreaterThanOrEqual(minCos, 0.999)
        XCTAssertLessThan(minCos, 0.9999999, "bf16 really ran (vectors differ from fp32)")
    }
}
