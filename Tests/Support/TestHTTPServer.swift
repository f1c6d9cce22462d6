// IBTestSupport: a real HTTP/1.1 server on 127.0.0.1 for tests, written with
// Glibc sockets, one thread per connection. Tests script its answers and
// assert on the requests it received.
//
//     let server = try TestHTTPServer(script: [
//         .status(429, headers: [("Retry-After", "1")]),
//         .json(#"{"ok": true}"#),
//     ])
//     defer { server.stop() }
//     ... client.send(.get(server.url("/v1/x"))) ...
//     XCTAssertEqual(server.requests.count, 2)
//     XCTAssertEqual(server.requests[1].header("authorization"), "Bearer k")
//
//     // Or decide per request:
//     let server = try TestHTTPServer { request in
//         request.path == "/a" ? .text("hello") : .status(404)
//     }
//
//     // A streamed body (chunked transfer encoding), written in pieces with
//     // delays, optionally cut off without the final chunk:
//     .stream(pieces: [.init("data: a\n\n"), .init("data: b\n\n", delay: 0.05)], drop: true)
//
// `.hangUp` closes the connection without answering; `.delayed(2, r)` waits
// before sending anything (for timeout tests). Requests are kept in order
// with their arrival time (monotonic seconds, `Timestamp.monotonic()`).
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import IBCore

public struct RecordedRequest: Sendable {
    public let method: String
    /// The request target, including any query string.
    public let path: String
    public let headers: [(String, String)]
    public let body: [UInt8]
    /// `Timestamp.monotonic()` when the request head was complete.
    public let arrival: Double
    /// `Timestamp.now()` (wall clock) when the request head was complete.
    public let arrivalWallClock: Double

    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.0.lowercased() == lower }?.1
    }
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
    /// The body parsed as JSON, or nil.
    public var json: JSON? { try? JSON.parse(body) }
}

public struct TestResponse: Sendable {
    public struct Piece: Sendable {
        public var bytes: [UInt8]
        /// Seconds to wait before writing this piece.
        public var delay: Double
        public init(_ text: String, delay: Double = 0) { self.bytes = Array(text.utf8); self.delay = delay }
        public init(bytes: [UInt8], delay: Double = 0) { self.bytes = bytes; self.delay = delay }
    }

    public var status: Int
    public var headers: [(String, String)]
    public var pieces: [Piece]
    /// Send with Transfer-Encoding: chunked (one chunk per piece) instead of Content-Length.
    public var chunked: Bool
    /// Close the connection after the pieces, without finishing the body.
    public var drop: Bool
    /// Close the connection without sending anything.
    public var hangUp: Bool
    /// Seconds to wait before the status line.
    public var delay: Double

    public init(status: Int = 200, headers: [(String, String)] = [], pieces: [Piece] = [], chunked: Bool = false,
                drop: Bool = false, hangUp: Bool = false, delay: Double = 0) {
        self.status = status; self.headers = headers; self.pieces = pieces; self.chunked = chunked
        self.drop = drop; self.hangUp = hangUp; self.delay = delay
    }

    public static func text(_ body: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8",
                            headers: [(String, String)] = []) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", contentType)] + headers, pieces: [Piece(body)])
    }

    public static func bytes(_ body: [UInt8], status: Int = 200, contentType: String = "application/octet-stream",
                             headers: [(String, String)] = []) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", contentType)] + headers, pieces: [Piece(bytes: body)])
    }

    public static func json(_ body: String, status: Int = 200, headers: [(String, String)] = []) -> TestResponse {
        text(body, status: status, contentType: "application/json", headers: headers)
    }

    public static func status(_ status: Int, body: String = "", headers: [(String, String)] = []) -> TestResponse {
        text(body, status: status, headers: headers)
    }

    /// A chunked body written piece by piece; `drop` cuts it off before the end.
    public static func stream(status: Int = 200, contentType: String = "text/event-stream",
                              headers: [(String, String)] = [], pieces: [Piece], drop: Bool = false) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", contentType)] + headers, pieces: pieces,
                     chunked: true, drop: drop)
    }

    /// Server-sent events, one piece per event, `delay` seconds apart.
    public static func sse(_ events: [String], delay: Double = 0, drop: Bool = false) -> TestResponse {
        stream(pieces: events.map { Piece($0, delay: delay) }, drop: drop)
    }

    public static let hangUp = TestResponse(hangUp: true)

    public static func delayed(_ seconds: Double, _ response: TestResponse) -> TestResponse {
        var r = response
        r.delay = seconds
        return r
    }
}

public final class TestHTTPServer: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private let handler: @Sendable (RecordedRequest) -> TestResponse
    private let lock = NSLock()
    private var recorded: [RecordedRequest] = []
    private var openConnections: Set<Int32> = []
    private var stopped = false
    private var acceptThread: Thread?
    private let acceptDone = DispatchSemaphore(value: 0)

    /// "http://127.0.0.1:PORT"
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public func url(_ path: String) -> String { baseURL + path }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] {
        lock.lock(); defer { lock.unlock() }
        return recorded
    }

    /// Serves `handler(request)` for every request. Port 0 picks a free port.
    public init(port: Int = 0, handler: @escaping @Sendable (RecordedRequest) -> TestResponse) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw IBError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw IBError("bind/listen 127.0.0.1:\(port): \(message)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        self.listener = fd
        let thread = Thread { [unowned self] in self.acceptLoop() }
        thread.name = "TestHTTPServer.accept"
        acceptThread = thread
        thread.start()
    }

    /// Serves the responses in order, one per request; then 500s.
    public convenience init(script: [TestResponse]) throws {
        let queue = ScriptQueue(script)
        try self.init { _ in queue.next() ?? .status(500, body: "TestHTTPServer: no scripted response left") }
    }

    /// Stops accepting, closes open connections and waits for the accept loop.
    public func stop() {
        lock.lock()
        if stopped { lock.unlock(); return }
        stopped = true
        for fd in openConnections { shutdown(fd, Int32(SHUT_RDWR)) }
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        acceptDone.wait()
    }

    deinit { stop() }

    private func acceptLoop() {
        defer { acceptDone.signal() }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            lock.lock()
            if stopped { lock.unlock(); close(client); return }
            openConnections.insert(client)
            lock.unlock()
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let thread = Thread { [self] in
                self.serve(client)
                self.lock.lock()
                self.openConnections.remove(client)
                self.lock.unlock()
                close(client)
            }
            thread.start()
        }
    }

    /// Reads requests on one connection until it closes.
    private func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        while true {
            // The head.
            var headEnd: Int?
            while headEnd == nil {
                if let range = find(buffer, [13, 10, 13, 10]) { headEnd = range; break }
                guard readMore(fd, &buffer) else { return }
            }
            let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
            buffer.removeFirst(headEnd! + 4)
            let arrival = Timestamp.monotonic()
            let wall = Timestamp.now()
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ").map(String.init)
            guard requestLine.count >= 2 else { return }
            var headers: [(String, String)] = []
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers.append((name, value))
            }
            func header(_ n: String) -> String? { headers.first { $0.0.lowercased() == n }?.1 }
            if header("expect")?.lowercased() == "100-continue" {
                guard writeAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
            }
            // The body.
            var body: [UInt8] = []
            if header("transfer-encoding")?.lowercased().contains("chunked") == true {
                while true {
                    var lineEnd: Int?
                    while lineEnd == nil {
                        if let i = find(buffer, [13, 10]) { lineEnd = i; break }
                        guard readMore(fd, &buffer) else { return }
                    }
                    let sizeText = String(decoding: buffer[0..<lineEnd!], as: UTF8.self).split(separator: ";").first ?? ""
                    let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
                    buffer.removeFirst(lineEnd! + 2)
                    while buffer.count < size + 2 { guard readMore(fd, &buffer) else { return } }
                    body.append(contentsOf: buffer[0..<size])
                    buffer.removeFirst(size + 2)
                    if size == 0 { break }
                }
            } else if let length = header("content-length").flatMap({ Int($0) }), length > 0 {
                while buffer.count < length { guard readMore(fd, &buffer) else { return } }
                body = Array(buffer[0..<length])
                buffer.removeFirst(length)
            }
            let request = RecordedRequest(method: requestLine[0], path: requestLine[1], headers: headers, body: body,
                                          arrival: arrival, arrivalWallClock: wall)
            lock.lock()
            recorded.append(request)
            lock.unlock()
            let response = handler(request)
            if !respond(fd, response) { return }
            if header("connection")?.lowercased() == "close" { return }
        }
    }

    /// Writes one response; false when the connection must close.
    private func respond(_ fd: Int32, _ response: TestResponse) -> Bool {
        if response.delay > 0 { Thread.sleep(forTimeInterval: response.delay) }
        if response.hangUp { shutdown(fd, Int32(SHUT_RDWR)); return false }
        var head = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        if response.chunked {
            head += "Transfer-Encoding: chunked\r\n"
        } else if !response.drop {
            head += "Content-Length: \(response.pieces.reduce(0) { $0 + $1.bytes.count })\r\n"
        } else {
            // A dropped fixed-length body: announce more than will come.
            head += "Content-Length: \(response.pieces.reduce(0) { $0 + $1.bytes.count } + 1000)\r\n"
        }
        head += "\r\n"
        guard writeAll(fd, Array(head.utf8)) else { return false }
        for piece in response.pieces {
            if piece.delay > 0 { Thread.sleep(forTimeInterval: piece.delay) }
            if piece.bytes.isEmpty { continue }
            var out: [UInt8] = []
            if response.chunked { out += Array(String(piece.bytes.count, radix: 16).utf8) + [13, 10] }
            out += piece.bytes
            if response.chunked { out += [13, 10] }
            guard writeAll(fd, out) else { return false }
        }
        if response.drop {
            shutdown(fd, Int32(SHUT_RDWR))
            return false
        }
        if response.chunked { guard writeAll(fd, Array("0\r\n\r\n".utf8)) else { return false } }
        return true
    }

    private func readMore(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            buffer.append(contentsOf: chunk[0..<n])
            return true
        }
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private func find(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0] && Array(haystack[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }

    private func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}

/// Hands out scripted responses in order (thread-safe).
public final class ScriptQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [TestResponse]
    public init(_ items: [TestResponse]) { self.items = items }
    public func next() -> TestResponse? {
        lock.lock(); defer { lock.unlock() }
        return items.isEmpty ? nil : items.removeFirst()
    }
    public func append(_ response: TestResponse) {
        lock.lock(); items.append(response); lock.unlock()
    }
}

/// A port on 127.0.0.1 with nothing listening (for connection-refused tests).
public func unusedLocalPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var actual = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &actual) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: actual.sin_port))
}
