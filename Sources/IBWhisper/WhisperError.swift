// The errors of IBWhisper: each carries one line that names the file or option.
public enum WhisperError: Error, CustomStringConvertible, Sendable {
    case model(String)      // the model folder or one of its files
    case audio(String)      // an audio file that cannot be read
    case argument(String)   // an option value that makes no sense

    public var description: String {
        switch self {
        case .model(let line), .audio(let line), .argument(let line): return line
        }
    }
}
