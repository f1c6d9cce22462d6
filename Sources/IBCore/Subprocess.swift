// A child process (ffmpeg, ffprobe, Simon Willison's `llm`) with its stdout and
// stderr on pipes, read with poll so neither pipe can fill and stall the child:
// stdout is handed to the caller in bounded pieces, stderr keeps its first and
// last few kilobytes (for the error line). Optional input goes to the child's
// stdin through a socket written in the same poll loop (a child that answers
// before reading all of it cannot deadlock us, and one that exits early gives
// EPIPE, not a SIGPIPE that would kill the tool); without input, stdin is
// /dev/null, so a child never waits on the user's terminal. A child that
// writes nothing for `stallSeconds` is killed.
#if canImport(Glibc)
import Glibc
#endif

/// Why a child process failed; callers turn it into their own message.
public struct SubprocessError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The program is not installed (not found on PATH or in the given folders).
        case missingTool
        /// The child wrote nothing for `seconds` and was killed.
        case stalled(seconds: Double)
        /// The child wrote more than the caller's limit and was killed.
        case tooMuchOutput(limitBytes: Int)
        /// A system call failed (pipe, spawn, poll, read).
        case system
    }
    public var kind: Kind
    /// The program's name as started (ffmpeg, llm).
    public var tool: String
    public var message: String
    public var description: String { message }
    public init(kind: Kind, tool: String, message: String) { self.kind = kind; self.tool = tool; self.message = message }
}

public final class Subprocess {
    public private(set) var pid: pid_t = 0
    private var stdoutFD: Int32 = -1
    private var stderrFD: Int32 = -1
    private var stdinFD: Int32 = -1
    private var input: [UInt8]
    private var inputSent = 0
    private var stderrHead: [UInt8] = []
    private var stderrTail: [UInt8] = []
    private static let stderrKeep = 4096
    private var exitStatus: Int32?
    public let stallSeconds: Double
    public let tool: String

    /// Starts `arguments[0]`, found in `searchFirst` then on PATH (a path with a slash is used as
    /// it is). `input`, when given, is written to the child's stdin, which is then closed.
    /// Throws `.missingTool` when the program is not there.
    public init(_ arguments: [String], stallSeconds: Double, input: [UInt8]? = nil,
                searchFirst: [String] = []) throws(SubprocessError) {
        self.stallSeconds = stallSeconds
        self.input = input ?? []
        let tool = arguments.first ?? "?"
        self.tool = tool
        guard let path = Subprocess.find(tool, searchFirst: searchFirst) else {
            throw SubprocessError(kind: .missingTool, tool: tool, message: "\(tool) is not installed")
        }
        func failure(_ what: String) -> SubprocessError {
            SubprocessError(kind: .system, tool: tool, message: "\(what): \(Subprocess.errnoText())")
        }
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1], inPair: [Int32] = [-1, -1]
        guard Subprocess.makePipe(&outPipe) else { throw failure("cannot create a pipe") }
        guard Subprocess.makePipe(&errPipe) else {
            close(outPipe[0]); close(outPipe[1])
            throw failure("cannot create a pipe")
        }
        if input != nil {
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &inPair) == 0 else {
                for fd in outPipe + errPipe { close(fd) }
                throw failure("cannot create a socket pair")
            }
            for fd in inPair { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(inPair[0], F_SETFL, fcntl(inPair[0], F_GETFL) | O_NONBLOCK)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input != nil {
            posix_spawn_file_actions_adddup2(&actions, inPair[1], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, nil, argv, environ)
        close(outPipe[1]); close(errPipe[1])
        if input != nil { close(inPair[1]) }
        guard rc == 0 else {
            close(outPipe[0]); close(errPipe[0])
            if input != nil { close(inPair[0]) }
            throw SubprocessError(kind: .system, tool: tool, message: "cannot start \(tool): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdoutFD = outPipe[0]
        stderrFD = errPipe[0]
        if input != nil {
            stdinFD = inPair[0]
            if self.input.isEmpty { closeStdin() }
        }
    }

    deinit { terminate() }

    /// Reads up to `count` bytes of stdout into `buffer` (appending); returns 0 at its end.
    /// Waits for data, writing the input and draining stderr meanwhile; throws when the child stalls.
    public func readStdout(into buffer: inout [UInt8], upTo count: Int) throws(SubprocessError) -> Int {
        guard stdoutFD >= 0 else { return 0 }
        var waited = 0.0
        while true {
            // Slots: stdout, stderr (-1 once closed: poll skips it), stdin while input is left.
            var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stdinFD, events: Int16(POLLOUT), revents: 0)]
            let step = 250
            let ready = poll(&fds, 3, Int32(step))
            if ready < 0 {
                if errno == EINTR { continue }
                throw SubprocessError(kind: .system, tool: tool, message: "poll failed: \(Subprocess.errnoText())")
            }
            if ready == 0 {
                waited += Double(step) / 1000
                if waited >= stallSeconds {
                    terminate()
                    throw SubprocessError(kind: .stalled(seconds: stallSeconds), tool: tool,
                                          message: "\(tool) produced nothing for \(Subprocess.seconds(stallSeconds))")
                }
                continue
            }
            waited = 0
            if fds[2].revents != 0 { writeInput() }
            if fds[1].revents != 0 { drainStderr() }
            if fds[0].revents != 0 {
                var tmp = [UInt8](repeating: 0, count: min(count, 1 << 16))
                let n = tmp.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw SubprocessError(kind: .system, tool: tool, message: "reading from \(tool) failed: \(Subprocess.errnoText())")
                }
                if n == 0 { close(stdoutFD); stdoutFD = -1; closeStdin(); return 0 }
                buffer.append(contentsOf: tmp[0..<n])
                return n
            }
        }
    }

    /// Reads all of stdout, refusing more than `limit` bytes.
    public func readAllStdout(limit: Int) throws(SubprocessError) -> [UInt8] {
        var out: [UInt8] = []
        while true {
            let n = try readStdout(into: &out, upTo: 1 << 16)
            if n == 0 { return out }
            if out.count > limit {
                terminate()
                throw SubprocessError(kind: .tooMuchOutput(limitBytes: limit), tool: tool,
                                      message: "\(tool) wrote more than \(limit >> 20) MiB")
            }
        }
    }

    /// Waits for the child to exit (draining stderr) and returns its status: the exit code,
    /// or 128 + the signal.
    @discardableResult
    public func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        closeStdin()
        while stderrFD >= 0 { drainStderr() }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        closePipes()
        return code
    }

    /// The last line the child wrote on stderr, trimmed; nil when it wrote nothing.
    public var lastErrorLine: String? { Subprocess.lines(stderrTail).last }

    /// The first stderr line starting with `prefix` (a tool's "Error: ..."), else the last line.
    public func errorLine(startingWith prefix: String) -> String? {
        Subprocess.lines(stderrHead).first { $0.hasPrefix(prefix) } ?? lastErrorLine
    }

    /// Every line of stderr kept (the first and last few kilobytes).
    public var errorLines: [String] {
        stderrHead.count < Subprocess.stderrKeep ? Subprocess.lines(stderrHead)
            : Subprocess.lines(stderrHead) + Subprocess.lines(stderrTail)
    }

    /// Kills the child (if still running) and reaps it.
    public func terminate() {
        if exitStatus == nil && pid > 0 {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exitStatus = 128 + SIGKILL
        }
        closePipes()
    }

    private func closePipes() {
        closeStdin()
        if stdoutFD >= 0 { close(stdoutFD); stdoutFD = -1 }
        if stderrFD >= 0 { close(stderrFD); stderrFD = -1 }
    }

    private func closeStdin() {
        if stdinFD >= 0 { close(stdinFD); stdinFD = -1 }
    }

    /// Sends what the socket takes now; closes it when all is sent or the child stopped reading.
    private func writeInput() {
        guard stdinFD >= 0 else { return }
        let left = input.count - inputSent
        let n = input.withUnsafeBytes { send(stdinFD, $0.baseAddress! + inputSent, min(left, 1 << 16), Int32(MSG_NOSIGNAL)) }
        if n < 0 {
            if errno == EINTR || errno == EAGAIN { return }
            closeStdin()  // EPIPE: the child exited or closed stdin; its status says why
            return
        }
        inputSent += n
        if inputSent >= input.count { closeStdin() }
    }

    private func drainStderr() {
        guard stderrFD >= 0 else { return }
        var tmp = [UInt8](repeating: 0, count: 4096)
        let n = tmp.withUnsafeMutableBytes { read(stderrFD, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { return }
        if n <= 0 { close(stderrFD); stderrFD = -1; return }
        if stderrHead.count < Subprocess.stderrKeep {
            stderrHead.append(contentsOf: tmp[0..<min(n, Subprocess.stderrKeep - stderrHead.count)])
        }
        stderrTail.append(contentsOf: tmp[0..<n])
        if stderrTail.count > Subprocess.stderrKeep { stderrTail.removeFirst(stderrTail.count - Subprocess.stderrKeep) }
    }

    private static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { String($0).trimmingCharacters(in: " \t") }.filter { !$0.isEmpty }
    }

    /// The executable's path: `tool` itself when it holds a slash, else the first
    /// of `searchFirst` and then PATH that has it.
    public static func find(_ tool: String, searchFirst: [String] = []) -> String? {
        if tool.contains("/") { return access(tool, X_OK) == 0 ? tool : nil }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in searchFirst + path.split(separator: ":").map(String.init) where !dir.isEmpty {
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

    public static func seconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }
}
