// A child process (ffmpeg, ffprobe) with its stdout and stderr on pipes, read
// with poll so neither pipe can fill and stall the child: stdout is handed to
// the caller in bounded pieces, stderr keeps only its last few kilobytes (for
// the error line). A child that writes nothing for `stallSeconds` is killed.
#if canImport(Glibc)
import Glibc
#endif

final class Subprocess {
    private(set) var pid: pid_t = 0
    private var stdoutFD: Int32 = -1
    private var stderrFD: Int32 = -1
    private var stderrTail: [UInt8] = []
    private static let stderrKeep = 4096
    private var exitStatus: Int32?
    let stallSeconds: Double

    /// Starts `arguments[0]` found on PATH. Throws `AudioError.missingTool` when it is not there.
    init(_ arguments: [String], stallSeconds: Double) throws(AudioError) {
        self.stallSeconds = stallSeconds
        guard let tool = arguments.first, let path = Subprocess.find(tool) else {
            throw AudioError.missingTool(arguments.first ?? "?")
        }
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard Subprocess.makePipe(&outPipe) else { throw AudioError("cannot create a pipe: \(Subprocess.errnoText())") }
        guard Subprocess.makePipe(&errPipe) else {
            close(outPipe[0]); close(outPipe[1])
            throw AudioError("cannot create a pipe: \(Subprocess.errnoText())")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, nil, argv, environ)
        close(outPipe[1]); close(errPipe[1])
        guard rc == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw AudioError("cannot start \(tool): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdoutFD = outPipe[0]
        stderrFD = errPipe[0]
    }

    deinit { terminate() }

    /// Reads up to `count` bytes of stdout into `buffer` (appending); returns 0 at its end.
    /// Waits for data, draining stderr meanwhile; throws when the child stalls.
    func readStdout(into buffer: inout [UInt8], upTo count: Int) throws(AudioError) -> Int {
        guard stdoutFD >= 0 else { return 0 }
        var waited = 0.0
        while true {
            var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)]
            let watched = stderrFD >= 0 ? 2 : 1
            let step = 250
            let ready = poll(&fds, nfds_t(watched), Int32(step))
            if ready < 0 {
                if errno == EINTR { continue }
                throw AudioError("poll failed: \(Subprocess.errnoText())")
            }
            if ready == 0 {
                waited += Double(step) / 1000
                if waited >= stallSeconds {
                    terminate()
                    throw AudioError("\(Subprocess.name(of: self)) produced nothing for \(Int(stallSeconds)) s (a file it cannot read to the end)")
                }
                continue
            }
            waited = 0
            if watched == 2 && fds[1].revents != 0 { drainStderr() }
            if fds[0].revents != 0 {
                let start = buffer.count
                buffer.reserveCapacity(start + count)
                var tmp = [UInt8](repeating: 0, count: min(count, 1 << 16))
                let n = tmp.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw AudioError("reading from \(Subprocess.name(of: self)) failed: \(Subprocess.errnoText())")
                }
                if n == 0 { close(stdoutFD); stdoutFD = -1; return 0 }
                buffer.append(contentsOf: tmp[0..<n])
                return n
            }
        }
    }

    /// Reads all of stdout, refusing more than `limit` bytes.
    func readAllStdout(limit: Int) throws(AudioError) -> [UInt8] {
        var out: [UInt8] = []
        while true {
            let n = try readStdout(into: &out, upTo: 1 << 16)
            if n == 0 { return out }
            if out.count > limit {
                terminate()
                throw AudioError("\(Subprocess.name(of: self)) wrote more than \(limit >> 20) MiB about the file (a hostile container)")
            }
        }
    }

    /// Waits for the child to exit (draining stderr) and returns its status: the exit code,
    /// or 128 + the signal.
    @discardableResult
    func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        while stderrFD >= 0 { drainStderr(blocking: true) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        closePipes()
        return code
    }

    /// The last line the child wrote on stderr, trimmed; nil when it wrote nothing.
    var lastErrorLine: String? {
        let text = String(decoding: stderrTail, as: UTF8.self)
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingSpaces }.filter { !$0.isEmpty }
        return lines.last
    }

    /// Kills the child (if still running) and reaps it.
    func terminate() {
        if exitStatus == nil && pid > 0 {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exitStatus = 128 + SIGKILL
        }
        closePipes()
    }

    private func closePipes() {
        if stdoutFD >= 0 { close(stdoutFD); stdoutFD = -1 }
        if stderrFD >= 0 { close(stderrFD); stderrFD = -1 }
    }

    private func drainStderr(blocking: Bool = false) {
        guard stderrFD >= 0 else { return }
        var tmp = [UInt8](repeating: 0, count: 4096)
        let n = tmp.withUnsafeMutableBytes { read(stderrFD, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { return }
        if n <= 0 { close(stderrFD); stderrFD = -1; return }
        stderrTail.append(contentsOf: tmp[0..<n])
        if stderrTail.count > Subprocess.stderrKeep { stderrTail.removeFirst(stderrTail.count - Subprocess.stderrKeep) }
    }

    private var toolName = ""
    private static func name(of p: Subprocess) -> String { p.toolName.isEmpty ? "the decoder" : p.toolName }
    func named(_ name: String) -> Subprocess { toolName = name; return self }

    /// The executable's path on PATH (IB_FFMPEG_DIR first, for tests and odd installs).
    static func find(_ tool: String) -> String? {
        var dirs: [String] = []
        if let d = getenv("IB_FFMPEG_DIR") { dirs.append(String(cString: d)) }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        dirs += path.split(separator: ":").map(String.init)
        for dir in dirs where !dir.isEmpty {
            let candidate = dir + "/" + tool
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// A pipe whose ends close on exec (the child gets only its dup'd stdout and stderr).
    static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
