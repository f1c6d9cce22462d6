// ProviderEndpoint: the one reading of OLLAMA_HOST, OPENAI_BASE_URL,
// ANTHROPIC_BASE_URL and --base-url that ib-embed and ib-ask share.
import XCTest
@testable import IBCore

final class EndpointTests: XCTestCase {
    func ollama(_ value: String) throws -> String { try ProviderEndpoint.parse(value, api: .ollama, source: "OLLAMA_HOST") }
    func openai(_ value: String) throws -> String { try ProviderEndpoint.parse(value, api: .openai, source: "OPENAI_BASE_URL") }
    func anthropic(_ value: String) throws -> String { try ProviderEndpoint.parse(value, api: .anthropic, source: "ANTHROPIC_BASE_URL") }

    /// The IBError a value gives (exit 2), or a failure.
    func refusal(_ body: () throws -> String, file: StaticString = #filePath, line: UInt = #line) -> IBError? {
        do {
            let url = try body()
            XCTFail("accepted as \(url)", file: file, line: line)
        } catch let error as IBError {
            XCTAssertEqual(error.code, .usage, error.message, file: file, line: line)
            return error
        } catch {
            XCTFail("not an IBError: \(error)", file: file, line: line)
        }
        return nil
    }

    func testOllamaHostAlone() throws {
        XCTAssertEqual(try ollama("myhost"), "http://myhost:11434")
        XCTAssertEqual(try ollama("gpu-box.local"), "http://gpu-box.local:11434")
        XCTAssertEqual(try ollama("10.0.0.2"), "http://10.0.0.2:11434")
        XCTAssertEqual(try ollama("localhost"), "http://localhost:11434")
    }

    func testOllamaHostAndPort() throws {
        XCTAssertEqual(try ollama("myhost:8080"), "http://myhost:8080")
        XCTAssertEqual(try ollama("10.0.0.2:11434"), "http://10.0.0.2:11434")
        XCTAssertEqual(try ollama(":56789"), "http://127.0.0.1:56789", "a port alone is this machine, as Ollama reads it")
    }

    func testOllamaScheme() throws {
        // With a scheme, the scheme's port, as Ollama's own clients read it.
        XCTAssertEqual(try ollama("http://myhost"), "http://myhost:80")
        XCTAssertEqual(try ollama("https://myhost"), "https://myhost:443")
        XCTAssertEqual(try ollama("http://myhost:11434"), "http://myhost:11434")
        XCTAssertEqual(try ollama("https://ollama.example.com:8443"), "https://ollama.example.com:8443")
        XCTAssertEqual(try ollama("HTTP://MyHost:9"), "http://MyHost:9", "the scheme is case-insensitive")
        XCTAssertEqual(try ollama("myhost/proxy/ollama"), "http://myhost:11434/proxy/ollama", "a path is kept")
    }

    func testZeroAddressMeansThisMachine() throws {
        XCTAssertEqual(try ollama("0.0.0.0"), "http://127.0.0.1:11434")
        XCTAssertEqual(try ollama("0.0.0.0:8080"), "http://127.0.0.1:8080")
        XCTAssertEqual(try ollama("http://0.0.0.0:11434/"), "http://127.0.0.1:11434")
        XCTAssertEqual(try ollama("[::]:11434"), "http://[::1]:11434")
        XCTAssertEqual(try openai("http://0.0.0.0:8000"), "http://127.0.0.1:8000/v1")
    }

    func testTrailingSlashesAndSpaces() throws {
        XCTAssertEqual(try ollama("myhost/"), "http://myhost:11434")
        XCTAssertEqual(try ollama("myhost:8080///"), "http://myhost:8080")
        XCTAssertEqual(try ollama("  http://myhost:1/  \n"), "http://myhost:1")
        XCTAssertEqual(try openai("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080/v1")
        XCTAssertEqual(try openai("http://127.0.0.1:8080//"), "http://127.0.0.1:8080/v1")
        XCTAssertEqual(try openai("https://host//proxy//v1//"), "https://host/proxy/v1")
    }

    func testVersionPresentOrNot() throws {
        XCTAssertEqual(try openai("http://127.0.0.1:8080"), "http://127.0.0.1:8080/v1")
        XCTAssertEqual(try openai("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080/v1")
        XCTAssertEqual(try openai("https://api.openai.com"), "https://api.openai.com/v1")
        XCTAssertEqual(try openai("https://proxy.example/openai"), "https://proxy.example/openai/v1")
        XCTAssertEqual(try openai("https://api.groq.com/openai/v1"), "https://api.groq.com/openai/v1")
        XCTAssertEqual(try openai("https://example.com/v1beta"), "https://example.com/v1beta", "another version is kept")
        XCTAssertEqual(try anthropic("https://api.anthropic.com"), "https://api.anthropic.com/v1")
        XCTAssertEqual(try anthropic("http://127.0.0.1:9000/v1/"), "http://127.0.0.1:9000/v1")
        // Request URLs: /v1 exactly once, with or without it in the base.
        for base in ["http://h:1", "http://h:1/", "http://h:1/v1", "http://h:1/v1/"] {
            let v = try openai(base)
            XCTAssertEqual(ProviderEndpoint.url(v, "embeddings"), "http://h:1/v1/embeddings", base)
            XCTAssertEqual(ProviderEndpoint.url(v, "chat/completions"), "http://h:1/v1/chat/completions", base)
            XCTAssertEqual(ProviderEndpoint.url(ProviderEndpoint.versioned(base), "embeddings"), "http://h:1/v1/embeddings", base)
        }
        XCTAssertEqual(ProviderEndpoint.versioned("http://h:1/v1"), "http://h:1/v1", "idempotent")
    }

    func testIPv6() throws {
        XCTAssertEqual(try ollama("[::1]:11434"), "http://[::1]:11434")
        XCTAssertEqual(try ollama("[::1]"), "http://[::1]:11434")
        XCTAssertEqual(try ollama("::1"), "http://[::1]:11434", "a bare IPv6 address, as Ollama accepts it")
        XCTAssertEqual(try ollama("http://[fe80::1]:8080/"), "http://[fe80::1]:8080")
        XCTAssertEqual(try ollama("[0001:002:003:0004::1]:56789"), "http://[0001:002:003:0004::1]:56789")
        XCTAssertEqual(try ollama("https://[2001:DB8::1]"), "https://[2001:db8::1]:443")
        XCTAssertEqual(try openai("http://[::1]:8080"), "http://[::1]:8080/v1")
        XCTAssertEqual(try openai("http://[::ffff:127.0.0.1]:8080/v1"), "http://[::ffff:127.0.0.1]:8080/v1")
        // A bare IPv6 address with a scheme or a port is ambiguous: brackets needed.
        XCTAssertNotNil(refusal { try ollama("http://::1") })
        XCTAssertNotNil(refusal { try ollama("[::1") })
        XCTAssertNotNil(refusal { try ollama("[not:an:address]") })
        XCTAssertNotNil(refusal { try ollama("[::1]x") })
    }

    func testDefaultsFlagAndEnvironment() throws {
        let none: (String) -> String? = { _ in nil }
        XCTAssertEqual(try ProviderEndpoint.baseURL(.ollama, environment: none), "http://127.0.0.1:11434")
        XCTAssertEqual(try ProviderEndpoint.baseURL(.openai, environment: none), "https://api.openai.com/v1")
        XCTAssertEqual(try ProviderEndpoint.baseURL(.anthropic, environment: none), "https://api.anthropic.com/v1")
        let env = ["OLLAMA_HOST": "myhost", "OPENAI_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_BASE_URL": "http://127.0.0.1:8"]
        XCTAssertEqual(try ProviderEndpoint.baseURL(.ollama, environment: { env[$0] }), "http://myhost:11434")
        XCTAssertEqual(try ProviderEndpoint.baseURL(.openai, environment: { env[$0] }), "http://127.0.0.1:9/v1")
        XCTAssertEqual(try ProviderEndpoint.baseURL(.anthropic, environment: { env[$0] }), "http://127.0.0.1:8/v1")
        XCTAssertEqual(try ProviderEndpoint.baseURL(.ollama, flag: "other:1", environment: { env[$0] }), "http://other:1",
                       "--base-url wins over the variable")
        let error = refusal { try ProviderEndpoint.baseURL(.ollama, flag: "ftp://x", environment: { env[$0] }) }
        XCTAssertTrue(error?.message.hasPrefix("--base-url:") == true, error?.message ?? "")
    }

    func testInvalidValuesNameTheVariable() {
        let cases: [(ProviderEndpoint.API, String)] = [
            (.ollama, ""), (.ollama, "   "), (.openai, ""), (.anthropic, ""),
            (.ollama, "ftp://myhost"), (.openai, "ftp://myhost/v1"), (.anthropic, "file:///etc/passwd"), (.ollama, "unix:///run/ollama.sock"),
            (.ollama, "://myhost"), (.ollama, "http://"), (.openai, "http://"), (.openai, "http://:8080"),
            (.ollama, "myhost:port"), (.ollama, "myhost:0"), (.ollama, "myhost:65536"), (.ollama, "myhost:99999999999999999999"),
            (.ollama, "myhost:-1"), (.ollama, "my host"), (.ollama, "myhost\u{0}"), (.ollama, "hôte"), (.ollama, "my_host!"),
            (.ollama, "a..b"), (.ollama, ".myhost"), (.ollama, "-myhost"), (.ollama, "http://myhost?x=1"), (.openai, "http://h/v1#frag"),
            (.openai, "http://user:pass@h/v1"), (.openai, "localhost:8080/v1"), (.openai, "api.openai.com"),
            (.openai, "http://h:1/v1/chat/completions"), (.openai, "http://h:1/v1/embeddings"), (.ollama, "h:1/api/chat"),
            (.anthropic, "https://api.anthropic.com/v1/messages"), (.ollama, "http:/myhost"), (.ollama, "\u{7F}"),
            (.ollama, String(repeating: "a", count: 100_000)), (.openai, "http://" + String(repeating: "b", count: 300)),
        ]
        for (api, value) in cases {
            let variable = ProviderEndpoint.variable(api)
            do {
                let url = try ProviderEndpoint.parse(value, api: api, source: variable)
                XCTFail("\(variable)=\(value.prefix(60)) accepted as \(url)")
            } catch {
                XCTAssertEqual(error.code, .usage, "\(value.prefix(60))")
                XCTAssertTrue(error.message.hasPrefix(variable), "\(value.prefix(60)): \(error.message)")
                XCTAssertFalse(error.message.contains("\n"), "one line: \(error.message)")
                XCTAssertLessThan(error.message.count, 400, "a long value is shortened")
            }
        }
        // The environment's empty value is refused, not read as unset.
        XCTAssertNotNil(refusal { try ProviderEndpoint.baseURL(.ollama, environment: { $0 == "OLLAMA_HOST" ? "" : nil }) })
        let empty = refusal { try ProviderEndpoint.baseURL(.openai, environment: { $0 == "OPENAI_BASE_URL" ? "" : nil }) }
        XCTAssertTrue(empty?.message.contains("OPENAI_BASE_URL is empty") == true, empty?.message ?? "")
    }
}
