// What ib-parse needs from a speech recogniser: pull 16 kHz mono samples,
// emit timed text. IBParse does not link the model: the ib-parse tool hands
// a factory in (IBWhisper's Transcriber behind it), so the library stays small
// and the model is loaded only when audio comes.

/// A recogniser over a stream of 16 kHz mono samples.
public protocol SpeechRecognizer: AnyObject {
    /// Pulls samples from `next` until it returns nil and emits what was said, in time order.
    func transcribe(next: () throws -> [Float]?, emit: (SpeechPiece) throws -> Void) throws
    /// Names the model in messages ("whisper-tiny.en").
    var modelName: String { get }
}

/// Makes the recogniser, given --model (nil: the default place). Throws when the model is missing,
/// with a line saying how to fetch it.
public typealias SpeechRecognizerFactory = @Sendable (_ modelDirectory: String?) throws -> any SpeechRecognizer

/// The recogniser made once for all of a run's audio inputs (the model loads once).
final class RecognizerCache: @unchecked Sendable {
    // @unchecked: ib-parse reads its inputs one after another on one thread.
    private let make: SpeechRecognizerFactory
    private var made: (directory: String?, recognizer: any SpeechRecognizer)?
    init(_ make: @escaping SpeechRecognizerFactory) { self.make = make }

    func recognizer(_ directory: String?) throws -> any SpeechRecognizer {
        if let made, made.directory == directory { return made.recognizer }
        let recognizer = try make(directory)
        made = (directory, recognizer)
        return recognizer
    }
}
