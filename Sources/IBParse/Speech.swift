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
