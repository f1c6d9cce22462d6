// Decoding one 30 s window: the prompt (previous text, start of transcript,
// language and task on multilingual models), the no-speech probability at the
// start-of-transcript position, then greedy or beam search under the logit rules.
import Foundation

struct WindowResult {
    var tokens: [Int]                 // sampled tokens, without the final end of text
    var sumLogProbability: Double     // including the end of text, as the reference scores it
    var noSpeechProbability: Double
    var averageLogProbability: Double { sumLogProbability / Double(tokens.count + 1) }
}

struct WindowDecoder {
    let decoder: WhisperDecoder
    let rules: LogitRules
    let maxTextPositions: Int

    func decode(prompt: [Int], startOfTranscriptIndex: Int, noSpeechToken: Int, beamSize: Int) -> WindowResult {
        let t0 = Trace.enabled ? Trace.cpuSeconds() : 0
        let cache = decoder.makeCache()
        let hidden = decoder.forward(tokens: prompt, cache: cache)
        if Trace.enabled { Trace.write("prompt of \(prompt.count): \(Trace.cpuSeconds() - t0) cpu s") }
        let d = decoder.weights.width
        let sotRow = Array(hidden[(startOfTranscriptIndex * d)..<((startOfTranscriptIndex + 1) * d)])
        let sotLogits = decoder.logits(hidden: sotRow, rows: 1)
        let noSpeech = exp(Double(sotLogits[noSpeechToken]) - logSumExp(sotLogits[...]))
        let lastRow = Array(hidden[((prompt.count - 1) * d)...])
        let first = startOfTranscriptIndex == prompt.count - 1 ? sotLogits : decoder.logits(hidden: lastRow, rows: 1)
        // CTranslate2: at most half the text positions, and never past the last one.
        let maxNew = min(maxTextPositions / 2, maxTextPositions - (prompt.count - 1))
        if beamSize > 1 {
            return BeamSearch(decoder: decoder, rules: rules, beamSize: beamSize)
                .run(firstLogits: first, cache: cache, maxNew: maxNew, noSpeech: noSpeech)
        }
        return greedy(firstLogits: first, cache: cache, maxNew: maxNew, noSpeech: noSpeech)
    }

    private func greedy(firstLogits: [Float], cache: SelfAttentionCache, maxNew: Int, noSpeech: Double) -> WindowResult {
        var logits = firstLogits
        var generated: [Int] = []
        var excluded = [Bool](repeating: false, count: logits.count)
        for id in rules.suppress where id < excluded.count { excluded[id] = true }
        var sum = 0.0
        var clock = StepClock()
        defer { Trace.write("greedy steps \(generated.count): forward \(clock.forward) cpu s, logits \(clock.logits) cpu s") }
        for step in 0..<maxNew {
            rules.apply(&logits, generated: generated)
            var best = 0
            for i in 1..<logits.count where logits[i] > logits[best] { best = i }
            sum += Double(logits[best]) - logSumExp(logits[...])
            if best == rules.endOfText { break }
            generated.append(best)
            if step == maxNew - 1 { break }
            let hidden = clock.time(\.forward) { decoder.forward(tokens: [best], cache: cache) }
            logits = clock.time(\.logits) { decoder.screenedLogits(hidden: hidden, exactFrom: rules.endOfText, excluded: excluded) }
        }
        return WindowResult(tokens: generated, sumLogProbability: sum, noSpeechProbability: noSpeech)
    }
}
