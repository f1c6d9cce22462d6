// Beam search over one window, after CTranslate2's: keep the beamSize best
// partial hypotheses by summed log-probability; a candidate among the best
// beamSize that samples the end of text is finished and ranked by its sum
// divided by its length (length penalty 1); stop when the best candidate ends
// or beamSize hypotheses are finished (patience 1).
import Foundation

struct BeamSearch {
    let decoder: WhisperDecoder
    let rules: LogitRules
    let beamSize: Int

    private struct Hypothesis {
        var tokens: [Int]
        var sum: Double
    }

    func run(firstLogits: [Float], cache: SelfAttentionCache, maxNew: Int, noSpeech: Double) -> WindowResult {
        var beams = [Hypothesis(tokens: [], sum: 0)]
        var caches = [cache]
        var spare: [SelfAttentionCache] = []      // caches no hypothesis holds, reused before new ones are made
        var logitRows = [firstLogits]
        var finished: [(Hypothesis, Double)] = []
        for step in 0..<maxNew {
            var candidates: [(beam: Int, token: Int, sum: Double)] = []
            for (b, beam) in beams.enumerated() {
                var logits = logitRows[b]
                rules.apply(&logits, generated: beam.tokens)
                let total = logSumExp(logits[...])
                for (token, score) in topK(logits, 2 * beamSize) {
                    candidates.append((b, token, beam.sum + Double(score) - total))
                }
            }
            candidates.sort { $0.sum > $1.sum }
            var next: [Hypothesis] = [], parents: [Int] = []
            let topBeamFinished = candidates.first?.token == rules.endOfText
            for (rank, candidate) in candidates.enumerated() {
                let tokens = beams[candidate.beam].tokens
                if candidate.token == rules.endOfText && rank >= beamSize { continue }   // only the best beamSize may end
                if candidate.token == rules.endOfText || step == maxNew - 1 {
                    let hypothesis = Hypothesis(tokens: candidate.token == rules.endOfText ? tokens : tokens + [candidate.token],
                                                sum: candidate.sum)
                    finished.append((hypothesis, candidate.sum / Double(max(1, hypothesis.tokens.count))))
                } else if next.count < beamSize {
                    next.append(Hypothesis(tokens: tokens + [candidate.token], sum: candidate.sum))
                    parents.append(candidate.beam)
                }
                if next.count == beamSize && finished.count >= beamSize { break }
            }
            if topBeamFinished || finished.count >= beamSize || next.isEmpty { break }
            // A parent's cache goes to its first child as it is; only further children copy it
            // (before any child's step writes to it), and caches left without a child are kept for later.
            var taken = [Bool](repeating: false, count: caches.count)
            var current: [SelfAttentionCache] = []
            for parent in parents {
                if !taken[parent] { taken[parent] = true; current.append(caches[parent]); continue }
                let copy = spare.popLast() ?? decoder.makeCache()
                copy.copy(from: caches[parent], width: decoder.weights.width)
                current.append(copy)
            }
            for (b, cache) in caches.enumerated() where !taken[b] { spare.append(cache) }
            caches = current
            beams = next
            let hidden = decoder.forward(rows: beams.map { [$0.tokens.last!] }, caches: caches)
            let all = decoder.beamLogits(hidden: hidden, rows: beams.count)
            let vocabulary = decoder.weights.vocabularySize
            logitRows = (0..<beams.count).map { Array(all[($0 * vocabulary)..<(($0 + 1) * vocabulary)]) }
        }
        let best = finished.max { $0.1 < $1.1 }?.0 ?? beams[0]
        return WindowResult(tokens: best.tokens, sumLogProbability: best.sum, noSpeechProbability: noSpeech)
    }

    /// The k largest finite values and their indices, best first.
    private func topK(_ x: [Float], _ k: Int) -> [(Int, Float)] {
        var top: [(Int, Float)] = []
        for (i, v) in x.enumerated() where v > -.infinity {
            if top.count < k { top.append((i, v)); top.sort { $0.1 > $1.1 } }
            else if v > top[k - 1].1 { top[k - 1] = (i, v); top.sort { $0.1 > $1.1 } }
        }
        return top
    }
}
