// The fp16 decoder kernels against plain loops, on the AVX-512 and the AVX2 paths.
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
}
