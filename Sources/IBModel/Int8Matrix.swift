// A weight matrix [outputs, inputs] quantised once to int8 (one scale per
// output row) and packed for ib_gemm_i8, which quantises each row of
// activations as it comes ("dynamic int8"). Whisper's --compute int8 runs on
// it; it lives beside the sentence encoder for an int8 embedding path (on
// MiniLM, per-token scales alone reach a minimum cosine of 0.983 to fp32 over
// the 80 reference texts, mean 0.996: short of issue 27's 0.999).
import CKernels

public final class Int8Matrix: @unchecked Sendable {
    public let outputs: Int
    public let inputs: Int
    private let packed: [Int8]
    private let scales: [Float]
    private let sums: [Int32]
    /// The weight as 16-bit codes by input ([inputs, outputs]) and their scales (one an output),
    /// for the products of set-apart outliers; empty unless asked for.
    private let codesByInput: [Int16]
    private let codesByInputScales: [Float]

    /// Whether the products run on AVX-512 VNNI here (else AVX-VNNI or AVX2, with the same integer sums).
    public static var usesVNNI: Bool { ib_i8_uses_vnni() != 0 }
    /// The int8 tiles in use: "avx512-vnni", "avx-vnni" or "avx2".
    public static var kernelPath: String { String(cString: ib_i8_path_name()) }

    /// Quantises fp32 weight[outputs, inputs] row by row; `withColumns` also keeps 16-bit codes by
    /// input, with which multiply(outliers:) runs set-apart values and fp32 rows.
    public init(weight: UnsafePointer<Float>, outputs: Int, inputs: Int, withColumns: Bool = false) {
        var scales = [Float](repeating: 0, count: outputs), sums = [Int32](repeating: 0, count: outputs)
        let bytes = ib_i8_packed_bytes(Int32(outputs), Int32(inputs))
        let packed = [Int8](unsafeUninitializedCapacity: bytes) { out, initialized in
            ib_i8_pack(weight, Int32(outputs), Int32(inputs), out.baseAddress!, &scales, &sums)
            initialized = bytes
        }
        self.packed = packed
        var columnScales = [Float](repeating: 0, count: withColumns ? outputs : 0)
        codesByInput = !withColumns ? [] : [Int16](unsafeUninitializedCapacity: outputs * inputs) { out, initialized in
            ib_i16_columns(weight, Int32(outputs), Int32(inputs), out.baseAddress!, &columnScales)
            initialized = outputs * inputs
        }
        codesByInputScales = columnScales
        self.scales = scales
        self.sums = sums
        self.outputs = outputs
        self.inputs = inputs
    }

    /// Packs int8 codes[outputs, inputs] quantised elsewhere with one scale per row.
    public init(codes: [Int8], scales: [Float], outputs: Int, inputs: Int) {
        var sums = [Int32](repeating: 0, count: outputs)
        let bytes = ib_i8_packed_bytes(Int32(outputs), Int32(inputs))
        packed = [Int8](unsafeUninitializedCapacity: bytes) { out, initialized in
            ib_i8_pack_codes(codes, Int32(outputs), Int32(inputs), out.baseAddress!, &sums)
            initialized = bytes
        }
        self.scales = scales
        self.sums = sums
        self.outputs = outputs
        self.inputs = inputs
        codesByInput = []
        codesByInputScales = []
    }

    /// C[rows, outputs] = A[rows, inputs] * W^T + bias (flags: IB_GEMM_ACCUMULATE or IB_GEMM_GELU).
    /// `columns`, when given, limits the outputs computed to a range starting at a multiple of 16
    /// (a packed block), so that one product can be split over threads by outputs.
    /// `outliers`, when given: a row of A whose max |a| is above `rowLimit` times its RMS runs in
    /// fp32 (by the 16-bit codes when built `withColumns`, else by `weight`, the fp32 weight
    /// quantised here, [outputs, inputs]); in the other rows, values above `valueLimit` times
    /// the RMS are set apart and multiplied in fp32 (`withColumns` only). 0: no such limit
    /// (ib_gemm_i8_mixed).
    public func multiply(rows: Int, _ a: UnsafePointer<Float>, lda: Int, bias: UnsafePointer<Float>?,
                         _ c: UnsafeMutablePointer<Float>, ldc: Int, flags: Int32, columns: Range<Int>? = nil,
                         outliers: (weight: UnsafePointer<Float>, rowLimit: Float, valueLimit: Float)? = nil) {
        let range = columns ?? 0..<outputs
        precondition(range.lowerBound % 16 == 0 && range.upperBound <= outputs, "a column range starts on a packed block")
        guard rows > 0, !range.isEmpty else { return }
        let blockBytes = 16 * ((inputs + 3) & ~3), first = range.lowerBound
        // Swift arrays' storage: the pointers stay valid while self lives (the arrays are never mutated).
        func base<T>(_ array: [T], _ offset: Int) -> UnsafePointer<T>? {
            array.isEmpty ? nil : array.withUnsafeBufferPointer { $0.baseAddress! + offset }
        }
        withExtendedLifetime(self) {
            ib_gemm_i8_mixed(Int32(rows), Int32(range.count), Int32(inputs), a, Int32(lda), base(packed, (first / 16) * blockBytes),
                             base(scales, first), base(sums, first), base(codesByInput, first), base(codesByInputScales, first),
                             Int32(outputs), outliers.map { $0.weight + first * inputs }, outliers?.rowLimit ?? 0, outliers?.valueLimit ?? 0,
                             bias.map { $0 + first }, c + first, Int32(ldc), flags)
        }
    }
}
