import XCTest
import IBCore
@testable import IBHTTP
import IBTestSupport

final class HTTPClientTests: XCTestCase {
    func testSendRecordsMethodPathHeadersAndBody() throws {
        let server = try TestHTTPServer { request in
            .json(#"{"echo": "\#(request.path)"}"#)
        }
        defer { server.stop() }
        let client = HTTPClient(timeout: 5, maxRetries: 0)
        let response = try client.send(.json(server.url("/v1/things?x=1"), body: ["a": 1], headers: [("X-Api-Key", "k1")]))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(try response.json()["echo"]?.stringValue, "/v1/things?x=1")
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        let request = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.header("x-api-key"), "k1")
        XCTAssertEqual(request.header("content-type"), "application/json")
        XCTAssertEqual(request.json?["a"]?.intValue, 1)
    }

    func testStreamDeliversPiecesAsTheyArrive() throws {
        let server = try TestHTTPServer(script: [
            .stream(pieces: [.init("one "), .init("two ", delay: 0.1), .init("three", delay: 0.1)])
        ])
        defer { server.stop() }
        var pieces: [String] = []
        let head = try HTTPClient(timeout: 5).stream(.get(server.url("/s"))) { pieces.append(String(decoding: $0, as: UTF8.self)) }
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(pieces.joined(), "one two three")
        XCTAssertGreaterThanOrEqual(pieces.count, 2, "the delayed pieces should arrive separately")
    }

    func testRetryAfterSecondsIsHonoured() throws {
        let server = try TestHTTPServer(script: [
            .status(429, body: "slow down", headers: [("Retry-After", "1")]),
            .text("ok"),
        ])
        defer { server.stop() }
        let client = HTTPClient(timeout: 5, maxRetries: 2)
        var retries: [HTTPRetry] = []
        client.onRetry = { retries.append($0) }
        let response = try client.send(.get(server.url("/")))
        XCTAssertEqual(response.text, "ok")
        XCTAssertEqual(retries.map(\.delay), [1.0])
        XCTAssertEqual(retries.first?.reason, "HTTP 429")
        let requests = server.requests
        XCTAssertEqual(requests.count, 2)
        XCTAssertGreaterThanOrEqual(requests[1].arrival - requests[0].arrival, 0.95)
    }

    func testRetryAfterHTTPDate() throws {
        let now = 1_700_000_000.0
        XCTAssertEqual(RetryAfter.httpDate("Tue, 14 Nov 2023 22:13:20 GMT"), now)
        XCTAssertEqual(RetryAfter.seconds("Tue, 14 Nov 2023 22:13:22 GMT", now: now), 2)
        XCTAssertEqual(RetryAfter.seconds("Tuesday, 14-Nov-23 22:13:23 GMT", now: now), 3)
        XCTAssertEqual(RetryAfter.seconds("Tue Nov 14 22:13:24 2023", now: now), 4)
        XCTAssertEqual(RetryAfter.seconds("Tue, 14 Nov 2023 22:00:00 GMT", now: now), 0, "a past date means now")
        XCTAssertEqual(RetryAfter.seconds(" 7 "), 7)
        XCTAssertNil(RetryAfter.seconds("soon"))
        XCTAssertNil(RetryAfter.seconds("-3"))

        let date = httpDate(Timestamp.now() + 2)
        let server = try TestHTTPServer(script: [.status(503, headers: [("Retry-After", date)]), .text("ok")])
        defer { server.stop() }
        let client = HTTPClient(timeout: 5, maxRetries: 1)
        var delays: [Double] = []
        client.onRetry = { delays.append($0.delay) }
        XCTAssertEqual(try client.send(.get(server.url("/"))).text, "ok")
        XCTAssertEqual(delays.count, 1)
        XCTAssertGreaterThan(delays[0], 0.5)
        XCTAssertLessThanOrEqual(delays[0], 3.01)
    }

    func testFiveHundredsBackOffThenFailWithExcerpt() throws {
        let server = try TestHTTPServer { _ in .status(502, body: "upstream   exploded\n badly") }
        defer { server.stop() }
        let client = HTTPClient(timeout: 5, maxRetries: 2, baseBackoff: 0.05)
        var delays: [Double] = []
        client.onRetry = { delays.append($0.delay) }
        XCTAssertThrowsError(try client.send(.get(server.url("/x?key=SECRET")))) { error in
            let e = error as! HTTPError
            XCTAssertEqual(e.kind, .status)
            XCTAssertEqual(e.status, 502)
            XCTAssertTrue(e.message.contains("HTTP 502"), e.message)
            XCTAssertTrue(e.message.contains("upstream exploded badly"), e.message)
            XCTAssertFalse(e.message.contains("SECRET"), "query strings must not leak: \(e.message)")
            XCTAssertEqual(e.ibError.code, .provider)
        }
        XCTAssertEqual(server.requests.count, 3)
        XCTAssertEqual(delays.count, 2)
        // Exponential with jitter in [50%, 100%]: first in [0.025, 0.05], second in [0.05, 0.1].
        XCTAssertTrue((0.025...0.05).contains(delays[0]), "\(delays)")
        XCTAssertTrue((0.05...0.1).contains(delays[1]), "\(delays)")
    }

    func testClientErrorsAreNotRetried() throws {
        let server = try TestHTTPServer { _ in .json(#"{"error": "bad key"}"#, status: 401) }
        defer { server.stop() }
        XCTAssertThrowsError(try HTTPClient(timeout: 5, maxRetries: 3).send(.get(server.url("/")))) { error in
            let e = error as! HTTPError
            XCTAssertEqual(e.status, 401)
            XCTAssertTrue(e.message.contains("401 Unauthorized"), e.message)
            XCTAssertTrue(e.bodyExcerpt.contains("bad key"))
        }
        XCTAssertEqual(server.requests.count, 1)
    }

    func testTooLongRetryAfterFailsAtOnce() throws {
        let server = try TestHTTPServer { _ in .status(429, headers: [("Retry-After", "3600")]) }
        defer { server.stop() }
        let client = HTTPClient(timeout: 5, maxRetries: 3, maxRetryAfter: 10)
        XCTAssertThrowsError(try client.send(.get(server.url("/")))) { error in
            XCTAssertTrue((error as! HTTPError).message.contains("too long"), "\(error)")
        }
        XCTAssertEqual(server.requests.count, 1)
    }

    func testConnectionRefused() {
        let port = unusedLocalPort()
        XCTAssertThrowsError(try HTTPClient(timeout: 5, maxRetries: 3).send(.get("http://127.0.0.1:\(port)/"))) { error in
            let e = error as! HTTPError
            XCTAssertEqual(e.kind, .connectionRefused, e.message)
            XCTAssertTrue(e.message.contains("connection refused"), e.message)
        }
    }

    func testTimeoutWaitingForResponse() throws {
        let server = try TestHTTPServer { _ in .delayed(3, .text("late")) }
        defer { server.stop() }
        let start = Timestamp.monotonic()
        XCTAssertThrowsError(try HTTPClient(timeout: 0.5, maxRetries: 2).send(.get(server.url("/")))) { error in
            let e = error as! HTTPError
            XCTAssertEqual(e.kind, .timeout, e.message)
            XCTAssertTrue(e.message.contains("timed out"), e.message)
        }
        XCTAssertLessThan(Timestamp.monotonic() - start, 2.9, "the timeout must not wait for the server")
    }

    func testTimeoutWhenAStreamStalls() throws {
        let server = try TestHTTPServer(script: [.stream(pieces: [.init("a"), .init("b", delay: 3)])])
        defer { server.stop() }
        var got = ""
        XCTAssertThrowsError(try HTTPClient(timeout: 0.5).stream(.get(server.url("/"))) { got += String(decoding: $0, as: UTF8.self) }) { error in
            XCTAssertEqual((error as! HTTPError).kind, .timeout)
        }
        XCTAssertEqual(got, "a")
    }

    func testDroppedConnectionMidStream() throws {
        let server = try TestHTTPServer(script: [.stream(pieces: [.init("data: 1\n\n"), .init("data: 2\n", delay: 0.05)], drop: true)])
        defer { server.stop() }
        var got = ""
        XCTAssertThrowsError(try HTTPClient(timeout: 5).stream(.get(server.url("/"))) { got += String(decoding: $0, as: UTF8.self) }) { error in
            let e = error as! HTTPError
            XCTAssertEqual(e.kind, .connectionLost, e.message)
        }
        XCTAssertTrue(got.hasPrefix("data: 1"))
        XCTAssertEqual(server.requests.count, 1, "a stream that started must not be retried")
    }

    func testHangUpWithoutResponse() throws {
        let server = try TestHTTPServer { _ in .hangUp }
        defer { server.stop() }
        XCTAssertThrowsError(try HTTPClient(timeout: 5, maxRetries: 0).send(.get(server.url("/")))) { error in
            let e = error as! HTTPError
            XCTAssertTrue([.connectionLost, .network].contains(e.kind), e.message)
        }
    }

    func testSizeCap() throws {
        let server = try TestHTTPServer { _ in .bytes([UInt8](repeating: 65, count: 100_000)) }
        defer { server.stop() }
        let client = HTTPClient(timeout: 5, maxResponseBytes: 10_000)
        XCTAssertThrowsError(try client.send(.get(server.url("/")))) { error in
            XCTAssertEqual((error as! HTTPError).kind, .tooLarge)
        }
        client.maxResponseBytes = 200_000
        XCTAssertEqual(try client.send(.get(server.url("/"))).body.count, 100_000)
    }

    func testRedirectsAreFollowedUpToTheLimit() throws {
        let server = try TestHTTPServer { request in
            let n = Int(request.path.dropFirst()) ?? 0
            if n >= 3 { return .text("arrived at \(n)") }
            return .status(302, headers: [("Location", "/\(n + 1)")])
        }
        defer { server.stop() }
        let ok = try HTTPClient(timeout: 5, maxRedirects: 5).send(.get(server.url("/0")))
        XCTAssertEqual(ok.text, "arrived at 3")
        XCTAssertTrue(ok.head.url.hasSuffix("/3"), ok.head.url)
        XCTAssertThrowsError(try HTTPClient(timeout: 5, maxRedirects: 2).send(.get(server.url("/0")))) { error in
            XCTAssertEqual((error as! HTTPError).kind, .tooManyRedirects, "\(error)")
        }
    }

    func testCallbackErrorCancels() throws {
        struct Stop: Error {}
        let server = try TestHTTPServer(script: [.stream(pieces: [.init("a"), .init("b", delay: 0.05), .init("c", delay: 0.05)])])
        defer { server.stop() }
        XCTAssertThrowsError(try HTTPClient(timeout: 5).stream(.get(server.url("/"))) { _ in throw Stop() }) { error in
            let e = error as! HTTPError
            XCTAssertEqual(e.kind, .cancelled)
            XCTAssertTrue(e.underlying is Stop)
        }
    }

    func testInvalidURL() {
        XCTAssertThrowsError(try HTTPClient().send(.get("ftp://example.com/x"))) { error in
            XCTAssertEqual((error as! HTTPError).kind, .invalidURL)
        }
    }

    private func httpDate(_ seconds: Double) -> String {
        var t = time_t(seconds.rounded(.up))
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func pad(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(pad(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) \(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)) GMT"
    }
}
