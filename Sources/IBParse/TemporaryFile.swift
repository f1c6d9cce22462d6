// Bytes in a file ffmpeg can open by name: audio that came on stdin or from a
// URL. The file is in TMPDIR (default /tmp) and removed when this goes away.
#if canImport(Glibc)
import Glibc
#endif

final class TemporaryFile {
    let path: String

    init(_ bytes: InputBytes) throws(ParseError) {
        let dir = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(dir)/ib-parse-audio-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        if fd < 0 { throw ParseError("cannot create a temporary file in \(dir): \(String(cString: strerror(errno)))") }
        path = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { close(fd) }
        var failed = false
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 { if errno == EINTR { continue }; failed = true; return }
                offset += n
            }
        }
        if failed {
            unlink(path)
            throw ParseError("cannot write a temporary file in \(dir): \(String(cString: strerror(errno)))")
        }
    }

    deinit { unlink(path) }
}
