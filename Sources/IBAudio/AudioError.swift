// Why an audio file could not be read: one line for people, naming what was
// wrong (the caller prefixes the file). Missing ffmpeg says how to install it.
public struct AudioError: Error, Sendable, CustomStringConvertible, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static func missingTool(_ tool: String) -> AudioError {
        AudioError("audio needs \(tool), which is not installed (apt-get install ffmpeg, or scripts/install-deps)")
    }
}
