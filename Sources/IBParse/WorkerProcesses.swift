// PDF pages are read in forked children: poppler is not shared between threads
// without its global locks, and a crash on a hostile page loses only that
// child's pages. Each child does its share and sends records back through a
// pipe as it goes; the parent reads every pipe as data arrives, so no child
// waits on a full pipe. Records are little-endian Int32s and byte strings.
#if canImport(Glibc)
import Glibc
#endif

enum WorkerProcesses {
    /// Runs `work(share, send)` in one forked child per share and returns the bytes each
    /// sent, in share order; nil for a share whose child could not start (the caller
    /// then does it itself). A child that dies keeps what it sent before.
    static func run(shares: Int, _ work: (_ share: Int, _ send: ([UInt8]) -> Void) -> Void) -> [[UInt8]?] {
        var children: [(share: Int, pid: pid_t, fd: Int32)] = []
        for share in 0..<shares {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { continue }
            let pid = fork()
            if pid == 0 {
                close(fds[0])
                work(share) { bytes in writeAll(fds[1], bytes) }
                _exit(0)
            }
            close(fds[1])
            if pid < 0 { close(fds[0]); continue }
            children.append((share, pid, fds[0]))
        }
        var received = [[UInt8]?](repeating: nil, count: shares)
        for child in children { received[child.share] = [] }
        var open = Set(children.indices)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while !open.isEmpty {
            let order = open.sorted()
            var polls = order.map { pollfd(fd: children[$0].fd, events: Int16(POLLIN), revents: 0) }
            if poll(&polls, nfds_t(polls.count), -1) < 0 { if errno == EINTR { continue }; break }
            for (k, index) in order.enumerated() where polls[k].revents != 0 {
                let n = read(children[index].fd, &chunk, chunk.count)
                if n > 0 { received[children[index].share]!.append(contentsOf: chunk[..<n]) }
                else if n == 0 || errno != EINTR { open.remove(index) }
            }
        }
        for child in children {
            close(child.fd)
            var status: Int32 = 0
            while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        }
        return received
    }

    /// In a child: the whole buffer written, or the child ends (its parent keeps what came).
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n <= 0 { if n < 0 && errno == EINTR { continue }; _exit(1) }
            offset += n
        }
    }
}

/// Builds one record: Int32s and strings (length first, -1 for none).
struct WorkerRecord {
    private(set) var bytes: [UInt8] = []
    mutating func put(_ v: Int32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func put(_ s: String?) {
        guard let s else { put(-1); return }
        put(Int32(s.utf8.count))
        bytes.append(contentsOf: s.utf8)
    }
}

/// Reads records back; nil at the end or at a cut-off record.
struct WorkerRecordReader {
    let bytes: [UInt8]
    private var p = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func int32() -> Int32? {
        guard p + 4 <= bytes.count else { return nil }
        defer { p += 4 }
        return Int32(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: p, as: Int32.self) })
    }

    /// .some(nil) for a string sent as none.
    mutating func string() -> String?? {
        guard let length = int32() else { return nil }
        if length < 0 { return .some(nil) }
        guard p + Int(length) <= bytes.count else { return nil }
        defer { p += Int(length) }
        return .some(String(decoding: bytes[p..<(p + Int(length))], as: UTF8.self))
    }
}
