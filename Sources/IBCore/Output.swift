// Buffered writes to a file descriptor. Records go to stdout in 64 KiB
// writes; diagnostics go to stderr at once.
#if canImport(Glibc)
import Glibc
#endif

public final class OutputStream: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let flushAt: Int

    public init(fd: Int32, flushAt: Int = 1 << 16) {
        self.fd = fd
        self.flushAt = flushAt
        buffer.reserveCapacity(flushAt + 4096)
    }

    public static let standardOutput = OutputStream(fd: 1)

    public func write(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushAt { flush() }
    }

    public func write(_ string: String) { write(string.utf8) }

    /// Appends one record line built by `body`, then a newline.
    public func writeLine(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        buffer.append(0x0A)
        if buffer.count >= flushAt { flush() }
    }

    public func writeRecord(_ record: Record, encoding: EmbeddingEncoding = .floats) {
        writeLine { record.write(to: &$0, encoding: encoding) }
    }

    public func writeJSON(_ json: JSON) { writeLine { json.write(to: &$0) } }

    /// Writes a line received from upstream exactly as it was.
    public func writeRaw(_ line: UnsafeBufferPointer<UInt8>) {
        buffer.append(contentsOf: line)
        buffer.append(0x0A)
        if buffer.count >= flushAt { flush() }
    }

    public func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBufferPointer { b in
            var offset = 0
            while offset < b.count {
                let n = Glibc.write(fd, b.baseAddress! + offset, b.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    // The reader went away (`| head`): stop quietly, as cat does.
                    if errno == EPIPE { _exit(ExitCode.failure.rawValue) }
                    let message = "ib: write failed: \(String(cString: strerror(errno)))\n"
                    _ = message.withCString { Glibc.write(2, $0, strlen($0)) }
                    _exit(ExitCode.failure.rawValue)
                }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// One line to stderr, unbuffered.
public func printError(_ message: String) {
    var line = message
    if !line.hasSuffix("\n") { line += "\n" }
    line.withCString { _ = write(2, $0, strlen($0)) }
}

public enum Terminal {
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
    public static var stdinIsTerminal: Bool { isTerminal(0) }
    public static var stdoutIsTerminal: Bool { isTerminal(1) }
    public static var stderrIsTerminal: Bool { isTerminal(2) }
}
