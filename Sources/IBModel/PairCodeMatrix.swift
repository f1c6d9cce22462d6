// A weight matrix [outputs, inputs] quantised once to codes of a few more bits
// than int8 (one scale per output row) and packed in pairs of inputs for
// ib_gemm_a16, which gives each row of activations 16-bit codes as it comes:
// the int8 path of CPUs with AVX2 but no VNNI, where vpmaddwd multiplies
// 16-bit values whatever their width, so codes of 8 bits would save nothing
// and lose parity (CKernels/a16_gemm.c).
import CKernels

final class PairCodeMatrix: @unchecked Sendable {
    let outputs: Int
    let inputs: Int
    /// The largest weight code: 2^(bits - 1) - 1.
    let weightMax: Int32
    private let packed: [Int16]
    private let scales: [Float]

    init(weight: UnsafePointer<Float>, outputs: Int, inputs: Int, bits: Int) {
        precondition((2...15).contains(bits), "weight codes of 2 to 15 bits")
        var scales = [Float](repeating: 0, count: outputs)
        let count = ib_w16_pairs_bytes(Int32(outputs), Int32(inputs)) / 2
        let weightMax = Int32((1 << (bits - 1)) - 1)
        packed = [Int16](unsafeUninitializedCapacity: count) { out, initialized in
            ib_w16_pack_pairs(weight, Int32(outputs), Int32(inputs), weightMax, out.baseAddress!, &scales)
            initialized = count
        }
        self.weightMax = weightMax
        self.scales = scales
        self.outputs = outputs
        self.inputs = inputs
    }

    /// C[rows, outputs] (+)= A[rows, inputs] * W^T + bias (flags: IB_GEMM_ACCUMULATE or IB_GEMM_GELU).
    func multiply(rows: Int, _ a: UnsafePointer<Float>, lda: Int, bias: UnsafePointer<Float>?,
                  _ c: UnsafeMutablePointer<Float>, ldc: Int, flags: Int32) {
        packed.withUnsafeBufferPointer { p in
            scales.withUnsafeBufferPointer { s in
                ib_gemm_a16(Int32(rows), Int32(outputs), Int32(inputs), a, Int32(lda), p.baseAddress!, s.baseAddress!,
                            weightMax, bias, c, Int32(ldc), flags)
            }
        }
    }
}
