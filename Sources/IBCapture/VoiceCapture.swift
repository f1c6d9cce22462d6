// ib-capture --audio FILE: one spoken line, transcribed, then captured with
// the spoken forms (SpokenLine.swift). The recogniser is handed in by the
// tool (ib-capture's main links IBAudio and IBWhisper; this library does not),
// so everything here is the decision: what was heard is always shown on
// stderr; a transcript the recogniser was unsure of (Whisper's average log
// probability or no-speech probability past the thresholds Whisper itself uses
// to reject a decoding) stores nothing unless --yes.
import IBCore

/// What the recogniser heard in one file: the text of its segments, joined, and
/// how sure it was (the segments' average log probability, weighted by length,
/// and their largest no-speech probability).
public struct HeardLine: Sendable, Equatable {
    public var text: String
    public var averageLogProbability: Double
    public var noSpeechProbability: Double
    /// Seconds of audio.
    public var duration: Double

    public init(text: String, averageLogProbability: Double, noSpeechProbability: Double, duration: Double) {
        self.text = text
        self.averageLogProbability = averageLogProbability
        self.noSpeechProbability = noSpeechProbability
        self.duration = duration
    }
}

/// Transcribes one audio file (path, Whisper folder or nil) or throws an IBError naming it.
/// `books` are the library's, most recent first: the recogniser may expect their names.
public typealias Listener = @Sendable (_ path: String, _ model: String?, _ books: [TitleMatcher.Entry]) throws -> HeardLine

public enum VoiceCapture {
    /// Below this average log probability a transcript is unsure (Whisper's log_prob_threshold).
    public static let minAverageLogProbability = -1.0
    /// Above this no-speech probability the audio is probably no speech (Whisper's no_speech_threshold).
    public static let maxNoSpeechProbability = 0.6
    /// A capture is one spoken line: longer audio is refused before it is transcribed.
    public static let maxSeconds = 120.0

    /// Why a transcript is unsure, or nil when it is not.
    public static func doubt(_ heard: HeardLine) -> String? {
        var reasons: [String] = []
        if heard.averageLogProbability < minAverageLogProbability {
            reasons.append(Messages.text("audio_low_logprob", String(rounded(heard.averageLogProbability)), String(minAverageLogProbability)))
        }
        if heard.noSpeechProbability > maxNoSpeechProbability {
            reasons.append(Messages.text("audio_no_speech", String(rounded(heard.noSpeechProbability)), String(maxNoSpeechProbability)))
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    static func rounded(_ x: Double) -> Double { (x * 100).rounded() / 100 }

    /// Listens to `path`, shows what was heard, and captures it (or, unsure and without
    /// --yes, stores nothing: exit 1). Returns the record printed on stdout.
    public static func capture(_ engine: CaptureEngine, path: String, model: String?, listen: Listener,
                               _ out: OutputStream) throws -> JSON {
        let heard = try listen(path, model, (try? engine.store?.recentBooks()) ?? [])
        let text = TextClasses.trim(heard.text)
        if text.isEmpty { throw IBError(Messages.text("audio_nothing_heard", path)) }
        printError(Messages.text("audio_heard", path, String(rounded(heard.averageLogProbability)),
                                 String(rounded(heard.noSpeechProbability)), TerminalText.safe(text)))
        if let doubt = doubt(heard), !engine.options.yes {
            if engine.options.json {
                out.writeJSON(.object(JSONObject([("type", "low_confidence"), ("audio", .string(path)), ("heard", .string(text)),
                                                  ("avg_logprob", .number(rounded(heard.averageLogProbability))),
                                                  ("no_speech_prob", .number(rounded(heard.noSpeechProbability)))])))
                out.flush()
            }
            throw IBError(Messages.text("audio_low", path, doubt))
        }
        return try CaptureTool.writeCapture(engine, out, adding: [("audio", .string(path)), ("heard", .string(text))]) {
            try engine.capture(spoken: text)
        }
    }
}
