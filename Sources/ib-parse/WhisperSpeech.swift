// ib-parse's speech recogniser: IBWhisper's Transcriber behind IBParse's
// SpeechRecognizer, loaded only when an audio input comes (the model is 75 MB).
import IBParse
import IBWhisper

final class WhisperSpeech: SpeechRecognizer {
    let model: WhisperModel
    let transcriber: Transcriber

    init(modelDirectory: String?) throws {
        guard let directory = WhisperModel.locate(explicit: modelDirectory) else {
            throw ParseError("the Whisper model has no place: set --model, $IB_WHISPER_DIR or $HOME")
        }
        do {
            model = try WhisperModel(directory: directory)
        } catch {
            throw ParseError("the Whisper model in \(directory) cannot be loaded (\(error)); fetch it with scripts/fetch-model whisper, or give --model DIR")
        }
        transcriber = Transcriber(model: model)
    }

    var modelName: String { model.name }

    func transcribe(next: () throws -> [Float]?, emit: (SpeechPiece) throws -> Void) throws {
        try transcriber.transcribe(next: next) { segment in
            try emit(SpeechPiece(start: segment.start, end: segment.end, text: segment.text))
        }
    }

    /// The factory ParseCommand calls for the first audio input.
    static let factory: SpeechRecognizerFactory = { directory in try WhisperSpeech(modelDirectory: directory) }
}
