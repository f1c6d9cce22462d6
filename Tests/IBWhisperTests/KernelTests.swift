// The fp16 and int8 kernels of the Whisper model against plain loops, on the
// AVX-512 (VNNI where the CPU has it) and the AVX2 paths.
import CKernels
import XCTest

final class KernelTests: XCTestCase {
    func testGemvF16MatchesAPlainLoopOnBothPaths() throws {
        for m in [1, 3, 6] { try gemv(m: m) }
    }

    func gemv(m: Int) throws {
        let n = 37, k = 392
        var state: UInt64 = 42
        func random() -> Float { state = state &* 6364136223846793005 &+ 1442695040888963407; return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000 }
        let x = (0..<(m * k)).map { _ in random() }
        let w16 = (0..<(n * k)).map { _ in Float16(random()).bitPattern }
        let bias = (0..<n).map { _ in random() }
        var w = [Float](repeating: 0, count: n * k)
        ib_f16_to_f32(w16, &w, w.count)
        XCTAssertEqual(w[5], Float(Float16(bitPattern: w16[5])))
        var expected = [Float](repeating: 0, count: m * n)
        for i in 0..<m { for j in 0..<n {
            var s: Float = bias[j]
            for kk in 0..<k { s += x[i * k + kk] * w[j * k + kk] }
            expected[i * n + j] = s
        } }
        defer { ib_kernels_select(1) }
        for wide in [1, 0] {
            ib_kernels_select(Int32(wide))
            var y = [Float](repeating: 0, count: m * n)
            ib_gemv_f16(Int32(m), Int32(n), Int32(k), x, Int32(k), w16, Int32(k), bias, &y, Int32(n), 0)
            for i in 0..<(m * n) { XCTAssertEqual(y[i], expected[i], accuracy: 1e-3, "isa \(String(cString: ib_kernels_isa()))") }
        }
    }

    func testDotRowsOnBothPaths() {
        let x: [Float] = (0..<64).map { Float($0 % 7) - 3 }
        let v: [Float] = (0..<(9 * 80)).map { Float($0 % 11) / 4 }
        defer { ib_kernels_select(1) }
        for wide in [1, 0] {
            ib_kernels_select(Int32(wide))
            var out = [Float](repeating: 0, count: 9)
            ib_dot_rows(x, v, 80, 9, 64, &out)
            for j in 0..<9 {
                var s: Float = 0
                for d in 0..<64 { s += x[d] * v[j * 80 + d] }
                XCTAssertEqual(out[j], s, accuracy: 1e-3)
            }
        }
    }

    func testWeightedRowsIsProbabilitiesTimesValues() {
        let p: [Float] = [0.25, 0.5, 0.25]
        let v: [Float] = (0..<(3 * 12)).map { Float($0) }
        var out = [Float](repeating: 0, count: 10)
        ib_weighted_rows(p, 3, v, 12, 10, &out)
        for d in 0..<10 { XCTAssertEqual(out[d], 0.25 * Float(d) + 0.5 * Float(12 + d) + 0.25 * Float(24 + d), accuracy: 1e-4) }
    }

    /// ib_gemm_i8 against the same quantisation done by hand: row codes of A and W, exact integer
    /// sums, the same scaling; the VNNI and AVX2 tiles must give identical floats. Odd shapes
    /// (K not a multiple of 4, N not of 16, M not of 8) cover the padding.
    func testGemmInt8IsTheQuantisedProductOnBothPaths() {
        var state: UInt64 = 7
        func random() -> Float { state = state &* 6364136223846793005 &+ 1442695040888963407; return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000 }
        func codes(_ row: ArraySlice<Float>) -> (codes: [Int32], scale: Float) {
            let top = row.map(abs).max() ?? 0
            guard top > 0 else { return ([Int32](repeating: 0, count: row.count), 0) }
            return (row.map { Int32(($0 / top * 127).rounded(.toNearestOrEven)) }, top / 127)
        }
        for (m, n, k) in [(1, 37, 390), (5, 16, 8), (19, 70, 384)] {
            let a = (0..<(m * k)).map { _ in random() }, w = (0..<(n * k)).map { _ in random() }, bias = (0..<n).map { _ in random() }
            var packed = [Int8](repeating: 0, count: ib_i8_packed_bytes(Int32(n), Int32(k)))
            var scales = [Float](repeating: 0, count: n), sums = [Int32](repeating: 0, count: n)
            ib_i8_pack(w, Int32(n), Int32(k), &packed, &scales, &sums)
            var expected = [Float](repeating: 0, count: m * n), exact = expected
            for i in 0..<m {
                let (ac, asc) = codes(a[(i * k)..<((i + 1) * k)])
                for j in 0..<n {
                    let (wc, _) = codes(w[(j * k)..<((j + 1) * k)])
                    let dot = zip(ac, wc).reduce(Int32(0)) { $0 + $1.0 * $1.1 }
                    expected[i * n + j] = asc * scales[j] * Float(dot) + bias[j]
                    exact[i * n + j] = (0..<k).reduce(bias[j]) { $0 + a[i * k + $1] * w[j * k + $1] }
                }
            }
            defer { ib_kernels_select(1) }
            var results: [[Float]] = []
            for wide in [1, 0] {
                ib_kernels_select(Int32(wide))
                var c = [Float](repeating: 0, count: m * n)
                ib_gemm_i8(Int32(m), Int32(n), Int32(k), a, Int32(k), packed, scales, sums, bias, &c, Int32(n), 0)
                for i in 0..<(m * n) {
                    XCTAssertEqual(c[i], expected[i], accuracy: 1e-4 * max(1, abs(expected[i])), "m \(m) n \(n) k \(k) vnni \(ib_i8_uses_vnni())")
                    XCTAssertEqual(c[i], exact[i], accuracy: 0.05 * Float(k).squareRoot() / 4, "int8 far from the fp32 product")
                }
                results.append(c)
                var twice = c
                ib_gemm_i8(Int32(m), Int32(n), Int32(k), a, Int32(k), packed, scales, sums, bias, &twice, Int32(n), Int32(IB_GEMM_ACCUMULATE))
                for i in 0..<(m * n) { XCTAssertEqual(twice[i], 2 * c[i], accuracy: 1e-5 * max(1, abs(c[i]))) }
            }
            XCTAssertEqual(results[0], results[1], "the AVX2 tiles must sum exactly what the VNNI tiles sum")
        }
    }

    func testWeightedRowsInt8OnBothPaths() {
        let p: [Float] = (0..<21).map { Float($0 % 5) / 10 }
        let v: [Int8] = (0..<(21 * 150)).map { Int8(truncatingIfNeeded: $0 * 37 % 255 - 127) }
        defer { ib_kernels_select(1) }
        for wide in [1, 0] {
            ib_kernels_select(Int32(wide))
            for dim in [64, 150, 7] {
                var out = [Float](repeating: 0, count: dim)
                ib_weighted_rows_i8(p, 21, v, 150, Int32(dim), &out)
                for d in 0..<dim {
                    let expected = (0..<21).reduce(Float(0)) { $0 + p[$1] * Float(v[$1 * 150 + d]) }
                    XCTAssertEqual(out[d], expected, accuracy: 1e-3)
                }
            }
        }
    }
}
