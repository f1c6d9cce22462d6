// The output projection of a greedy step at half the memory traffic, with the
// same argmax as the exact one. A first pass scores every text token with int8
// codes of the embedding (20 MB instead of 40 MB of fp16); each approximate
// score is within 0.51 * scale * sum|x| of the exact one (rounding to int8 moves
// each weight by at most half a scale step; the extra 1% covers fp32 rounding).
// Every token whose upper bound reaches the best lower bound is then scored
// exactly from the fp16 row, as are all special and timestamp tokens. So the
// largest logit, and the timestamp rule's comparison, are exact; only tokens
// that cannot win keep approximate scores (they only enter sums of
// probabilities, i.e. avg_logprob, where the difference is far below printing).
import CKernels
import Foundation

extension WhisperDecoder {
    /// Logits of one hidden row [width]: exact from `exactFrom` on, and for every token
    /// below it that is not `excluded` and could be the largest.
    func screenedLogits(hidden x: [Float], exactFrom: Int, excluded: [Bool]) -> [Float] {
        let w = weights, d = w.width, vocabulary = w.vocabularySize
        var out = [Float](repeating: 0, count: vocabulary)
        x.withUnsafeBufferPointer { xs in
            w.tokenEmbedding8.withUnsafeBufferPointer { codes in
                w.tokenEmbedding16.withUnsafeBufferPointer { halves in
                    w.tokenEmbeddingScales.withUnsafeBufferPointer { scales in
                        out.withUnsafeMutableBufferPointer { o in
                            let xp = xs.baseAddress!, cp = codes.baseAddress!, hp = halves.baseAddress!
                            let sp = scales.baseAddress!, op = o.baseAddress!
                            Parallel.ranges(vocabulary, minimumPerPart: 4096) { columns in
                                let approximate = columns.lowerBound..<max(columns.lowerBound, min(columns.upperBound, exactFrom))
                                if !approximate.isEmpty {
                                    ib_gemv_i8(Int32(approximate.count), Int32(d), xp, cp + approximate.lowerBound * d, Int32(d),
                                               sp + approximate.lowerBound, op + approximate.lowerBound)
                                }
                                let exact = min(columns.upperBound, max(columns.lowerBound, exactFrom))..<columns.upperBound
                                if !exact.isEmpty {
                                    ib_gemv_f16(1, Int32(exact.count), Int32(d), xp, Int32(d), hp + exact.lowerBound * d, Int32(d),
                                                nil, op + exact.lowerBound, Int32(vocabulary), 0)
                                }
                            }
                        }
                    }
                }
            }
        }
        let l1 = x.reduce(Float(0)) { $0 + abs($1) }
        func bound(_ j: Int) -> Float { 0.51 * w.tokenEmbeddingScales[j] * l1 + 1e-4 }
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
