// The recogniser behind ib-capture --audio: the file probed and decoded by
// ffmpeg (IBAudio), transcribed by Whisper run natively (IBWhisper). It only
// hears; IBCapture's VoiceCapture decides what to store. Every failure is one
// line naming the file (exit 1).
import IBAudio
import IBCapture
import IBCore
import IBWhisper

enum WhisperListener {
    /// A capture line is a few seconds: a beam of 5 (faster-whisper's default) costs little there and
    /// heard more of the spoken set than greedy decoding ("At 1-2-30" where greedy wrote "1-2-3rd").
    static let beamSize = 5

    static let listen: Listener = { path, model, books in try hear(path, model: model, books: books) }

    static func hear(_ path: String, model: String?, books: [TitleMatcher.Entry]) throws -> HeardLine {
        guard FileSystem.exists(path) else { throw IBError("\(path): no such file") }
        guard !FileSystem.isDirectory(path) else { throw IBError("\(path): a directory, not an audio file") }
        let info: AudioInfo
        do { info = try AudioProbe.probe(path: path) } catch { throw IBError("\(path): \(error)") }
        if info.duration > VoiceCapture.maxSeconds { throw tooLong(path, info.duration) }
        let directory = WhisperModel.locate(explicit: model) ?? ""
        guard FileSystem.exists(directory + "/model.bin") else { throw IBError(Messages.text("audio_no_model", directory)) }
        let whisper: WhisperModel
        do { whisper = try WhisperModel(directory: directory) } catch { throw IBError("\(error)") }
        let samples = try decode(path, claimed: info.duration)
        let segments: [SpokenSegment]
        var options = TranscribeOptions()
        options.initialPrompt = ListeningPrompt.text(books: books, tokenizer: whisper.tokenizer)
        options.beamSize = beamSize
        do { segments = try Transcriber(model: whisper, options: options).transcribe(samples: samples) } catch { throw IBError("\(path): \(error)") }
        return combine(segments, duration: Double(samples.count) / Double(AudioDecoder.sampleRate))
    }

    /// The whole file as 16 kHz samples; never more than VoiceCapture.maxSeconds of them
    /// (a container that lies about its duration is stopped there).
    static func decode(_ path: String, claimed: Double) throws -> [Float] {
        let limit = Int(VoiceCapture.maxSeconds) * AudioDecoder.sampleRate
        var samples: [Float] = []
        do {
            let decoder = try AudioDecoder(path: path)
            decoder.expectedDuration = claimed
            while let block = try decoder.read(maxSamples: AudioDecoder.sampleRate * 10) {
                samples += block
                if samples.count > limit { decoder.cancel(); throw tooLong(path, Double(samples.count) / Double(AudioDecoder.sampleRate)) }
            }
        } catch let e as IBError { throw e } catch { throw IBError("\(path): \(error)") }
        return samples
    }

    static func tooLong(_ path: String, _ seconds: Double) -> IBError {
        IBError(Messages.text("audio_too_long", path, Int(seconds.rounded()), Int(VoiceCapture.maxSeconds)))
    }

    /// One line from the segments: their text joined; their log probability averaged by
    /// length (tokens, else seconds); the largest no-speech probability.
    static func combine(_ segments: [SpokenSegment], duration: Double) -> HeardLine {
        var text = ""
        var weighted = 0.0, weights = 0.0, noSpeech = 0.0
        for s in segments {
            let t = TextClasses.trim(s.text)
            if t.isEmpty { continue }
            text += (text.isEmpty ? "" : " ") + t
            let w = s.tokens.isEmpty ? max(0.1, s.end - s.start) : Double(s.tokens.count)
            weighted += s.averageLogProbability * w
            weights += w
            noSpeech = max(noSpeech, s.noSpeechProbability)
        }
        return HeardLine(text: text, averageLogProbability: weights > 0 ? weighted / weights : 0,
                         noSpeechProbability: noSpeech, duration: duration)
    }
}
