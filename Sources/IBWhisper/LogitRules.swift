// What may be sampled next, as CTranslate2's Whisper decoding (and OpenAI's)
// decides it: suppressed tokens, no blank or end first, and the timestamp
// rules (timestamps come in pairs and never go back; the first token is a
// timestamp no later than 1 s; a timestamp when all timestamps together are
// likelier than any one text token).
import CKernels
import Foundation

struct LogitRules {
    let suppress: [Int]
    let suppressAtBegin: [Int]
    let endOfText: Int
    let noTimestamps: Int
    let timestampBegin: Int
    let withTimestamps: Bool
    let maxInitialTimestamp = 50          // 1.0 s / 0.02 s

    /// Masks `logits` (one hypothesis) for the next token after `generated` (the tokens sampled so far).
    func apply(_ logits: inout [Float], generated: [Int]) {
        let vocabulary = logits.count
        let step = generated.count
        func mask(_ range: Range<Int>) {
            let r = range.clamped(to: 0..<vocabulary)
            for i in r { logits[i] = -.infinity }
        }
        for id in suppress where id < vocabulary { logits[id] = -.infinity }
        if step == 0 { for id in suppressAtBegin where id < vocabulary { logits[id] = -.infinity } }
        guard withTimestamps, timestampBegin < vocabulary else { return }
        logits[noTimestamps] = -.infinity
        var checkTimestampMass = false
        if step == 0 {
            mask(0..<timestampBegin)
            mask((timestampBegin + maxInitialTimestamp + 1)..<vocabulary)
        } else {
            let last = generated[step - 1]
            if last >= timestampBegin {
                let penultimate = step > 1 ? generated[step - 2] : last
                if penultimate >= timestampBegin {
                    mask(timestampBegin..<vocabulary)              // a pair is closed: text next
                } else {
                    mask(0..<endOfText)                            // an open pair: a timestamp or the end next
                    checkTimestampMass = true
                }
            } else {
                checkTimestampMass = true
            }
            if let lastTimestamp = generated.last(where: { $0 >= timestampBegin }) {
                mask(timestampBegin..<lastTimestamp)               // timestamps never go back
            }
        }
        if checkTimestampMass && timestampMassWins(logits) { mask(0..<timestampBegin) }
    }

    /// Whether log(sum of timestamp probabilities) > the largest text token log-probability
    /// (both sides would subtract the same log-sum over all tokens, so neither does).
    private func timestampMassWins(_ logits: [Float]) -> Bool {
        let timestamps = logSumExp(logits[timestampBegin...])
        let bestText = logits[0..<timestampBegin].max() ?? -.infinity
        return timestamps > Double(bestText)
    }
}

/// log(sum(exp(x))), -inf for an empty or all -inf slice (CKernels: vector exp, summed in Double).
func logSumExp(_ x: ArraySlice<Float>) -> Double {
    x.withUnsafeBufferPointer { ib_log_sum_exp($0.baseAddress, Int32($0.count)) }
}
