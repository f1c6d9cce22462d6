// The weights of --compute int8: every linear layer of the encoder and the
// decoder quantised once, at load, to int8 with one scale per output row, and
// packed for ib_gemm_i8, which quantises each row of activations as it comes.
// Attention itself, LayerNorm, the convolution's GELU and the output
// projection's screening (ScreenedLogits) stay as they are.
import CKernels

/// One linear layer packed for ib_gemm_i8.
struct PackedLinear: Sendable {
    let packed: [Int8]
    let scales: [Float]
    let sums: [Int32]
    let bias: [Float]
    let outputs: Int
    let inputs: Int

    init(weight: [Float], bias: [Float], outputs: Int, inputs: Int) {
        var scales = [Float](repeating: 0, count: outputs), sums = [Int32](repeating: 0, count: outputs)
        let bytes = ib_i8_packed_bytes(Int32(outputs), Int32(inputs))
        packed = [Int8](unsafeUninitializedCapacity: bytes) { out, initialized in
            ib_i8_pack(weight, Int32(outputs), Int32(inputs), out.baseAddress!, &scales, &sums)
            initialized = bytes
        }
        self.scales = scales
        self.sums = sums
        self.bias = bias
        self.outputs = outputs
        self.inputs = inputs
    }

    /// From int8 codes [outputs, inputs] quantised one scale a row elsewhere; no bias.
    init(codes: [Int8], scales: [Float], outputs: Int, inputs: Int) {
        var sums = [Int32](repeating: 0, count: outputs)
        let bytes = ib_i8_packed_bytes(Int32(outputs), Int32(inputs))
        packed = [Int8](unsafeUninitializedCapacity: bytes) { out, initialized in
            ib_i8_pack_codes(codes, Int32(outputs), Int32(inputs), out.baseAddress!, &sums)
            initialized = bytes
        }
        self.scales = scales
        self.sums = sums
        bias = [Float](repeating: 0, count: outputs)
        self.outputs = outputs
        self.inputs = inputs
    }

    init(_ linear: Linear) {
        self.init(weight: linear.weight.isEmpty ? WhisperDecoder.widen(linear.weight16) : linear.weight,
                  bias: linear.bias, outputs: linear.outputs, inputs: linear.inputs)
    }

    /// C[rows, outputs] (row stride ldc) = A[rows, inputs] (row stride lda) * W^T + bias, rows split over the cores.
    func apply(rows: Int, _ a: UnsafePointer<Float>, lda: Int, _ c: UnsafeMutablePointer<Float>, ldc: Int, flags: Int32) {
        packed.withUnsafeBufferPointer { w in
            scales.withUnsafeBufferPointer { s in
                sums.withUnsafeBufferPointer { t in
                    bias.withUnsafeBufferPointer { b in
                        Parallel.ranges(rows, minimumPerPart: 16) { part in
                            ib_gemm_i8(Int32(part.count), Int32(outputs), Int32(inputs), a + part.lowerBound * lda, Int32(lda),
                                       w.baseAddress!, s.baseAddress!, t.baseAddress!, b.baseAddress,
                                       c + part.lowerBound * ldc, Int32(ldc), flags)
                        }
                    }
                }
            }
        }
    }
}

extension PackedLinear {
    /// The same product with the outputs (whole packed blocks of 16) split over the cores: for a few rows
    /// against a wide matrix, such as the hypotheses of a beam against the vocabulary.
    func applyByColumns(rows: Int, _ a: UnsafePointer<Float>, lda: Int, _ c: UnsafeMutablePointer<Float>, ldc: Int) {
        let blockBytes = 16 * ((inputs + 3) & ~3), blocks = (outputs + 15) / 16
        packed.withUnsafeBufferPointer { w in
            scales.withUnsafeBufferPointer { s in
                sums.withUnsafeBufferPointer { t in
                    bias.withUnsafeBufferPointer { b in
                        Parallel.ranges(blocks, minimumPerPart: 256) { part in
                            let first = part.lowerBound * 16, count = min(outputs, part.upperBound * 16) - first
                            ib_gemm_i8(Int32(rows), Int32(count), Int32(inputs), a, Int32(lda),
                                       w.baseAddress! + part.lowerBound * blockBytes, s.baseAddress! + first, t.baseAddress! + first,
                                       b.baseAddress! + first, c + first, Int32(ldc), 0)
                        }
                    }
                }
            }
        }
    }
}

struct PackedEncoderLayer: Sendable {
    let qkv, attentionOut, ffnIn, ffnOut: PackedLinear
}

struct PackedDecoderLayer: Sendable {
    let selfQKV, selfOut, crossQuery, crossOut, ffnIn, ffnOut: PackedLinear
}

/// Every linear layer of a model, packed (about a quarter of the fp32 bytes).
struct Int8Weights: Sendable {
    let conv1: PackedLinear
    let conv2: PackedLinear
    let encoderLayers: [PackedEncoderLayer]
    let decoderLayers: [PackedDecoderLayer]
    /// The output projection from the int8 codes the screening pass already keeps, for a beam's rows.
    let embedding: PackedLinear

    init(_ w: WhisperWeights) {
        embedding = PackedLinear(codes: w.tokenEmbedding8, scales: w.tokenEmbeddingScales, outputs: w.vocabularySize, inputs: w.width)
        conv1 = PackedLinear(weight: w.conv1Weight, bias: w.conv1Bias, outputs: w.width, inputs: 3 * w.melBins)
        conv2 = PackedLinear(weight: w.conv2Weight, bias: w.conv2Bias, outputs: w.width, inputs: 3 * w.width)
        encoderLayers = w.encoderLayers.map {
            PackedEncoderLayer(qkv: PackedLinear($0.qkv), attentionOut: PackedLinear($0.attentionOut),
                               ffnIn: PackedLinear($0.ffnIn), ffnOut: PackedLinear($0.ffnOut))
        }
        decoderLayers = w.decoderLayers.map {
            PackedDecoderLayer(selfQKV: PackedLinear($0.selfQKV), selfOut: PackedLinear($0.selfOut),
                               crossQuery: PackedLinear($0.crossQuery), crossOut: PackedLinear($0.crossOut),
                               ffnIn: PackedLinear($0.ffnIn), ffnOut: PackedLinear($0.ffnOut))
        }
    }
}
