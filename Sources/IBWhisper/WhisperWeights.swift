// The weights of a Whisper model, laid out for IBWhisper's kernels: the
// encoder in fp32 (batched GEMMs); the decoder as the file's fp16 (one step at
// a time is bound by memory; a prompt widens each matrix to fp32 for its GEMM,
// which keeps 33 MB out of memory); the token embedding, which is also the
// output projection, as fp16 and as packed int8 codes for the screening pass.
import CKernels
import Foundation
import IBModel

/// A linear layer y = x W^T + b, W [outputs, inputs].
struct Linear: Sendable {
    let weight: [Float]          // fp32 [outputs, inputs]; empty when only fp16 is kept
    let weight16: [UInt16]       // fp16 [outputs, inputs]; empty for encoder layers
    let bias: [Float]
    let outputs: Int
    let inputs: Int
}

struct LayerNormWeights: Sendable {
    let gamma: [Float]
    let beta: [Float]
}

struct EncoderLayer: Sendable {
    let attentionNorm: LayerNormWeights
    let qkv: Linear              // fused [3 * d, d]
    let attentionOut: Linear
    let ffnNorm: LayerNormWeights
    let ffnIn: Linear
    let ffnOut: Linear
}

struct DecoderLayer: Sendable {
    let selfNorm: LayerNormWeights
    let selfQKV: Linear
    let selfOut: Linear
    let crossNorm: LayerNormWeights
    let crossQuery: Linear
    let crossKV: Linear          // fused [2 * d, d], applied to the encoder output once per window
    let crossOut: Linear
    let ffnNorm: LayerNormWeights
    let ffnIn: Linear
    let ffnOut: Linear
}

final class WhisperWeights: Sendable {
    let width: Int               // d_model
    let melBins: Int
    let encoderHeads: Int
    let decoderHeads: Int
    let audioPositions: Int      // 1500
    let textPositions: Int       // 448
    let vocabularySize: Int
    let conv1Weight: [Float]     // [d, 3 * melBins] reordered as [out][tap][in]
    let conv1Bias: [Float]
    let conv2Weight: [Float]     // [d, 3 * d] as [out][tap][in]
    let conv2Bias: [Float]
    let audioPositionTable: [Float]
    let encoderLayers: [EncoderLayer]
    let encoderNorm: LayerNormWeights
    let tokenEmbedding16: [UInt16]   // [vocab, d] fp16: embedding and output projection
    let tokenEmbedding8: Int8Matrix  // the same rows as int8 codes, packed, for the screening pass (ScreenedLogits)
    let tokenEmbeddingScales: [Float]
    let tokenEmbeddingCodeSums: [Float]  // per row, the sum of |code|: how far the rounding of a step's hidden state can move a score
    let textPositionTable: [Float]
    let decoderLayers: [DecoderLayer]
    let decoderNorm: LayerNormWeights

    init(file: CT2ModelFile, path: String) throws {
        func v(_ name: String) throws -> CT2Variable { try file.variable(name, path: path) }
        func norm(_ prefix: String) throws -> LayerNormWeights {
            LayerNormWeights(gamma: try v(prefix + "/gamma").floats(), beta: try v(prefix + "/beta").floats())
        }
        func linear(_ prefix: String, fp32: Bool, fp16: Bool) throws -> Linear {
            let weight = try v(prefix + "/weight")
            guard weight.shape.count == 2 else { throw WhisperError.model("\(path): \(prefix)/weight is not a matrix") }
            let bias = try file.variables[prefix + "/bias"]?.floats() ?? [Float](repeating: 0, count: weight.shape[0])
            return Linear(weight: fp32 ? weight.floats() : [], weight16: fp16 ? weight.halfs() : [],
                          bias: bias, outputs: weight.shape[0], inputs: weight.shape[1])
        }
        let embedding = try v("decoder/embeddings/weight")
        guard embedding.shape.count == 2 else { throw WhisperError.model("\(path): decoder/embeddings/weight is not a matrix") }
        vocabularySize = embedding.shape[0]
        width = embedding.shape[1]
        let conv1 = try v("encoder/conv1/weight"), conv2 = try v("encoder/conv2/weight")
        guard conv1.shape.count == 3, conv1.shape[0] == width, conv1.shape[2] == 3,
              conv2.shape == [width, width, 3] else {
            throw WhisperError.model("\(path): the convolution weights have shapes \(conv1.shape) and \(conv2.shape)")
        }
        melBins = conv1.shape[1]
        conv1Weight = Self.tapMajor(conv1.floats(), outputs: width, inputs: melBins)
        conv1Bias = try v("encoder/conv1/bias").floats()
        conv2Weight = Self.tapMajor(conv2.floats(), outputs: width, inputs: width)
        conv2Bias = try v("encoder/conv2/bias").floats()
        let audioTable = try v("encoder/position_encodings/encodings")
        audioPositions = audioTable.shape.first ?? 0
        audioPositionTable = audioTable.floats()
        let textTable = try v("decoder/position_encodings/encodings")
        textPositions = textTable.shape.first ?? 0
        textPositionTable = textTable.floats()
        encoderHeads = try v("encoder/num_heads").integers().first ?? 0
        decoderHeads = try v("decoder/num_heads").integers().first ?? 0
        guard encoderHeads > 0, decoderHeads > 0, width % encoderHeads == 0, width % decoderHeads == 0,
              audioTable.shape == [audioPositions, width], textTable.shape == [textPositions, width] else {
            throw WhisperError.model("\(path): inconsistent heads or position tables")
        }
        var encoderLayers: [EncoderLayer] = []
        while file.variables["encoder/layer_\(encoderLayers.count)/ffn/linear_0/weight"] != nil {
            let p = "encoder/layer_\(encoderLayers.count)"
            encoderLayers.append(EncoderLayer(
                attentionNorm: try norm(p + "/self_attention/layer_norm"),
                qkv: try linear(p + "/self_attention/linear_0", fp32: true, fp16: false),
                attentionOut: try linear(p + "/self_attention/linear_1", fp32: true, fp16: false),
                ffnNorm: try norm(p + "/ffn/layer_norm"),
                ffnIn: try linear(p + "/ffn/linear_0", fp32: true, fp16: false),
                ffnOut: try linear(p + "/ffn/linear_1", fp32: true, fp16: false)))
        }
        var decoderLayers: [DecoderLayer] = []
        while file.variables["decoder/layer_\(decoderLayers.count)/ffn/linear_0/weight"] != nil {
            let p = "decoder/layer_\(decoderLayers.count)"
            decoderLayers.append(DecoderLayer(
                selfNorm: try norm(p + "/self_attention/layer_norm"),
                selfQKV: try linear(p + "/self_attention/linear_0", fp32: false, fp16: true),
                selfOut: try linear(p + "/self_attention/linear_1", fp32: false, fp16: true),
                crossNorm: try norm(p + "/attention/layer_norm"),
                crossQuery: try linear(p + "/attention/linear_0", fp32: false, fp16: true),
                crossKV: try linear(p + "/attention/linear_1", fp32: true, fp16: false),
                crossOut: try linear(p + "/attention/linear_2", fp32: false, fp16: true),
                ffnNorm: try norm(p + "/ffn/layer_norm"),
                ffnIn: try linear(p + "/ffn/linear_0", fp32: false, fp16: true),
                ffnOut: try linear(p + "/ffn/linear_1", fp32: false, fp16: true)))
        }
        guard !encoderLayers.isEmpty, !decoderLayers.isEmpty else { throw WhisperError.model("\(path): no encoder or decoder layers") }
        self.encoderLayers = encoderLayers
        self.decoderLayers = decoderLayers
        encoderNorm = try norm("encoder/layer_norm")
        decoderNorm = try norm("decoder/layer_norm")
        tokenEmbedding16 = embedding.halfs()
        let (rows, d) = (vocabularySize, width)
        var scales = [Float](repeating: 0, count: rows)
        let halves = tokenEmbedding16
        let codes = [Int8](unsafeUninitializedCapacity: rows * d) { codes, initialized in
            ib_quantize_rows_f16_i8(halves, Int32(rows), Int32(d), codes.baseAddress!, &scales)
            initialized = rows * d
        }
        tokenEmbedding8 = Int8Matrix(codes: codes, scales: scales, outputs: rows, inputs: d)
        tokenEmbeddingScales = scales
        tokenEmbeddingCodeSums = (0..<rows).map { r in (0..<d).reduce(Float(0)) { $0 + Float(abs(Int(codes[r * d + $1]))) } }
    }

    /// [out][in][tap] -> [out][tap][in], so that one im2col row of a time-major input is contiguous.
    private static func tapMajor(_ w: [Float], outputs: Int, inputs: Int) -> [Float] {
        var out = [Float](repeating: 0, count: w.count)
        for o in 0..<outputs {
            for i in 0..<inputs {
                for t in 0..<3 { out[(o * 3 + t) * inputs + i] = w[(o * inputs + i) * 3 + t] }
            }
        }
        return out
    }
}
