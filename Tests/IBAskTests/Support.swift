import XCTest
import Foundation
import IBCore
import IBStore
@testable import IBAsk
import IBTestSupport

/// A real library in a temporary folder with one small book: page 1 is
/// labelled "i", pages 2... are labelled "1", "2"...
final class TestLibrary {
    let directory: String
    let path: String
    let library: Library
    let bookID = "00aa11bb22cc33dd"
    let title = "The Lighthouse Keeper"

    static let pageTexts = [
        "Preface. This story was told to me by my grandmother on a winter night.",
        "Chapter One. Elena kept the lighthouse on Gull Rock. Every evening she climbed the ninety steps to light the lamp. Her brother Tomas fished the cold northern waters.",
        "Elena found a wooden box washed up on the shore. Inside the box was a brass key and a letter addressed to her father. She hid the key under the lamp.",
        "Tomas did not come home from the sea that night. Elena watched the storm from the lantern room and kept the light burning until dawn.",
        "Chapter Two. The brass key opened the locked door of the old chapel. Behind it Elena discovered her father's journal and the map of the reef.",
        "Chapter Three. Tomas returned in spring with a stranger who claimed the lighthouse was his by right. The journal proved otherwise, and the stranger left the island.",
    ]

    init(currentPage: Int = 4) throws {
        directory = "/tmp/ib-ask-test-\(UInt32.random(in: 0 ... .max))"
        try FileSystem.createDirectories(directory)
        path = directory + "/library.db"
        library = try Library.open(path: path)
        let indexer = Indexer(library: library)
        _ = try indexer.add(.book(BookRecord(id: bookID, title: title, authors: ["A. Writer"], language: "en", format: "txt",
                                             source: "/books/lighthouse.txt", sha256: bookID + bookID + bookID + bookID, pageCount: Self.pageTexts.count)))
        for (i, text) in Self.pageTexts.enumerated() {
            _ = try indexer.add(.page(PageRecord(bookID: bookID, page: i + 1, label: i == 0 ? "i" : String(i), text: text)))
        }
        for (i, text) in Self.pageTexts.enumerated() {
            _ = try indexer.add(.chunk(ChunkRecord(bookID: bookID, index: i, startPage: i + 1, endPage: i + 1, startOffset: 0,
                                                   endOffset: text.unicodeScalars.count, tokenCount: text.split(separator: " ").count, text: text)))
        }
        try indexer.finish()
        try library.setPage(bookID: bookID, page: currentPage)
    }

    func context(page: String? = nil) throws -> BookContext {
        try BookLookup.context(library.db, book: BookLookup.resolveBook(library, nil), pageOverride: page)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}

/// The real full-text retriever, recording each search's bound.
final class RecordingRetriever: Retriever {
    let inner: Retriever
    var calls: [(query: String, maxPage: Int?, k: Int)] = []
    init(_ inner: Retriever) { self.inner = inner }
    func search(_ query: String, bookID: String, maxPage: Int?, k: Int) throws -> [Passage] {
        calls.append((query, maxPage, k))
        return try inner.search(query, bookID: bookID, maxPage: maxPage, k: k)
    }
}

// MARK: - wire-format builders (the documented streaming formats)

func sseEvent(_ name: String?, _ json: String) -> String {
    (name.map { "event: \($0)\n" } ?? "") + "data: \(json)\n\n"
}

func jsonString(_ s: String) -> String { JSON.string(s).serialized }

enum Anthropic {
    static func start(input: Int = 25) -> String {
        sseEvent("message_start", #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":\#(input),"output_tokens":1}}}"#)
    }
    static func text(_ pieces: [String], index: Int = 0) -> [String] {
        [sseEvent("content_block_start", #"{"type":"content_block_start","index":\#(index),"content_block":{"type":"text","text":""}}"#)]
            + pieces.map { sseEvent("content_block_delta", #"{"type":"content_block_delta","index":\#(index),"delta":{"type":"text_delta","text":\#(jsonString($0))}}"#) }
            + [sseEvent("content_block_stop", #"{"type":"content_block_stop","index":\#(index)}"#)]
    }
    static func toolUse(id: String, query: String, index: Int = 0) -> [String] {
        let json = #"{"query": \#(jsonString(query))}"#
        let cut = json.index(json.startIndex, offsetBy: 7)
        return [
            sseEvent("content_block_start", #"{"type":"content_block_start","index":\#(index),"content_block":{"type":"tool_use","id":"\#(id)","name":"search_book","input":{}}}"#),
            sseEvent("content_block_delta", #"{"type":"content_block_delta","index":\#(index),"delta":{"type":"input_json_delta","partial_json":""}}"#),
            sseEvent("content_block_delta", #"{"type":"content_block_delta","index":\#(index),"delta":{"type":"input_json_delta","partial_json":\#(jsonString(String(json[..<cut])))}}"#),
            sseEvent("content_block_delta", #"{"type":"content_block_delta","index":\#(index),"delta":{"type":"input_json_delta","partial_json":\#(jsonString(String(json[cut...])))}}"#),
            sseEvent("content_block_stop", #"{"type":"content_block_stop","index":\#(index)}"#),
        ]
    }
    static func end(_ reason: String, output: Int = 12) -> [String] {
        [sseEvent("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"\#(reason)","stop_sequence":null},"usage":{"output_tokens":\#(output)}}"#),
         sseEvent("message_stop", #"{"type":"message_stop"}"#)]
    }
    static func answer(_ pieces: [String], input: Int = 25, output: Int = 12) -> TestResponse {
        .sse([start(input: input), sseEvent("ping", #"{"type": "ping"}"#)] + text(pieces) + end("end_turn", output: output), delay: 0.005)
    }
    static func search(_ query: String, id: String = "toolu_1", preface: String? = nil) -> TestResponse {
        var events = [start()]
        var index = 0
        if let preface { events += text([preface]); index = 1 }
        events += toolUse(id: id, query: query, index: index) + end("tool_use")
        return .sse(events)
    }
}

enum OpenAI {
    static func chunk(_ delta: String, finish: String? = nil) -> String {
        sseEvent(nil, #"{"id":"c1","object":"chat.completion.chunk","model":"gpt-test","choices":[{"index":0,"delta":\#(delta),"finish_reason":\#(finish.map { "\"\($0)\"" } ?? "null")}]}"#)
    }
    static let usage = sseEvent(nil, #"{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":40,"completion_tokens":9,"total_tokens":49}}"#)
    static let done = "data: [DONE]\n\n"
    static func answer(_ pieces: [String]) -> TestResponse {
        .sse([chunk(#"{"role":"assistant","content":""}"#)] + pieces.map { chunk(#"{"content":\#(jsonString($0))}"#) }
             + [chunk("{}", finish: "stop"), usage, done])
    }
    static func search(_ query: String, id: String = "call_1") -> TestResponse {
        let args = #"{"query":\#(jsonString(query))}"#
        let cut = args.index(args.startIndex, offsetBy: 5)
        return .sse([
            chunk(#"{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"\#(id)","type":"function","function":{"name":"search_book","arguments":""}}]}"#),
            chunk(#"{"tool_calls":[{"index":0,"function":{"arguments":\#(jsonString(String(args[..<cut])))}}]}"#),
            chunk(#"{"tool_calls":[{"index":0,"function":{"arguments":\#(jsonString(String(args[cut...])))}}]}"#),
            chunk("{}", finish: "tool_calls"), usage, done,
        ])
    }
}

enum Ollama {
    static func line(_ content: String) -> String {
        #"{"model":"llama-test","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":\#(jsonString(content))},"done":false}"# + "\n"
    }
    static let done = #"{"model":"llama-test","created_at":"2026-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":30,"eval_count":7}"# + "\n"
    static func answer(_ pieces: [String]) -> TestResponse {
        .stream(contentType: "application/x-ndjson", pieces: (pieces.map(line) + [done]).map { .init($0, delay: 0.005) })
    }
    static func search(_ query: String) -> TestResponse {
        .stream(contentType: "application/x-ndjson", pieces: [
            .init(#"{"model":"llama-test","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"search_book","arguments":{"query":\#(jsonString(query))}}}]},"done":false}"# + "\n"),
            .init(done),
        ])
    }
}

func settings(_ name: String, _ server: TestHTTPServer, key: String? = "sk-test-SECRET-123", retries: Int = 2, timeout: Double = 5) throws -> ProviderSettings {
    var env: [String: String] = ["IB_PROVIDER": name]
    switch name {
    case "anthropic": env["ANTHROPIC_BASE_URL"] = server.baseURL; if let key { env["ANTHROPIC_API_KEY"] = key }
    case "openai": env["OPENAI_BASE_URL"] = server.baseURL + "/v1"; if let key { env["OPENAI_API_KEY"] = key }
    default: env["OLLAMA_HOST"] = server.baseURL
    }
    var s = try ProviderSettings.resolve(provider: nil, model: name + "-test-model", environment: { env[$0] })
    s.maxRetries = retries
    s.timeout = timeout
    return s
}
