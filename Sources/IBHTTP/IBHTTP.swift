// IBHTTP: the one HTTP layer for the tools that talk to the network
// (ib-embed providers, ib-parse URL input, ib-ask providers).
//
// The API is synchronous: the tools are CLIs that do one thing at a time.
//
//     let client = HTTPClient(timeout: 30, maxRetries: 3)
//
//     // Buffered: throws HTTPError for any status >= 400 (after retries).
//     let response = try client.send(.json("https://api.example.com/v1/x",
//                                          body: ["input": "hi"],
//                                          headers: [("Authorization", "Bearer " + key)]))
//     let json = try response.json()
//
//     // Streaming: `onBytes` runs on the calling thread for every chunk as it
//     // arrives; feed the chunks to `SSEParser` or `LineSplitter`.
//     var sse = SSEParser()
//     let head = try client.stream(request) { bytes in
//         for event in sse.feed(bytes) { ... }
//     }
//
// Behaviour:
// - `timeout` is an idle timeout: the longest wait for the connection, the
//   response head, or the next piece of a body. `HTTPError.Kind.timeout`.
// - Retries (`maxRetries` extra attempts) on 429 and 5xx, with exponential
//   backoff and jitter, honouring `Retry-After` (seconds or an HTTP date,
//   capped by `maxRetryAfter`). A stream is only retried before any of its
//   body reached `onBytes`. Connection refused and timeouts are not retried.
// - Clear errors: connection refused, timeout, HTTP status with a short body
//   excerpt, connection lost mid-body, response over `maxResponseBytes`,
//   more than `maxRedirects` redirects. `HTTPError.ibError` maps every one
//   to exit code 4 (provider/network failure).
// - Messages name the host and path, never the query string or the headers,
//   so API keys do not leak into logs.
//
// Linux note: FoundationNetworking has no URLSession.bytes, so streaming goes
// through a URLSessionDataDelegate whose callbacks queue the chunks for the
// calling thread.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IBCore

/// An HTTP request. Headers keep their order; names are case-insensitive.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]?
    /// Overrides the client's idle timeout for this request.
    public var timeout: Double?

    public init(method: String = "GET", url: String, headers: [(String, String)] = [], body: [UInt8]? = nil, timeout: Double? = nil) {
        self.method = method; self.url = url; self.headers = headers; self.body = body; self.timeout = timeout
    }

    /// A GET request.
    public static func get(_ url: String, headers: [(String, String)] = []) -> HTTPRequest {
        HTTPRequest(method: "GET", url: url, headers: headers)
    }

    /// A POST with a JSON body and `Content-Type: application/json`.
    public static func json(_ url: String, body: JSON, headers: [(String, String)] = [], method: String = "POST") -> HTTPRequest {
        var bytes: [UInt8] = []
        body.write(to: &bytes)
        var all = headers
        if !all.contains(where: { $0.0.lowercased() == "content-type" }) {
            all.append(("Content-Type", "application/json"))
        }
        return HTTPRequest(method: method, url: url, headers: all, body: bytes)
    }

    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.0.lowercased() == lower }?.1
    }
}

/// The status line and headers of a response.
public struct HTTPResponseHead: Sendable {
    public let status: Int
    /// Header names are lower-cased.
    public let headers: [String: String]
    /// The final URL after redirects.
    public let url: String

    public init(status: Int, headers: [String: String], url: String) {
        self.status = status; self.headers = headers; self.url = url
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A buffered response.
public struct HTTPResponse: Sendable {
    public let head: HTTPResponseHead
    public let body: [UInt8]

    public var status: Int { head.status }
    public func header(_ name: String) -> String? { head.header(name) }
    /// The body as UTF-8 text (invalid sequences repaired).
    public var text: String { String(decoding: body, as: UTF8.self) }
    /// The body parsed as JSON; an `HTTPError` of kind `.invalidBody` if it is not.
    public func json() throws(HTTPError) -> JSON {
        do { return try JSON.parse(body) } catch {
            throw HTTPError(.invalidBody, "invalid JSON from \(HTTPError.describe(head.url)): \(error)", status: status)
        }
    }
}

public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case invalidURL
        case connectionRefused
        case timeout
        /// The server answered with a status >= 400 (see `status`, `body`).
        case status
        /// The connection closed before the body was complete.
        case connectionLost
        case tooLarge
        case tooManyRedirects
        /// The body could not be decoded (e.g. invalid JSON).
        case invalidBody
        /// Any other network failure (DNS, TLS...).
        case network
        /// The `onBytes` callback threw; see `underlying`.
        case cancelled
    }

    public let kind: Kind
    public let message: String
    public let status: Int?
    /// Response headers (lower-cased names) for `.status` errors.
    public let headers: [String: String]
    /// Up to 64 KiB of the response body for `.status` errors.
    public let body: [UInt8]
    /// The error thrown by `onBytes`, for `.cancelled`.
    public let underlying: (any Error)?

    public init(_ kind: Kind, _ message: String, status: Int? = nil, headers: [String: String] = [:], body: [UInt8] = [], underlying: (any Error)? = nil) {
        self.kind = kind; self.message = message; self.status = status
        self.headers = headers; self.body = body; self.underlying = underlying
    }

    public var description: String { message }

    /// The error as an `IBError` with exit code 4 (provider/network failure).
    /// A `.cancelled` error whose cause is an `IBError` gives that error back.
    public var ibError: IBError {
        if kind == .cancelled, let inner = underlying as? IBError { return inner }
        return IBError(message, code: .provider)
    }

    /// The body as one short line, for messages.
    public var bodyExcerpt: String { HTTPError.excerpt(body) }

    static func excerpt(_ body: [UInt8], limit: Int = 300) -> String {
        let text = String(decoding: body.prefix(limit * 4), as: UTF8.self)
        let collapsed = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        if collapsed.count <= limit { return collapsed }
        return String(collapsed.prefix(limit)) + "..."
    }

    /// `host[:port]/path` of a URL: no scheme, credentials or query (keys can live there).
    public static func describe(_ url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host else {
            return String(url.prefix { $0 != "?" })
        }
        var out = host
        if let port = components.port { out += ":\(port)" }
        out += components.path.isEmpty ? "/" : components.path
        return out
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 408: return "Request Timeout"
        case 413: return "Payload Too Large"
        case 422: return "Unprocessable Entity"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 529: return "Overloaded"
        default: return ""
        }
    }
}

/// What `HTTPClient.onRetry` is told before it sleeps.
public struct HTTPRetry: Sendable {
    /// The attempt that failed (1 = the first).
    public let attempt: Int
    public let delay: Double
    /// e.g. "HTTP 429" or "HTTP 503".
    public let reason: String
}

public final class HTTPClient {
    /// Idle timeout in seconds (connect, head, and between body pieces).
    public var timeout: Double
    /// Extra attempts after the first on 429 and 5xx.
    public var maxRetries: Int
    public var maxResponseBytes: Int
    public var maxRedirects: Int
    /// First backoff in seconds; doubles each attempt, with jitter in [50%, 100%].
    public var baseBackoff: Double
    public var maxBackoff: Double
    /// A longer `Retry-After` than this fails at once instead of waiting.
    public var maxRetryAfter: Double
    public var userAgent: String
    /// Called before each retry sleep (for --verbose).
    public var onRetry: ((HTTPRetry) -> Void)?

    public init(timeout: Double = 60, maxRetries: Int = 3, maxResponseBytes: Int = 256 << 20, maxRedirects: Int = 5,
                baseBackoff: Double = 0.5, maxBackoff: Double = 30, maxRetryAfter: Double = 120,
                userAgent: String = "ib/\(ibVersion)") {
        self.timeout = timeout; self.maxRetries = maxRetries; self.maxResponseBytes = maxResponseBytes
        self.maxRedirects = maxRedirects; self.baseBackoff = baseBackoff; self.maxBackoff = maxBackoff
        self.maxRetryAfter = maxRetryAfter; self.userAgent = userAgent
    }

    /// Sends a request and reads the whole body. Throws for status >= 400.
    public func send(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        var body: [UInt8] = []
        let head = try stream(request) { body.append(contentsOf: $0) }
        return HTTPResponse(head: head, body: body)
    }

    /// Sends a request and hands each piece of a successful (< 400) body to
    /// `onBytes` as it arrives, on the calling thread. Returns the head once
    /// the body is complete. Throws for status >= 400, with the body excerpt.
    /// If `onBytes` throws, the transfer stops and the error comes back as an
    /// `HTTPError` of kind `.cancelled` with `underlying` set.
    @discardableResult
    public func stream(_ request: HTTPRequest, onBytes: (ArraySlice<UInt8>) throws -> Void) throws(HTTPError) -> HTTPResponseHead {
        var attempt = 1
        while true {
            do {
                return try attempt1(request, onBytes: onBytes)
            } catch let error as HTTPError {
                guard error.kind == .status, let status = error.status, status == 429 || (500...599).contains(status),
                      attempt <= maxRetries else { throw error }
                let delay: Double
                if let retryAfter = error.headers["retry-after"].flatMap({ RetryAfter.seconds($0) }) {
                    if retryAfter > maxRetryAfter {
                        throw HTTPError(.status, error.message + " (Retry-After \(Int(retryAfter)) s is too long to wait)",
                                        status: status, headers: error.headers, body: error.body)
                    }
                    delay = retryAfter
                } else {
                    let exponential = min(maxBackoff, baseBackoff * Double(1 << min(attempt - 1, 20)))
                    delay = exponential * Double.random(in: 0.5...1.0)
                }
                onRetry?(HTTPRetry(attempt: attempt, delay: delay, reason: "HTTP \(status)"))
                if delay > 0 { sleepSeconds(delay) }
                attempt += 1
            } catch {
                throw HTTPError(.network, "\(error)")
            }
        }
    }

    private func sleepSeconds(_ seconds: Double) {
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var rest = timespec()
        while nanosleep(&ts, &rest) != 0 && errno == EINTR { ts = rest }
    }

    private func attempt1(_ request: HTTPRequest, onBytes: (ArraySlice<UInt8>) throws -> Void) throws -> HTTPResponseHead {
        let where_ = HTTPError.describe(request.url)
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil else {
            throw HTTPError(.invalidURL, "invalid URL: \(where_)")
        }
        let idle = request.timeout ?? timeout
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        // URLSession's own timer is a backstop; ours (below) gives the message.
        urlRequest.timeoutInterval = idle + 5
        urlRequest.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }

        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idle + 5
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        let delegate = TaskDelegate(maxRedirects: maxRedirects)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = session.dataTask(with: urlRequest)
        defer { session.invalidateAndCancel() }
        task.resume()

        var head: HTTPResponseHead?
        var errorBody: [UInt8] = []
        var received = 0
        while true {
            guard let event = delegate.next(timeout: idle) else {
                task.cancel()
                let what = head == nil ? "no response" : "the response stalled"
                throw HTTPError(.timeout, "\(where_): timed out after \(formatSeconds(idle)) (\(what))")
            }
            switch event {
            case .head(let response):
                var headers: [String: String] = [:]
                for (key, value) in response.allHeaderFields {
                    if let k = key as? String, let v = value as? String { headers[k.lowercased()] = v }
                }
                let h = HTTPResponseHead(status: response.statusCode, headers: headers, url: response.url?.absoluteString ?? request.url)
                if (300...399).contains(h.status), delegate.redirectLimitHit {
                    task.cancel()
                    throw HTTPError(.tooManyRedirects, "\(where_): more than \(maxRedirects) redirects", status: h.status)
                }
                head = h
            case .data(let data):
                guard let h = head else { continue }
                received += data.count
                if received > maxResponseBytes {
                    task.cancel()
                    throw HTTPError(.tooLarge, "\(where_): response larger than \(maxResponseBytes) bytes", status: h.status)
                }
                if h.status >= 400 {
                    if errorBody.count < 65536 { errorBody.append(contentsOf: data.prefix(65536 - errorBody.count)) }
                } else {
                    let bytes = [UInt8](data)
                    do { try onBytes(bytes[...]) } catch {
                        task.cancel()
                        throw HTTPError(.cancelled, "\(error)", status: h.status, underlying: error)
                    }
                }
            case .done(let error):
                if let error {
                    throw mapError(error, where_: where_, idle: idle, gotHead: head != nil)
                }
                guard let h = head else { throw HTTPError(.network, "\(where_): no response") }
                if h.status >= 400 {
                    let reason = HTTPError.reason(h.status)
                    var message = "\(where_): HTTP \(h.status)" + (reason.isEmpty ? "" : " \(reason)")
                    let excerpt = HTTPError.excerpt(errorBody)
                    if !excerpt.isEmpty { message += ": " + excerpt }
                    throw HTTPError(.status, message, status: h.status, headers: h.headers, body: errorBody)
                }
                return h
            }
        }
    }

    private func mapError(_ error: Error, where_: String, idle: Double, gotHead: Bool) -> HTTPError {
        let ns = error as NSError
        if ns.domain == NSURLErrorDomain {
            switch ns.code {
            case NSURLErrorCannotConnectToHost:
                return HTTPError(.connectionRefused, "\(where_): connection refused (is the server running?)")
            case NSURLErrorTimedOut:
                return HTTPError(.timeout, "\(where_): timed out after \(formatSeconds(idle))")
            case NSURLErrorNetworkConnectionLost:
                return HTTPError(.connectionLost, gotHead ? "\(where_): connection lost before the response was complete"
                                                          : "\(where_): connection closed without a response")
            case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed:
                return HTTPError(.network, "\(where_): cannot resolve host")
            case NSURLErrorBadServerResponse:
                return HTTPError(.connectionLost, "\(where_): bad or truncated response from the server")
            case NSURLErrorHTTPTooManyRedirects:
                return HTTPError(.tooManyRedirects, "\(where_): more than \(maxRedirects) redirects")
            default: break
            }
        }
        let text = ns.localizedDescription
        if gotHead {
            return HTTPError(.connectionLost, "\(where_): connection lost before the response was complete (\(text))")
        }
        if text.lowercased().contains("refused") { return HTTPError(.connectionRefused, "\(where_): connection refused") }
        return HTTPError(.network, "\(where_): \(text) (\(ns.domain) \(ns.code))")
    }
}

func formatSeconds(_ s: Double) -> String {
    s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
}

/// Receives URLSession callbacks on the session's queue and hands them to the
/// waiting caller in order.
private final class TaskDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Event { case head(HTTPURLResponse), data(Data), done(Error?) }

    private let condition = NSCondition()
    private var events: [Event] = []
    private var readIndex = 0
    let maxRedirects: Int
    private var redirects = 0
    private(set) var redirectLimitHit = false

    init(maxRedirects: Int) { self.maxRedirects = maxRedirects }

    private func push(_ event: Event) {
        condition.lock()
        events.append(event)
        condition.signal()
        condition.unlock()
    }

    /// The next event, or nil after `timeout` seconds with none.
    func next(timeout: Double) -> Event? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while readIndex >= events.count {
            if !condition.wait(until: deadline) && readIndex >= events.count { return nil }
        }
        let event = events[readIndex]
        readIndex += 1
        if readIndex > 64 && readIndex * 2 > events.count {
            events.removeFirst(readIndex); readIndex = 0
        }
        return event
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse { push(.head(http)) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        push(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        push(.done(error))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        condition.lock()
        redirects += 1
        let allow = redirects <= maxRedirects
        if !allow { redirectLimitHit = true }
        condition.unlock()
        completionHandler(allow ? request : nil)
    }
}

extension HTTPError {
    /// A failed provider call in one line, the same for every tool: `who` names the
    /// provider (and model), `label` the provider alone (for reachability);
    /// `timeoutHint` and `unreachableHint` end those two messages.
    public func providerMessage(who: String, label: String, keyVariable: String?, retries: Int, detail: String,
                                timeoutHint: String = "", unreachableHint: String = "") -> String {
        switch kind {
        case .status: return statusMessage(who: who, keyVariable: keyVariable, retries: retries, detail: detail)
        case .connectionRefused: return "cannot reach \(label): \(message)\(unreachableHint)"
        case .timeout: return "\(who) did not answer in time: \(message)\(timeoutHint)"
        default: return "\(who): \(message)"
        }
    }

    /// A provider's refusal (a `.status` error) in one line, the same for every tool:
    /// `who` names the provider (and model), `keyVariable` the API key to check on
    /// 401/403, `detail` the provider's own message (": ..." or "").
    public func statusMessage(who: String, keyVariable: String?, retries: Int, detail: String) -> String {
        let status = self.status ?? 0
        switch status {
        case 401, 403: return "\(who) rejected the request with HTTP \(status)\(keyVariable.map { " (check \($0))" } ?? "")\(detail)"
        case 429: return "\(who) is rate limiting (HTTP 429) and still was after \(retries) retries\(detail)"
        case 500...: return "\(who) failed with HTTP \(status) after \(retries) retries\(detail)"
        default: return "\(who) refused the request with HTTP \(status)\(detail)"
        }
    }
}
