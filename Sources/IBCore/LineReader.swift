// Reads a byte stream as lines, in large blocks, with bounded memory: a line
// longer than `maxLineBytes` is an error, not an out-of-memory.
#if canImport(Glibc)
import Glibc
#endif

public final class LineReader {
    public let name: String
    private let fd: Int32
    private let ownsFD: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var eof = false
    public private(set) var lineNumber = 0
    public let maxLineBytes: Int
    /// When set, a line longer than `maxLineBytes` is skipped (read through, never
    /// held) and this is called with its number, instead of the read failing: for a
    /// server that answers a bad message and carries on.
    public var onOverlongLine: ((Int) -> Void)?

    /// Opens a file, or standard input for "-".
    public init(path: String, maxLineBytes: Int = LineReader.defaultMaxLineBytes) throws(IBError) {
        if path == "-" {
            fd = 0; ownsFD = false; name = "<stdin>"
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 { throw IBError("\(path): \(String(cString: strerror(errno)))") }
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw IBError("\(path): is a directory")
            }
            ownsFD = true; name = path
        }
        self.maxLineBytes = maxLineBytes
        buffer = [UInt8](repeating: 0, count: 1 << 16)
    }

    /// 64 MiB: far above any real page or chunk, far below trouble.
    public static let defaultMaxLineBytes = 64 << 20

    deinit { if ownsFD { close(fd) } }

    /// Calls `body` with each line's bytes, without the newline or a CR before it.
    /// The first line loses a UTF-8 byte order mark.
    public func forEachLine(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        while true {
            // Find the next newline in what is buffered.
            var scanFrom = start
            while true {
                let newline: Int? = buffer.withUnsafeBufferPointer { b in
                    guard scanFrom < end else { return nil }
                    let p = memchr(b.baseAddress! + scanFrom, 0x0A, end - scanFrom)
                    return p.map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - b.baseAddress! }
                }
                if let newline {
                    try emit(from: start, to: newline, body)
                    start = newline + 1
                    break
                }
                if eof {
                    if start < end { try emit(from: start, to: end, body) }
                    start = end
                    return
                }
                if end - start > maxLineBytes {
                    guard let onOverlongLine else {
                        throw IBError("\(name):\(lineNumber + 1): line is longer than \(maxLineBytes) bytes")
                    }
                    lineNumber += 1
                    let more = try skipRestOfLine()
                    onOverlongLine(lineNumber)
                    if !more { return }
                    break
                }
                let scanned = end - start  // fill() moves pending bytes to the front
                try fill()
                scanFrom = start + scanned
            }
        }
    }

    /// Drops buffered bytes and reads on to the next newline; false at the end of input.
    private func skipRestOfLine() throws(IBError) -> Bool {
        while true {
            start = end
            try fill()
            let newline: Int? = buffer.withUnsafeBufferPointer { b in
                guard start < end else { return nil }
                let p = memchr(b.baseAddress! + start, 0x0A, end - start)
                return p.map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - b.baseAddress! }
            }
            if let newline { start = newline + 1; return true }
            if eof { start = end; return false }
        }
    }

    private func emit(from lineStart: Int, to lineEnd: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        lineNumber += 1
        if lineEnd - lineStart > maxLineBytes, let onOverlongLine {
            onOverlongLine(lineNumber)
            return
        }
        if lineEnd - lineStart > maxLineBytes {
            throw IBError("\(name):\(lineNumber): line is longer than \(maxLineBytes) bytes")
        }
        try buffer.withUnsafeBufferPointer { b in
            var s = lineStart, e = lineEnd
            if lineNumber == 1, e - s >= 3, b[s] == 0xEF, b[s + 1] == 0xBB, b[s + 2] == 0xBF { s += 3 }
            if e > s, b[e - 1] == 0x0D { e -= 1 }
            try body(UnsafeBufferPointer(rebasing: b[s..<e]))
        }
    }

    /// Moves pending bytes to the front and reads more, growing the buffer when a line needs it.
    private func fill() throws(IBError) {
        if start > 0 {
            let pending = end - start
            buffer.withUnsafeMutableBufferPointer { b in
                _ = memmove(b.baseAddress!, b.baseAddress! + start, pending)
            }
            start = 0
            end = pending
        }
        if end == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        let got = buffer.withUnsafeMutableBufferPointer { b in
            var n: Int
            repeat { n = read(fd, b.baseAddress! + end, b.count - end) } while n < 0 && errno == EINTR
            return n
        }
        if got < 0 { throw IBError("\(name): read failed: \(String(cString: strerror(errno)))") }
        if got == 0 { eof = true }
        end += got
    }
}

/// Reads record streams: blank lines are skipped, and a malformed line stops
/// the run with `FILE:LINE: message`.
public struct RecordReader {
    public let lines: LineReader

    public init(path: String) throws(IBError) { lines = try LineReader(path: path) }

    /// Calls `body` with each record and the raw line it came from. `claim`, when
    /// given, sees each line first and may take it whole (a faster reader for
    /// one kind of line): a line it claims is not parsed here. Either way, a
    /// RecordError thrown for a line comes out as `FILE:LINE: message`.
    public func forEach(claim: ((UnsafeBufferPointer<UInt8>) throws -> Bool)? = nil,
                        _ body: (Record, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        try lines.forEachLine { line in
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            if let claim {
                do {
                    if try claim(line) { return }
                } catch let error as RecordError {
                    throw IBError("\(lines.name):\(lines.lineNumber): \(error.message)")
                }
            }
            let record: Record
            do {
                record = try Record(JSON.parse(line))
            } catch let error as JSONParseError {
                throw IBError("\(lines.name):\(lines.lineNumber): malformed JSON: \(error)")
            } catch let error as RecordError {
                throw IBError("\(lines.name):\(lines.lineNumber): \(error.message)")
            }
            do {
                try body(record, line)
            } catch let error as RecordError {
                throw IBError("\(lines.name):\(lines.lineNumber): \(error.message)")
            }
        }
    }

    /// Reads every file in turn ("-" for stdin); no files means stdin.
    public static func forEach(paths: [String], _ body: (Record, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        for path in paths.isEmpty ? ["-"] : paths {
            try RecordReader(path: path).forEach(body)
        }
    }
}
