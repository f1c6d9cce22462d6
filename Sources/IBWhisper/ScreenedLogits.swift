// The output projection of a greedy step at half the memory traffic, with the
// same argmax as the exact one. A first pass scores every token with int8:
// the hidden state x quantised with one scale s_x (as ib_gemm_i8 does), the
// embedding's rows as packed int8 codes q_j with scales s_j (20 MB instead of
// 40 MB of fp16; AVX-512 VNNI where the CPU has it). The approximate score
// differs from the exact x . w_j by at most
//   |x . (w_j - s_j q_j)| + |(x - x^) . s_j q_j| <= 0.51 s_j (sum|x| + s_x sum|q_j|)
// (rounding moves each weight and each activation by at most half a step; the
// extra 1%, a relative 1e-5 and 1e-4 cover fp32 rounding). Every token whose
// upper bound reaches the best lower bound is then scored exactly from the fp16
// row, as are all special and timestamp tokens. So the largest logit, and the
// timestamp rule's comparison, are exact; only tokens that cannot win keep
// approximate scores (they only enter sums of probabilities, i.e. avg_logprob,
// which can move in its fourth decimal).
import CKernels
import IBModel
import Foundation

extension WhisperDecoder {
    /// Logits of one hidden row [width]: exact from `exactFrom` on, and for every token
    /// below it that is not `excluded` and could be the largest.
    func screenedLogits(hidden x: [Float], exactFrom: Int, excluded: [Bool]) -> [Float] {
        let w = weights, d = w.width, vocabulary = w.vocabularySize
        var out = [Float](repeating: 0, count: vocabulary)
        let blocks = (vocabulary + 15) / 16
        x.withUnsafeBufferPointer { xs in
            w.tokenEmbedding16.withUnsafeBufferPointer { halves in
                out.withUnsafeMutableBufferPointer { o in
                    let xp = xs.baseAddress!, hp = halves.baseAddress!, op = o.baseAddress!
                    Parallel.ranges(blocks, minimumPerPart: 256) { part in
                        let columns = (part.lowerBound * 16)..<min(vocabulary, part.upperBound * 16)
                        w.tokenEmbedding8.multiply(rows: 1, xp, lda: d, bias: nil, op, ldc: vocabulary, flags: 0, columns: columns)
                        let exact = min(columns.upperBound, max(columns.lowerBound, exactFrom))..<columns.upperBound
                        if !exact.isEmpty {
                            ib_gemv_f16(1, Int32(exact.count), Int32(d), xp, Int32(d), hp + exact.lowerBound * d, Int32(d),
                                        nil, op + exact.lowerBound, Int32(vocabulary), 0)
                        }
                    }
                }
            }
        }
        var l1: Float = 0, top: Float = 0
        for v in x { l1 += abs(v); top = max(top, abs(v)) }
        let activationStep = top / 127
        let scales = w.tokenEmbeddingScales, codeSums = w.tokenEmbeddingCodeSums
        func bound(_ j: Int) -> Float { 0.51 * scales[j] * (l1 + activationStep * codeSums[j]) + 1e-5 * abs(out[j]) + 1e-4 }
        var floor = -Float.infinity
        for j in 0..<exactFrom where !excluded[j] { floor = max(floor, out[j] - bound(j)) }
        for j in 0..<exactFrom where !excluded[j] && out[j] + bound(j) >= floor {
            w.tokenEmbedding16.withUnsafeBufferPointer { halves in
                ib_gemv_f16(1, 1, Int32(d), x, Int32(d), halves.baseAddress! + j * d, Int32(d), nil, &out[j], 1, 0)
            }
        }
        return out
    }
}
