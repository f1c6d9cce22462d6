// Collects an input of unknown length (standard input, a device, a download)
// without letting its size decide ib-parse's memory: the first 64 MiB stay in
// memory, which is all a text, Markdown or HTML document may be; past that the
// input must be a PDF or ZIP container, and it goes on into an unlinked file in
// $TMPDIR, which is then mapped (InputBytes). Nothing is left on disk.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

final class Spool {
    private var head: [UInt8] = []
    private var file: Int32 = -1
    private(set) var count = 0
    private var directory = ""

    /// `expected`: the input's size when known (a regular file), so memory is taken once.
    init(expected: Int = 0) { head.reserveCapacity(min(max(expected, 0), InputSource.maxTextBytes)) }

    deinit { if file >= 0 { close(file) } }

    func append(_ chunk: UnsafeBufferPointer<UInt8>) throws(ParseError) {
        if file < 0 && head.count + chunk.count <= InputSource.maxTextBytes {
            head.append(contentsOf: chunk)
        } else {
            if file < 0 { try openFile(first: chunk) }
            try write(chunk)
        }
        count += chunk.count
        if count > InputSource.maxFileBytes { throw ParseError("input is too large (over \(InputSource.maxFileBytes >> 30) GiB)") }
    }

    /// Reads `fd` to its end into the spool.
    func read(from fd: Int32) throws(ParseError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw ParseError(String(cString: strerror(errno)).lowercased()) }
            if n == 0 { return }
            try buffer.withUnsafeBufferPointer { (b) throws(ParseError) in try append(UnsafeBufferPointer(rebasing: b[0..<n])) }
        }
    }

    func finish() throws(ParseError) -> InputBytes {
        if file < 0 { return InputBytes(head) }
        return try InputBytes(mapping: file, size: count, name: "the spooled input")
    }

    /// Going past memory: only a container may, and what is in memory moves to the file first.
    private func openFile(first chunk: UnsafeBufferPointer<UInt8>) throws(ParseError) {
        let start = head.count >= 5 ? Array(head.prefix(5)) : Array((head + Array(chunk)).prefix(5))
        if !InputSource.isContainer(start) {
            throw ParseError("input is too large for a text, Markdown or HTML document (over \(InputSource.maxTextBytes >> 20) MiB)")
        }
        directory = Config.environment("TMPDIR") ?? "/tmp"
        var template = Array("\(directory)/ib-parse-spool-XXXXXX".utf8CString)
        file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if file < 0 { throw failure() }
        _ = fcntl(file, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        try head.withUnsafeBufferPointer { (b) throws(ParseError) in try write(b) }
        head = []
    }

    private func write(_ chunk: UnsafeBufferPointer<UInt8>) throws(ParseError) {
        var done = 0
        while done < chunk.count {
            let n = Glibc.write(file, chunk.baseAddress! + done, chunk.count - done)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw failure() }
            done += n
        }
    }

    private func failure() -> ParseError {
        ParseError("cannot spool the input to \(directory) (\(String(cString: strerror(errno)).lowercased()))")
    }
}
