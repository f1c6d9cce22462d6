// The int8 path (--precision int8): the asymmetric activation kernel against a
// scalar reference on every kernel path this CPU runs, the plan's parsing, and
// the standard plan's cosine to sentence-transformers' fp32 vectors.
import CKernels
import IBCore
@testable import IBModel
import XCTest

final class Int8Tests: XCTestCase {
    /// The kernel paths this CPU can run, by name; the skipped ones are printed.
    static func kernelPaths() -> [(name: String, avx512: Bool)] {
        defer { ib_kernels_select(1) }
        var paths: [(String, Bool)] = []
        ib_kernels_select(1)
        if ib_i8_uses_vnni() != 0 { paths.append(("avx512-vnni", true)) } else { print("int8: AVX-512 VNNI path skipped (this CPU lacks it)") }
        ib_kernels_select(0)
        paths.append(("avx2", false))
        return paths
    }

    /// ib_gemm_i8 with IB_GEMM_I8_ASYMMETRIC against a scalar reference of the same quantisation:
    /// each row of A on 0..255 over [min(0, min), max(0, max)] with an integer zero point, W per row.
    func testAsymmetricGemmIsTheQuantisedProductOnEveryPath() {
        var state: UInt64 = 11
        func random() -> Float { state = state &* 6364136223846793005 &+ 1442695040888963407; return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000 }
        defer { ib_kernels_select(1) }
        // GELU-like rows (mostly >= -0.17) and an all-zero row; odd shapes cover the padding.
        for (m, n, k) in [(1, 37, 390), (9, 16, 8), (19, 70, 384)] {
            var a = (0..<(m * k)).map { _ in max(-0.17, random() * 3) }
            for i in 0..<k { a[i] = 0 }
            let w = (0..<(n * k)).map { _ in random() }, bias = (0..<n).map { _ in random() }
            var packed = [Int8](repeating: 0, count: ib_i8_packed_bytes(Int32(n), Int32(k)))
            var scales = [Float](repeating: 0, count: n), sums = [Int32](repeating: 0, count: n)
            ib_i8_pack(w, Int32(n), Int32(k), &packed, &scales, &sums)
            var expected = [Float](repeating: 0, count: m * n)
            for i in 0..<m {
                let row = a[(i * k)..<((i + 1) * k)]
                let lo = min(0, row.min()!), hi = max(0, row.max()!)
                let step = hi > lo ? (hi - lo) / 255 : 0
                let zero = hi > lo ? (-lo * (255 / (hi - lo))).rounded(.toNearestOrEven) : 0
                let codes = row.map { hi > lo ? min(255, max(0, ($0 * (255 / (hi - lo))).rounded(.toNearestOrEven) + zero)) : 0 }
                for j in 0..<n {
                    let weights = w[(j * k)..<((j + 1) * k)]
                    let top = weights.map(abs).max()!
                    let wc = weights.map { Int32(($0 / top * 127).rounded(.toNearestOrEven)) }
                    let dot = zip(codes, wc).reduce(Int32(0)) { $0 + (Int32($1.0) - Int32(zero)) * $1.1 }
                    expected[i * n + j] = step * scales[j] * Float(dot) + bias[j]
                    let exact = (0..<k).reduce(bias[j]) { $0 + a[i * k + $1] * w[j * k + $1] }
                    XCTAssertEqual(expected[i * n + j], exact, accuracy: 0.05 * Float(k).squareRoot(), "reference far from fp32")
                }
            }
            var results: [[Float]] = []
            for path in Self.kernelPaths() {
                ib_kernels_select(path.avx512 ? 1 : 0)
                var c = [Float](repeating: 0, count: m * n)
                ib_gemm_i8(Int32(m), Int32(n), Int32(k), a, Int32(k), packed, scales, sums, bias, &c, Int32(n), Int32(IB_GEMM_I8_ASYMMETRIC))
                for i in 0..<(m * n) {
                    XCTAssertEqual(c[i], expected[i], accuracy: 1e-4 * max(1, abs(expected[i])), "m \(m) n \(n) k \(k) \(path.name)")
                }
                results.append(c)
            }
            XCTAssertTrue(results.allSatisfy { $0 == results[0] }, "every path sums exactly the same integers")
        }
    }

    func testPlanParsing() throws {
        let plan = try Int8Plan.parse("asym=all,keep=ffn-down,keep=value@2-5,rows=query:8", layers: 6)
        XCTAssertEqual(plan.asymmetric, Set(LinearSlot.allCases))
        XCTAssertTrue(plan.keeps(0, .output) && plan.keeps(5, .output) && plan.keeps(5, .value))
        XCTAssertFalse(plan.keeps(1, .value))
        XCTAssertEqual(try Int8Plan.parse(Int8Plan.standard.description, layers: 6), Int8Plan.standard)
        XCTAssertEqual(plan.rowLimits, [.query: 8])
        XCTAssertEqual(try Int8Plan.parse(plan.description, layers: 6), plan, "the description parses back")
        let only = try Int8Plan.parse("only=key@3", layers: 6)
        XCTAssertEqual(only.kept.count, 35)
        XCTAssertEqual(try Int8Plan.parse("int8", layers: 6), Int8Plan())
        for bad in ["keep=ffn", "keep=value@4-9", "rows=query:x", "asym", "kept=fp16", "keep=value@5-2"] {
            XCTAssertThrowsError(try Int8Plan.parse(bad, layers: 6), bad) { error in
                XCTAssertTrue("\(error)".contains("IB_INT8_PLAN"), "\(error)")
            }
        }
        XCTAssertThrowsError(try Precision.chosen(flag: "int4"))
        XCTAssertEqual(try Precision.chosen(flag: "int8"), .int8)
    }

    /// The standard plan against sentence-transformers' fp32 vectors of the 80 reference
    /// texts, on every kernel path; a text's vector hardly depends on its batch.
    func testInt8StaysClose() throws {
        let reference = try ParityTests.loadReference()
        let model = try SentenceEncoder(directory: Config.modelDirectory(), precision: .int8)
        defer { SentenceEncoder.selectKernels(avx512: true) }
        for path in Self.kernelPaths() {
            SentenceEncoder.selectKernels(avx512: path.avx512)
            model.batchSize = 32
            let got = model.embed(tokenIDs: reference.map(\.ids))
            var minCos = 1.0, maxCos = 0.0
            for (g, w) in zip(got, reference.map(\.embedding)) {
                var dot = 0.0, gg = 0.0, ww = 0.0
                for (a, b) in zip(g, w) { dot += Double(a) * Double(b); gg += Double(a * a); ww += Double(b * b) }
                let cosine = dot / (gg * ww).squareRoot()
                minCos = min(minCos, cosine); maxCos = max(maxCos, cosine)
            }
            print("int8 \(path.name) (\(model.int8Plan)): min cosine \(minCos)")
            XCTAssertGreaterThanOrEqual(minCos, Self.minimumCosine, path.name)
            XCTAssertLessThan(minCos, 0.9999999, "int8 really ran (vectors differ from fp32)")
            // Batches change the fp32 parts' summation order in the last bit, which can move an
            // activation's int8 code by one: a text's vector agrees across batches to about 1e-4.
            model.batchSize = 1
            let one = model.embed(tokenIDs: [reference[7].ids])[0]
            let agreement = zip(one, got[7]).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
            XCTAssertGreaterThan(agreement, 0.99999, "batch of one, \(path.name)")
        }
    }

    /// The bar the standard plan meets on the reference texts (README "int8 embeddings").
    static let minimumCosine = 0.999
}
