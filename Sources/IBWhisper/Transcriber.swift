// Long-form transcription as faster-whisper does it (greedy or beam, no
// temperature fallback, conditioned on the previous text): 30 s windows of
// log-mel features; each window is decoded with timestamps, cut into segments
// at pairs of timestamps, and the next window starts at the last complete
// timestamp (or after the window when the text ends with a single timestamp).
// A window whose no-speech probability is above 0.6 while its average
// log-probability is below -1 is silence: skipped, nothing emitted. One rule
// is ours: a window whose samples are digital silence (RMS below -70 dBFS) is
// skipped without running the model, where Whisper would invent " you".
//
// Audio comes in blocks from `next`; only the current window and a look-ahead
// are kept, so a 10-hour file takes the memory of a minute of audio. When the
// whole audio fits in the look-ahead (a spoken line, a clip), the features are
// normalised by the maximum over all of it, exactly as the reference does; a
// longer stream is normalised by the maximum seen so far (it only moves the
// floor of near-silent frames).
import Foundation

public final class Transcriber {
    public let model: WhisperModel
    public let options: TranscribeOptions
    private let frontEnd: LogMel
    private let encoder: WhisperEncoder
    private var decoder: WhisperDecoder
    private let rules: LogitRules
    private let startSequence: [Int]

    static let noSpeechThreshold = 0.6
    static let logProbabilityThreshold = -1.0
    static let secondsPerFrame = 0.01
    static let secondsPerTimestamp = 0.02
    static let lookAheadSamples = 60 * LogMel.sampleRate

    public init(model: WhisperModel, options: TranscribeOptions = .init()) {
        self.model = model
        self.options = options
        frontEnd = LogMel(melBins: model.weights.melBins)
        let int8 = options.compute == .int8 ? Int8Weights(model.weights) : nil
        encoder = WhisperEncoder(weights: model.weights, int8: int8)
        decoder = WhisperDecoder(weights: model.weights, int8: int8)
        let t = model.tokenizer
        rules = LogitRules(suppress: model.suppressTokens, suppressAtBegin: model.suppressAtBegin, endOfText: t.endOfText,
                           noTimestamps: t.noTimestamps, timestampBegin: t.timestampBegin, withTimestamps: options.withTimestamps)
        var start = [t.startOfTranscript]
        if model.isMultilingual {
            let language = t.id(of: "<|\(options.language ?? "en")|>") ?? t.id(of: "<|en|>")
            if let language { start.append(language) }
            start.append(t.transcribe)
        }
        startSequence = start
    }

    /// Checks options against the model: one line naming the option when they cannot work.
    public static func validate(_ options: TranscribeOptions, model: WhisperModel) throws {
        guard (1...16).contains(options.beamSize) else {
            throw WhisperError.argument("--beam: \(options.beamSize) is not a beam size from 1 to 16")
        }
        if let language = options.language {
            if !model.isMultilingual && language != "en" {
                throw WhisperError.argument("--language: \(model.name) is English-only; use a multilingual model with --model for \(language)")
            }
            if model.isMultilingual && model.tokenizer.id(of: "<|\(language)|>") == nil {
                throw WhisperError.argument("--language: \(language) is not a language of \(model.name)")
            }
        }
    }

    public func transcribe(samples: [Float]) throws -> [SpokenSegment] {
        var segments: [SpokenSegment] = []
        var given = false
        try transcribe(next: { () -> [Float]? in
            if given { return nil }
            given = true
            return samples
        }, emit: { segments.append($0) })
        return segments
    }

    public func transcribe(next: () throws -> [Float]?, emit: (SpokenSegment) throws -> Void) throws {
        try withoutActuallyEscaping(next) { next in try run(next: next, emit: emit) }
    }

    private func run(next: @escaping () throws -> [Float]?, emit: (SpokenSegment) throws -> Void) throws {
        var audio = AudioWindowBuffer(frontEnd: frontEnd, next: next)
        try audio.fill(untilSample: Self.lookAheadSamples)
        var seek = 0
        var allTokens = initialPromptTokens()
        while true {
            try audio.fill(untilSample: (seek + LogMel.framesPerWindow) * LogMel.hop + Self.lookAheadSamples)
            audio.discard(beforeFrame: seek)
            let contentFrames = audio.contentFramesIfKnown ?? Int.max
            if seek >= contentFrames { break }
            let segmentSize = min(LogMel.framesPerWindow, contentFrames - seek)
            if audio.isDigitalSilence(firstFrame: seek, frames: segmentSize) {
                seek += segmentSize      // nothing to hear: Whisper would only make up a " you"
                continue
            }
            let features = audio.features(first: seek, count: segmentSize, padTo: LogMel.framesPerWindow)
            let t0 = Trace.enabled ? Trace.cpuSeconds() : 0
            let encoded = encoder.encode(mel: features)
            let t1 = Trace.enabled ? Trace.cpuSeconds() : 0
            decoder.attend(to: encoded)
            let t2 = Trace.enabled ? Trace.cpuSeconds() : 0
            let result = decodeWindow(previous: allTokens)
            if Trace.enabled {
                Trace.write("window at frame \(seek): encode \(t1 - t0), cross keys \(t2 - t1), decode \(Trace.cpuSeconds() - t2) cpu s; \(result.tokens.count) tokens, prompt \(min(allTokens.count, 223))")
            }
            if result.noSpeechProbability > Self.noSpeechThreshold && !(result.averageLogProbability > Self.logProbabilityThreshold) {
                seek += segmentSize
                continue
            }
            let timeOffset = Double(seek) * Self.secondsPerFrame
            let (pieces, nextSeek) = split(result.tokens, seek: seek, segmentSize: segmentSize, timeOffset: timeOffset)
            for piece in pieces {
                let text = model.tokenizer.decode(piece.tokens)
                if piece.start == piece.end || text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { continue }
                allTokens += piece.tokens
                try emit(SpokenSegment(start: piece.start, end: piece.end, text: text,
                                       averageLogProbability: result.averageLogProbability,
                                       noSpeechProbability: result.noSpeechProbability, tokens: piece.tokens))
            }
            seek = nextSeek
            if allTokens.count > 4 * model.weights.textPositions {     // prompts use only the last 223: memory stays flat
                allTokens.removeFirst(allTokens.count - model.weights.textPositions)
            }
        }
        Trace.write("transcribed: \(Trace.cpuSeconds()) cpu s in the process, \(Trace.threadSeconds()) on the calling thread")
    }

    /// The initial prompt as faster-whisper encodes it: a space, then the trimmed text; it leads the
    /// previous text, so the first window's prompt is its last 223 tokens.
    private func initialPromptTokens() -> [Int] {
        guard let text = options.initialPrompt?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return [] }
        return model.tokenizer.encode(" " + text)
    }

    private func decodeWindow(previous: [Int]) -> WindowResult {
        var prompt: [Int] = []
        let maxTextPositions = model.weights.textPositions
        if !previous.isEmpty {
            prompt.append(model.tokenizer.startOfPrevious)
            prompt += previous.suffix(maxTextPositions / 2 - 1)
        }
        let sotIndex = prompt.count
        prompt += startSequence
        if !options.withTimestamps { prompt.append(model.tokenizer.noTimestamps) }
        return WindowDecoder(decoder: decoder, rules: rules, maxTextPositions: maxTextPositions)
            .decode(prompt: prompt, startOfTranscriptIndex: sotIndex, noSpeechToken: model.tokenizer.noSpeech,
                    beamSize: options.beamSize)
    }

    private struct Piece { var start: Double; var end: Double; var tokens: [Int] }

    /// Cuts a window's tokens at consecutive timestamps; returns the pieces and where the next window starts.
    private func split(_ tokens: [Int], seek: Int, segmentSize: Int, timeOffset: Double) -> ([Piece], Int) {
        let begin = model.tokenizer.timestampBegin
        func time(_ token: Int) -> Double { timeOffset + Double(token - begin) * Self.secondsPerTimestamp }
        let singleTimestampEnding = tokens.count >= 2 && tokens[tokens.count - 2] < begin && tokens[tokens.count - 1] >= begin
        let consecutive = tokens.indices.filter { $0 > 0 && tokens[$0] >= begin && tokens[$0 - 1] >= begin }
        if !consecutive.isEmpty {
            var slices = consecutive
            if singleTimestampEnding { slices.append(tokens.count) }
            var pieces: [Piece] = []
            var last = 0
            for current in slices {
                let sliced = Array(tokens[last..<current])
                pieces.append(Piece(start: time(sliced[0]), end: time(sliced[sliced.count - 1]), tokens: sliced))
                last = current
            }
            if singleTimestampEnding { return (pieces, seek + segmentSize) }
            return (pieces, seek + (tokens[last - 1] - begin) * 2)
        }
        var duration = Double(segmentSize) * Self.secondsPerFrame
        if let lastTimestamp = tokens.last(where: { $0 >= begin }), lastTimestamp != begin {
            duration = Double(lastTimestamp - begin) * Self.secondsPerTimestamp
        }
        return ([Piece(start: timeOffset, end: timeOffset + duration, tokens: tokens)], seek + segmentSize)
    }
}
