// Whisper's audio encoder: two convolutions with GELU (the second with stride
// 2: 3000 mel frames become 1500 positions), sinusoidal positions, pre-norm
// transformer layers, a final LayerNorm. All GEMMs go through ib_gemm, split by
// rows over the cores; attention is split by heads.
import CKernels
import IBModel

struct WhisperEncoder {
    let weights: WhisperWeights
    /// Set for --compute int8: every GEMM but attention's runs on int8 codes.
    var int8: Int8Weights? = nil

    /// mel: [3000, melBins] time-major (one padded 30 s window). Returns [1500, width].
    func encode(mel: [Float]) -> [Float] {
        let w = weights, d = w.width, bins = w.melBins
        let frames = mel.count / bins, positions = frames / 2
        // conv1 as a GEMM: with a zero row before and after, im2col row t is rows t-1, t, t+1 back to back.
        var input = [Float](repeating: 0, count: (frames + 2) * bins)
        input.replaceSubrange(bins..<(bins + mel.count), with: mel)
        var hidden1 = [Float](repeating: 0, count: (frames + 2) * d)
        input.withUnsafeBufferPointer { a in
            hidden1.withUnsafeMutableBufferPointer { c in
                if let conv1 = int8?.conv1 {
                    conv1.apply(rows: frames, a.baseAddress!, lda: bins, c.baseAddress! + d, ldc: d, flags: Int32(IB_GEMM_GELU))
                } else {
                    gemmRows(frames, d, 3 * bins, a.baseAddress!, bins, w.conv1Weight, w.conv1Bias, c.baseAddress! + d, d, Int32(IB_GEMM_GELU))
                }
            }
        }
        // conv2, stride 2: output t reads padded rows 2t, 2t+1, 2t+2 (inputs 2t-1 ... 2t+1).
        var x = [Float](repeating: 0, count: positions * d)
        hidden1.withUnsafeBufferPointer { a in
            x.withUnsafeMutableBufferPointer { c in
                if let conv2 = int8?.conv2 {
                    conv2.apply(rows: positions, a.baseAddress!, lda: 2 * d, c.baseAddress!, ldc: d, flags: Int32(IB_GEMM_GELU))
                } else {
                    gemmRows(positions, d, 3 * d, a.baseAddress!, 2 * d, w.conv2Weight, w.conv2Bias, c.baseAddress!, d, Int32(IB_GEMM_GELU))
                }
            }
        }
        for i in 0..<(positions * d) { x[i] += w.audioPositionTable[i] }
        var scratch = EncoderScratch(positions: positions, width: d, ffn: w.encoderLayers[0].ffnIn.outputs)
        for (l, layer) in w.encoderLayers.enumerated() {
            apply(layer, packed: int8?.encoderLayers[l], to: &x, positions: positions, scratch: &scratch)
        }
        ib_layernorm(&x, Int32(positions), Int32(d), Int32(d), w.encoderNorm.gamma, w.encoderNorm.beta, 1e-5)
        return x
    }

    private func apply(_ layer: EncoderLayer, packed: PackedEncoderLayer?, to x: inout [Float], positions n: Int,
                       scratch: inout EncoderScratch) {
        let d = weights.width, heads = weights.encoderHeads, headSize = d / heads
        scratch.normed = x
        ib_layernorm(&scratch.normed, Int32(n), Int32(d), Int32(d), layer.attentionNorm.gamma, layer.attentionNorm.beta, 1e-5)
        linear(layer.qkv, packed?.qkv, scratch.normed, &scratch.qkv, rows: n)
        selfAttention(qkv: scratch.qkv, into: &scratch.context, positions: n, heads: heads, headSize: headSize, width: d)
        linear(layer.attentionOut, packed?.attentionOut, scratch.context, &x, rows: n, accumulate: true)
        scratch.normed = x
        ib_layernorm(&scratch.normed, Int32(n), Int32(d), Int32(d), layer.ffnNorm.gamma, layer.ffnNorm.beta, 1e-5)
        linear(layer.ffnIn, packed?.ffnIn, scratch.normed, &scratch.ffn, rows: n, gelu: true)
        linear(layer.ffnOut, packed?.ffnOut, scratch.ffn, &x, rows: n, accumulate: true)
    }

    /// Softmax(Q K^T / sqrt(headSize)) V per head, heads spread over the cores.
    /// In fp32 with either compute type: bf16 products measured no faster here, and the scores feed every later layer.
    private func selfAttention(qkv: [Float], into context: inout [Float], positions n: Int, heads: Int, headSize: Int, width d: Int) {
        let scale = 1 / Float(headSize).squareRoot()
        qkv.withUnsafeBufferPointer { qkvBuffer in
            context.withUnsafeMutableBufferPointer { out in
                let q = qkvBuffer.baseAddress!, o = out.baseAddress!
                Parallel.ranges(heads) { headRange in
                    // A block of query rows at a time: its scores (block x n) stay in L2 from the
                    // product through the softmax to the weighted values.
                    let block = 128
                    var scores = [Float](repeating: 0, count: block * n)
                    for h in headRange {
                        for first in stride(from: 0, to: n, by: block) {
                            let rows = min(block, n - first)
                            ib_gemm(Int32(rows), Int32(n), Int32(headSize), q + first * 3 * d + h * headSize, Int32(3 * d),
                                    q + d + h * headSize, Int32(3 * d), nil, &scores, Int32(n), 0)
                            ib_softmax_rows(&scores, Int32(rows), Int32(n), Int32(n), scale, nil)
                            ib_gemm(Int32(rows), Int32(headSize), Int32(n), scores, Int32(n),
                                    q + 2 * d + h * headSize, Int32(3 * d), nil, o + first * d + h * headSize, Int32(d),
                                    Int32(IB_GEMM_B_KN))
                        }
                    }
                }
            }
        }
    }

    private func linear(_ layer: Linear, _ packed: PackedLinear?, _ input: [Float], _ output: inout [Float], rows: Int,
                        accumulate: Bool = false, gelu: Bool = false) {
        let flags = Int32((accumulate ? IB_GEMM_ACCUMULATE : 0) | (gelu ? IB_GEMM_GELU : 0))
        input.withUnsafeBufferPointer { a in
            output.withUnsafeMutableBufferPointer { c in
                if let packed {
                    packed.apply(rows: rows, a.baseAddress!, lda: layer.inputs, c.baseAddress!, ldc: layer.outputs, flags: flags)
                    return
                }
                gemmRows(rows, layer.outputs, layer.inputs, a.baseAddress!, layer.inputs, layer.weight, layer.bias,
                         c.baseAddress!, layer.outputs, flags)
            }
        }
    }
}

/// C[M, N] = A[M, K] (row stride lda) * W^T + bias, rows split over the cores.
func gemmRows(_ m: Int, _ n: Int, _ k: Int, _ a: UnsafePointer<Float>, _ lda: Int, _ weight: [Float], _ bias: [Float],
              _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ flags: Int32) {
    weight.withUnsafeBufferPointer { w in
        bias.withUnsafeBufferPointer { b in
            Parallel.ranges(m, minimumPerPart: 16) { rows in
                ib_gemm(Int32(rows.count), Int32(n), Int32(k), a + rows.lowerBound * lda, Int32(lda), w.baseAddress!, Int32(k),
                        b.baseAddress, c + rows.lowerBound * ldc, Int32(ldc), flags)
            }
        }
    }
}

/// Buffers reused across the layers of one window.
struct EncoderScratch {
    var normed: [Float]
    var qkv: [Float]
    var context: [Float]
    var ffn: [Float]
    init(positions: Int, width: Int, ffn: Int) {
        normed = [Float](repeating: 0, count: positions * width)
        qkv = [Float](repeating: 0, count: positions * width * 3)
        context = [Float](repeating: 0, count: positions * width)
        self.ffn = [Float](repeating: 0, count: positions * ffn)
    }
}
