// Why an audio file could not be read: one line for people, naming what was
// wrong (the caller prefixes the file). Missing ffmpeg says how to install it.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

public struct AudioError: Error, Sendable, CustomStringConvertible, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static func missingTool(_ tool: String) -> AudioError {
        AudioError("audio needs \(tool), which is not installed (apt-get install ffmpeg, or scripts/install-deps)")
    }

    /// ffmpeg's or ffprobe's failure, in the words of an audio file.
    init(_ error: SubprocessError) {
        switch error.kind {
        case .missingTool: self = .missingTool(error.tool)
        case .stalled: self.init(error.message + " (a file it cannot read to the end)")
        case .tooMuchOutput: self.init(error.message + " about the file (a hostile container)")
        case .system: self.init(error.message)
        }
    }
}

/// ffmpeg and ffprobe, found in IB_FFMPEG_DIR (tests, odd installs) before PATH.
enum AudioTool {
    static func start(_ arguments: [String], stallSeconds: Double) throws(AudioError) -> Subprocess {
        let first = getenv("IB_FFMPEG_DIR").map { [String(cString: $0)] } ?? []
        do { return try Subprocess(arguments, stallSeconds: stallSeconds, searchFirst: first) } catch { throw AudioError(error) }
    }

    static func find(_ tool: String) -> String? {
        Subprocess.find(tool, searchFirst: getenv("IB_FFMPEG_DIR").map { [String(cString: $0)] } ?? [])
    }
}
