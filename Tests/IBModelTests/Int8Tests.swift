// The int8 path (--precision int8): the asymmetric activation kernel against a
// scalar reference on every kernel path this CPU runs, the plan's parsing, and
// the standard plan's cosine to sentence-transformers' fp32 vectors.
import CKernels
import IBCore
@testable import IBModel
import XCTest

final class Int8Tests: XCTestCase {
    /// The int8 kernel paths this CPU can run: AMX, AVX-512 VNNI, AVX-VNNI (vpdpbusd on ymm) and
    /// AVX2 (vpmaddwd), each with the fp32 kernels it goes with; the skipped ones are printed.
    typealias Path = (name: String, avx512: Bool, avxVNNI: Bool, amx: Bool)
    static func kernelPaths() -> [Path] {
        defer { select(best) }
        let candidates: [Path] = [("amx", true, true, true), ("avx512-vnni", true, true, false),
                                  ("avx-vnni", false, true, false), ("avx2", false, false, false)]
        return candidates.filter { path in
            select(path)
            let runs = String(cString: ib_i8_path_name()) == path.name
            if !runs { print("int8: \(path.name) path skipped (this CPU lacks it)") }
            return runs
        }
    }

    static let best: Path = ("", true, true, true)

    static func select(_ path: Path) {
        ib_kernels_select(path.avx512 ? 1 : 0)
        ib_i8_allow_avx_vnni(path.avxVNNI ? 1 : 0)
        ib_allow_amx(path.amx ? 1 : 0)
    }

    func testTheAVX2PathIsAlwaysThere() {
        XCTAssertEqual(Self.kernelPaths().last?.name, "avx2", "every x86-64-v3 CPU runs the vpmaddwd tiles")
    }

    /// ib_gemm_i8 with IB_GEMM_I8_ASYMMETRIC against a scalar reference of the same quantisation:
    /// each row of A on 0..255 over [min(0, min), max(0, max)] with an integer zero point, W per row.
    func testAsymmetricGemmIsTheQuantisedProductOnEveryPath() {
        var state: UInt64 = 11
        func random() -> Float { state = state &* 6364136223846793005 &+ 1442695040888963407; return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000 }
        defer { Self.select(Self.best) }
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
                Self.select(path)
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

    /// ib_gemm_i8_mixed against a scalar reference: a row over the row limit is the fp32 product;
    /// in a row over the value limit the values above it are multiplied by 16-bit weight codes and
    /// the rest quantised over its own range; the other rows as ib_gemm_i8. GELU and accumulation
    /// apply to every kind of row; every path gives the same floats.
    func testMixedRowsAreSplitAsTheLimitsSay() {
        var state: UInt64 = 5
        func random() -> Float { state = state &* 6364136223846793005 &+ 1442695040888963407; return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000 }
        let rowLimit: Float = 12, valueLimit: Float = 3
        defer { Self.select(Self.best) }
        for (m, n, k) in [(7, 40, 384), (12, 16, 256)] {
            var a = (0..<(m * k)).map { _ in random() }
            // Row 0: one massive value (over 12 x RMS): fp32. Row 1: three values over 3 x RMS but
            // its max under 12 x RMS: set apart. Row 2: 20 such values: too many, fp32. Row 3: none.
            a[0 * k + 5] = 60
            for (j, v) in [(3, 4.5), (50, -4.0), (k - 1, 5.0)] { a[1 * k + j] = Float(v) }
            for j in 0..<20 { a[2 * k + j * 3] = j % 2 == 0 ? 6 : -6 }
            for j in 0..<k { a[3 * k + j] = 0.3 * random() }
            let w = (0..<(n * k)).map { _ in random() }, bias = (0..<n).map { _ in random() }
            var packed = [Int8](repeating: 0, count: ib_i8_packed_bytes(Int32(n), Int32(k)))
            var scales = [Float](repeating: 0, count: n), sums = [Int32](repeating: 0, count: n)
            ib_i8_pack(w, Int32(n), Int32(k), &packed, &scales, &sums)
            var columns = [Int16](repeating: 0, count: n * k), columnScales = [Float](repeating: 0, count: n)
            ib_i16_columns(w, Int32(n), Int32(k), &columns, &columnScales)

            var kinds: [String] = []
            var expected = [Float](repeating: 0, count: m * n)
            let previous = (0..<(m * n)).map { _ in random() }
            for i in 0..<m {
                let row = Array(a[(i * k)..<((i + 1) * k)])
                let peak = row.map(abs).max()!, meanSquare = row.reduce(0) { $0 + $1 * $1 } / Float(k)
                let bound = (valueLimit * valueLimit * meanSquare).squareRoot()
                let outliers = row.indices.filter { abs(row[$0]) > bound }
                let fp32 = peak * peak > rowLimit * rowLimit * meanSquare || outliers.count > 16
                kinds.append(fp32 ? "fp32" : outliers.isEmpty ? "int8" : "split")
                let rest = row.enumerated().map { outliers.contains($0.offset) ? 0 : $0.element }
                let lo = min(0, rest.min()!), hi = max(0, rest.max()!)
                let step = (hi - lo) / 255, zero = (-lo * (255 / (hi - lo))).rounded(.toNearestOrEven)
                let codes = rest.map { min(255, max(0, ($0 * (255 / (hi - lo))).rounded(.toNearestOrEven) + zero)) }
                for j in 0..<n {
                    let weights = w[(j * k)..<((j + 1) * k)]
                    let exact = (0..<k).reduce(bias[j]) { $0 + row[$1] * w[j * k + $1] }
                    var v = exact
                    if !fp32 {
                        let top = weights.map(abs).max()!
                        let wc = weights.map { Int32(($0 / top * 127).rounded(.toNearestOrEven)) }
                        let dot = zip(codes, wc).reduce(Int32(0)) { $0 + (Int32($1.0) - Int32(zero)) * $1.1 }
                        v = step * scales[j] * Float(dot) + bias[j]
                        let wide = top / 32767
                        for o in outliers { v += row[o] * wide * Float(Int32((w[j * k + o] / wide).rounded(.toNearestOrEven))) }
                        XCTAssertEqual(v, exact, accuracy: 0.02 * Float(k).squareRoot(), "reference far from fp32")
                    }
                    let gelu = v * 0.5 * (1 + Float(erf(Double(v) / 2.0.squareRoot())))
                    expected[i * n + j] = previous[i * n + j] + gelu
                }
            }
            XCTAssertEqual(Array(kinds.prefix(4)), ["fp32", "split", "fp32", "int8"], "m \(m) k \(k)")
            var results: [[Float]] = []
            for path in Self.kernelPaths() {
                Self.select(path)
                // GELU then accumulate: run GELU into zeros, then add to the previous values.
                var c = [Float](repeating: 0, count: m * n)
                ib_gemm_i8_mixed(Int32(m), Int32(n), Int32(k), a, Int32(k), packed, scales, sums, columns, columnScales, Int32(n),
                                 w, rowLimit, valueLimit, bias, &c, Int32(n), Int32(IB_GEMM_I8_ASYMMETRIC | IB_GEMM_GELU))
                var sum = previous
                ib_gemm_i8_mixed(Int32(m), Int32(n), Int32(k), a, Int32(k), packed, scales, sums, columns, columnScales, Int32(n),
                                 w, rowLimit, valueLimit, bias, &sum, Int32(n), Int32(IB_GEMM_I8_ASYMMETRIC | IB_GEMM_ACCUMULATE))
                for i in 0..<(m * n) {
                    XCTAssertEqual(previous[i] + c[i], expected[i], accuracy: 2e-3 * max(1, abs(expected[i])), "m \(m) k \(k) \(i) \(path.name)")
                    // Accumulating adds the same product that GELU was applied to.
                    let plain = sum[i] - previous[i]
                    XCTAssertEqual(c[i], plain * 0.5 * (1 + Float(erf(Double(plain) / 2.0.squareRoot()))), accuracy: 1e-3 * max(1, abs(c[i])))
                }
                // The int8 rows' integer sums and epilogue are the same on every path (the fp32 rows
                // and GELU follow each path's fp32 kernels, whose summation order differs).
                results.append((0..<m).filter { kinds[$0] != "fp32" }.flatMap { sum[($0 * n)..<(($0 + 1) * n)] })
            }
            XCTAssertTrue(results.allSatisfy { $0 == results[0] }, "every path gives the same int8 rows")
        }
    }

    /// ib_gemm_a16 (weight codes of a few bits, 16-bit activation codes: the avx2 plan's kernel,
    /// which runs on every x86-64-v3 CPU) against a scalar reference of the same quantisation,
    /// with plain, accumulating and GELU epilogues; the largest codes on both sides must not
    /// overflow the int32 sums.
    func testPairCodeGemmIsTheQuantisedProduct() {
        var state: UInt64 = 17
        func random() -> Float { state = state &* 6364136223846793005 &+ 1442695040888963407; return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000 }
        for (m, n, k, bits) in [(1, 37, 390, 11), (9, 16, 8, 8), (19, 70, 384, 11), (13, 20, 1537, 12), (50, 33, 7, 10)] {
            let wmax = Int32((1 << (bits - 1)) - 1)
            var a = (0..<(m * k)).map { _ in random() * 3 }
            for i in 0..<k { a[i] = 0 }                                   // an all-zero row
            if m > 2 { a[2 * k + k / 2] = 90 }                           // a massive activation
            let w = (0..<(n * k)).map { _ in random() }, bias = (0..<n).map { _ in random() }
            var packed = [Int16](repeating: 0, count: ib_w16_pairs_bytes(Int32(n), Int32(k)) / 2)
            var scales = [Float](repeating: 0, count: n)
            ib_w16_pack_pairs(w, Int32(n), Int32(k), wmax, &packed, &scales)
            let limit = Int(ib_a16_limit(Int32(k), wmax))
            XCTAssertEqual(limit, min(32767, Int(Int32.max) / (((k + 1) & ~1) * Int(wmax))))
            var expected = [Float](repeating: 0, count: m * n)
            for i in 0..<m {
                let row = a[(i * k)..<((i + 1) * k)]
                let top = row.map(abs).max()!
                let inverse = top > 0 ? Float(limit) / top : 0, rowScale = top > 0 ? top / Float(limit) : 0
                let codes = row.map { Int64(($0 * inverse).rounded(.toNearestOrEven)) }
                for j in 0..<n {
                    let weights = w[(j * k)..<((j + 1) * k)]
                    let wtop = weights.map(abs).max()!
                    XCTAssertEqual(scales[j], wtop / Float(wmax))
                    let wc = weights.map { Int64(($0 / wtop * Float(wmax)).rounded(.toNearestOrEven)) }
                    let dot = zip(codes, wc).reduce(Int64(0)) { $0 + $1.0 * $1.1 }
                    expected[i * n + j] = rowScale * scales[j] * Float(dot) + bias[j]
                    let exact = (0..<k).reduce(bias[j]) { $0 + a[i * k + $1] * w[j * k + $1] }
                    // Rounding errors of half a step on each side (three sigma), and the massive value's.
                    let steps = 9 / Float(wmax) + 9 / Float(limit) + (i == 2 ? 90 / Float(limit) : 0)
                    let tolerance = steps * Float(k).squareRoot() + (i == 2 ? 90 / Float(wmax) : 0)
                    XCTAssertEqual(expected[i * n + j], exact, accuracy: tolerance, "reference far from fp32")
                }
            }
            let previous = (0..<(m * n)).map { _ in random() }
            var c = [Float](repeating: .nan, count: m * n), sum = previous, gelu = [Float](repeating: 0, count: m * n)
            ib_gemm_a16(Int32(m), Int32(n), Int32(k), a, Int32(k), packed, scales, wmax, bias, &c, Int32(n), 0)
            ib_gemm_a16(Int32(m), Int32(n), Int32(k), a, Int32(k), packed, scales, wmax, bias, &sum, Int32(n), Int32(IB_GEMM_ACCUMULATE))
            ib_gemm_a16(Int32(m), Int32(n), Int32(k), a, Int32(k), packed, scales, wmax, bias, &gelu, Int32(n), Int32(IB_GEMM_GELU))
            for i in 0..<(m * n) {
                XCTAssertEqual(c[i], expected[i], accuracy: 1e-5 * max(1, abs(expected[i])), "m \(m) n \(n) k \(k) at \(i)")
                XCTAssertEqual(sum[i], previous[i] + c[i], accuracy: 1e-5 * max(1, abs(sum[i])), "accumulate, at \(i)")
                XCTAssertEqual(gelu[i], c[i] * 0.5 * (1 + Float(erf(Double(c[i]) / 2.0.squareRoot()))), accuracy: 1e-4 * max(1, abs(c[i])), "GELU, at \(i)")
            }
        }
        // The largest codes everywhere: every product is limit x wmax, summed over K without overflow.
        for (k, bits) in [(384, 11), (1536, 11), (1537, 12), (1536, 8)] {
            let wmax = Int32((1 << (bits - 1)) - 1)
            let a = [Float](repeating: 1, count: 2 * k), w = [Float](repeating: -2, count: 16 * k)
            var packed = [Int16](repeating: 0, count: ib_w16_pairs_bytes(16, Int32(k)) / 2), scales = [Float](repeating: 0, count: 16)
            ib_w16_pack_pairs(w, 16, Int32(k), wmax, &packed, &scales)
            var c = [Float](repeating: 0, count: 2 * 16)
            ib_gemm_a16(2, 16, Int32(k), a, Int32(k), packed, scales, wmax, nil, &c, 16, 0)
            for v in c { XCTAssertEqual(v, -2 * Float(k), accuracy: 1e-3 * Float(k), "k \(k) bits \(bits)") }
        }
    }

    /// ib_gemm_bf16_amx against fp32 products of the bf16-rounded operands (where AMX runs).
    func testBF16OnAMXIsTheRoundedProduct() throws {
        guard ib_bf16_amx_usable() != 0 else { print("bf16 on AMX skipped (this CPU lacks it)"); return }
        var state: UInt64 = 9
        func random() -> Float { state = state &* 6364136223846793005 &+ 1442695040888963407; return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000 }
        func bf16(_ x: Float) -> Float {
            let u = x.bitPattern
            return Float(bitPattern: (u &+ 0x7fff &+ ((u >> 16) & 1)) & 0xffff_0000)
        }
        for (m, n, k) in [(37, 40, 100), (3, 16, 64), (40, 384, 1536)] {
            let a = (0..<(m * k)).map { _ in random() }, w = (0..<(n * k)).map { _ in random() }
            let bias = (0..<n).map { _ in random() }, previous = (0..<(m * n)).map { _ in random() }
            var packed = [UInt16](repeating: 0, count: ib_bf16_amx_packed_bytes(Int32(n), Int32(k)) / 2)
            ib_bf16_amx_pack(w, Int32(n), Int32(k), &packed)
            var c = previous
            XCTAssertEqual(ib_gemm_bf16_amx(Int32(m), Int32(n), Int32(k), a, Int32(k), packed, bias, &c, Int32(n), Int32(IB_GEMM_ACCUMULATE)), 1)
            for i in 0..<m {
                for j in 0..<n {
                    let expected = (0..<k).reduce(Double(bias[j] + previous[i * n + j])) { $0 + Double(bf16(a[i * k + $1])) * Double(bf16(w[j * k + $1])) }
                    XCTAssertEqual(Double(c[i * n + j]), expected, accuracy: 1e-4 * Double(k).squareRoot(), "m \(m) n \(n) k \(k)")
                }
            }
        }
    }

    func testPlanParsing() throws {
        let plan = try Int8Plan.parse("asym=all,keep=ffn-down,keep=value@2-5,rows=query:8,values=ffn-up:6", layers: 6)
        XCTAssertEqual(plan.valueLimits, [.intermediate: 6])
        XCTAssertEqual(plan.asymmetric, Set(LinearSlot.allCases))
        XCTAssertTrue(plan.keeps(0, .output) && plan.keeps(5, .output) && plan.keeps(5, .value))
        XCTAssertFalse(plan.keeps(1, .value))
        XCTAssertEqual(try Int8Plan.parse(Int8Plan.standard.description, layers: 6), Int8Plan.standard)
        XCTAssertEqual(try Int8Plan.parse(Int8Plan.avx2.description, layers: 6), Int8Plan.avx2)
        XCTAssertEqual(Int8Plan.avx2.description, "a16=11")
        XCTAssertEqual(try Int8Plan.parse("a16=9,a16=0", layers: 6).pairCodeBits, 0)
        XCTAssertEqual(plan.rowLimits, [.query: 8])
        XCTAssertEqual(try Int8Plan.parse(plan.description, layers: 6), plan, "the description parses back")
        let only = try Int8Plan.parse("only=key@3", layers: 6)
        XCTAssertEqual(only.kept.count, 35)
        XCTAssertEqual(try Int8Plan.parse("int8", layers: 6), Int8Plan())
        for bad in ["a16=16", "a16=x", "keep=ffn", "keep=value@4-9", "rows=query:x", "asym", "kept=fp16", "keep=value@5-2", "values=ffn-up:1", "values=ffn-up"] {
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
        defer { Self.select(Self.best) }
        for path in Self.kernelPaths() {
            Self.select(path)
            // The path's own plan (16-bit activations on avx2); on avx2 the 8-bit plan too.
            for plan in [Int8Plan.forThisCPU] + (path.name == "avx2" ? [Int8Plan.standard] : []) {
            model.int8Plan = plan
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
    }

    /// The bar the standard plan meets on the reference texts (README "int8 embeddings").
    static let minimumCosine = 0.999
}
