// Errors and exit codes shared by every tool. A tool's main calls
// `runTool`, which prints `tool: message` on stderr and exits with the code.
#if canImport(Glibc)
import Glibc
#endif

/// Exit codes are the same in every tool (see man/man7/ib.7).
public enum ExitCode: Int32, Sendable {
    case ok = 0
    /// Runtime or input error.
    case failure = 1
    /// Bad command line.
    case usage = 2
    /// ib-capture and BOOK lookups: more than one book matches; nothing was written.
    case ambiguous = 3
    /// A provider or the network failed (ib-embed, ib-ask).
    case provider = 4
}

public struct IBError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let code: ExitCode
    public init(_ message: String, code: ExitCode = .failure) {
        self.message = message
        self.code = code
    }
    public var description: String { message }

    public static func usage(_ message: String) -> IBError { IBError(message, code: .usage) }
}

/// Runs a tool's body: errors become one stderr line and an exit code.
public func runTool(_ name: String, _ body: () throws -> Void) -> Never {
    signal(SIGPIPE, SIG_DFL)
    do {
        try body()
        OutputStream.standardOutput.flush()
        exit(ExitCode.ok.rawValue)
    } catch let error as IBError {
        OutputStream.standardOutput.flush()
        printError("\(name): \(error.message)")
        if error.code == .usage { printError("Try '\(name) --help' for more information.") }
        exit(error.code.rawValue)
    } catch {
        OutputStream.standardOutput.flush()
        printError("\(name): \(error)")
        exit(ExitCode.failure.rawValue)
    }
}
