// The weights of --compute int8: every linear layer of the encoder and the
// decoder quantised once, at load, to int8 with one scale per output row, and
// packed for ib_gemm_i8, which quantises each row of activations as it comes.
// The decoder keeps its cross-attention keys and values as int8 too
// (QuantizedRows, Decoder.swift); attention scores and LayerNorm stay fp32.
import CKernels
import IBModel

/// One linear layer: its weight as an Int8Matrix (IBModel) and its bias.
struct PackedLinear: Sendable {
    let matrix: Int8Matrix
    let bias: [Float]

    init(weight: [Float], bias: [Float], outputs: Int, inputs: Int) {
        matrix = weight.withUnsafeBufferPointer { Int8Matrix(weight: $0.baseAddress!, outputs: outputs, inputs: inputs) }
        self.bias = bias
    }

    init(_ linear: Linear) {
        self.init(weight: linear.weight.isEmpty ? WhisperDecoder.widen(linear.weight16) : linear.weight,
                  bias: linear.bias, outputs: linear.outputs, inputs: linear.inputs)
    }

    /// A packed matrix without bias (the output projection).
    init(_ matrix: Int8Matrix) {
        self.matrix = matrix
        bias = [Float](repeating: 0, count: matrix.outputs)
    }

    /// C[rows, outputs] (row stride ldc) = A[rows, inputs] (row stride lda) * W^T + bias, rows split over the cores.
    func apply(rows: Int, _ a: UnsafePointer<Float>, lda: Int, _ c: UnsafeMutablePointer<Float>, ldc: Int, flags: Int32) {
        bias.withUnsafeBufferPointer { b in
            Parallel.ranges(rows, minimumPerPart: 16) { part in
                matrix.multiply(rows: part.count, a + part.lowerBound * lda, lda: lda, bias: b.baseAddress,
                                c + part.lowerBound * ldc, ldc: ldc, flags: flags)
            }
        }
    }

    /// The same product with the outputs (whole packed blocks of 16, at least `blocksPerPart` to a part)
    /// split over the cores: for a few rows, such as one decoding step or the hypotheses of a beam.
    func applyByColumns(rows: Int, _ a: UnsafePointer<Float>, lda: Int, _ c: UnsafeMutablePointer<Float>, ldc: Int,
                        flags: Int32 = 0, blocksPerPart: Int = 256) {
        let outputs = matrix.outputs, blocks = (outputs + 15) / 16
        bias.withUnsafeBufferPointer { b in
            Parallel.ranges(blocks, minimumPerPart: blocksPerPart) { part in
                matrix.multiply(rows: rows, a, lda: lda, bias: b.baseAddress, c, ldc: ldc, flags: flags,
                                columns: (part.lowerBound * 16)..<min(outputs, part.upperBound * 16))
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
        embedding = PackedLinear(w.tokenEmbedding8)
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
