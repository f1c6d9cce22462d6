// The chat providers: each turns a provider-neutral ChatRequest into its
// API's wire format, streams the answer and parses the stream incrementally
// (SSE for Anthropic and OpenAI, NDJSON for Ollama); `llm` runs Simon
// Willison's llm command instead (LLMProvider.swift).
import IBCore
import IBHTTP

/// How to reach a provider; keys come from the environment only.
public struct ProviderSettings {
    public var name: String
    public var model: String
    public var baseURL: String
    /// Never logged, printed or stored.
    var apiKey: String?
    public var timeout: Double = 60
    public var maxRetries: Int = 3
    public var useTools: Bool = true
    /// Called before a retry sleep (for --verbose).
    public var onRetry: ((HTTPRetry) -> Void)?
    /// Provider llm: the command ($IB_LLM, else `llm` on PATH), and whether llm may log
    /// the prompts in its database ($IB_LLM_LOG=1; by default --no-log).
    var llmCommand = "llm"
    var llmKeepsLog = false

    public static let names = ["anthropic", "openai", "ollama", "llm", "extractive"]
    public static let defaultModels = ["anthropic": "claude-sonnet-4-5", "openai": "gpt-4o-mini", "ollama": "llama3.1"]

    /// Picks the provider: `flag`, then $IB_PROVIDER, then the first API key
    /// found (ANTHROPIC_API_KEY, OPENAI_API_KEY), else extractive. The base URL
    /// is `baseURL` (--base-url), else ANTHROPIC_BASE_URL, OPENAI_BASE_URL or
    /// OLLAMA_HOST, read by ProviderEndpoint (IBCore) exactly as ib-embed reads
    /// them. Provider llm takes no address and no key (llm has its own); its
    /// model is llm's default unless one is named. `environment` keeps a
    /// variable set but empty as "": an empty endpoint variable is refused,
    /// any other counts as unset.
    public static func resolve(provider flag: String?, model: String?, baseURL baseFlag: String? = nil,
                               environment raw: (String) -> String? = Config.rawEnvironment) throws(IBError) -> ProviderSettings {
        func environment(_ name: String) -> String? { raw(name).flatMap { $0.isEmpty ? nil : $0 } }
        var name = flag ?? environment("IB_PROVIDER")
        if name == nil {
            if environment("ANTHROPIC_API_KEY") != nil { name = "anthropic" }
            else if environment("OPENAI_API_KEY") != nil { name = "openai" }
            else { name = "extractive" }
        }
        let chosen = name!.lowercased()
        guard names.contains(chosen) else {
            throw IBError.usage("unknown provider '\(name!)' (choose one of \(names.joined(separator: ", ")))")
        }
        let model = model ?? environment("IB_MODEL") ?? (chosen == "llm" ? "" : defaultModels[chosen] ?? Config.defaultModelName)
        switch chosen {
        case "anthropic":
            let base = try ProviderEndpoint.baseURL(.anthropic, flag: baseFlag, environment: raw)
            guard let key = environment("ANTHROPIC_API_KEY") else {
                throw IBError("provider anthropic needs ANTHROPIC_API_KEY in the environment (or use --provider extractive)", code: .provider)
            }
            return ProviderSettings(name: chosen, model: model, baseURL: base, apiKey: key)
        case "openai":
            let base = try ProviderEndpoint.baseURL(.openai, flag: baseFlag, environment: raw)
            // A compatible server (OPENAI_BASE_URL, --base-url) may need no key; OpenAI itself does.
            let key = environment("OPENAI_API_KEY")
            guard key != nil || ProviderEndpoint.source(.openai, flag: baseFlag, environment: raw) != nil else {
                throw IBError("provider openai needs OPENAI_API_KEY in the environment (or use --provider extractive)", code: .provider)
            }
            return ProviderSettings(name: chosen, model: model, baseURL: base, apiKey: key)
        case "ollama":
            let base = try ProviderEndpoint.baseURL(.ollama, flag: baseFlag, environment: raw)
            return ProviderSettings(name: chosen, model: model, baseURL: base, apiKey: nil)
        case "llm":
            if baseFlag != nil { throw IBError.usage("--base-url needs --provider anthropic, openai or ollama (llm has its own settings)") }
            var settings = ProviderSettings(name: chosen, model: model, baseURL: "", apiKey: nil)
            settings.llmCommand = environment("IB_LLM") ?? "llm"
            settings.llmKeepsLog = environment("IB_LLM_LOG") == "1"
            guard Subprocess.find(settings.llmCommand) != nil else {
                throw LLMProvider.notInstalled
            }
            return settings
        default:
            if baseFlag != nil { throw IBError.usage("--base-url needs --provider anthropic, openai or ollama") }
            return ProviderSettings(name: "extractive", model: model, baseURL: "", apiKey: nil)
        }
    }

    /// The request URL for `path` under the base ("messages", "chat/completions", "api/chat").
    /// Anthropic and OpenAI bases end in a version (/v1 added when missing), as ib-embed's do.
    public func endpoint(_ path: String) -> String {
        ProviderEndpoint.url(name == "ollama" ? baseURL : ProviderEndpoint.versioned(baseURL), path)
    }

    /// The provider object, or nil for extractive.
    public func makeProvider() -> ChatProvider? {
        switch name {
        case "anthropic": return AnthropicProvider(self)
        case "openai": return OpenAIProvider(self)
        case "ollama": return OllamaProvider(self)
        case "llm": return LLMProvider(self)
        default: return nil
        }
    }

    func client() -> HTTPClient {
        let client = HTTPClient(timeout: timeout, maxRetries: maxRetries)
        client.onRetry = onRetry
        return client
    }
}

/// The model does not accept tools (Ollama models without tool support).
struct ToolsUnsupported: Error {}

/// A clear IBError (exit 4) for a failed provider call.
func providerError(_ error: HTTPError, provider: String, keyVariable: String?, retries: Int) -> IBError {
    if error.kind == .cancelled, let inner = error.underlying as? IBError { return inner }
    let label = providerLabel(provider)
    if error.kind == .connectionLost {
        return IBError("the \(label) stream was cut off mid-answer (\(error.message)); nothing was saved", code: .provider)
    }
    let excerpt = error.bodyExcerpt.isEmpty ? "" : ": " + error.bodyExcerpt
    return IBError(error.providerMessage(who: label, label: label, keyVariable: keyVariable, retries: retries, detail: excerpt),
                   code: .provider)
}

func providerLabel(_ name: String) -> String {
    switch name {
    case "anthropic": return "Anthropic"
    case "openai": return "OpenAI"
    case "ollama": return "Ollama"
    default: return name
    }
}

func malformed(_ provider: String, _ detail: String) -> IBError {
    IBError("malformed stream from \(providerLabel(provider)): \(detail); nothing was saved", code: .provider)
}

func parseJSON(_ text: String, provider: String) throws(IBError) -> JSON {
    do { return try JSON.parse(text) } catch {
        throw malformed(provider, "invalid JSON (\(error)) in \(String(text.prefix(120)))")
    }
}

/// A provider set up from ProviderSettings, which name its model and whether it may call tools.
protocol ConfiguredProvider: ChatProvider {
    var settings: ProviderSettings { get }
}

extension ConfiguredProvider {
    var model: String { settings.model }
    var supportsTools: Bool { settings.useTools }
}

/// The message list of the chat APIs OpenAI and Ollama share: the system prompt
/// first, the user's messages as they are; an assistant turn's content and tool
/// calls, and each tool result, in the provider's own form.
func chatStyleMessages(_ request: ChatRequest, content: (String, [ToolCall]) -> JSON, toolCall: (ToolCall) -> JSON,
                       toolResult: (ToolResult) -> JSON) -> [JSON] {
    var messages: [JSON] = [["role": "system", "content": .string(request.system)]]
    for message in request.messages {
        switch message {
        case .user(let text):
            messages.append(["role": "user", "content": .string(text)])
        case .assistant(let text, let calls):
            var m = JSONObject([("role", "assistant"), ("content", content(text, calls))])
            if !calls.isEmpty { m["tool_calls"] = .array(calls.map(toolCall)) }
            messages.append(.object(m))
        case .toolResults(let results):
            messages += results.map(toolResult)
        }
    }
    return messages
}

// MARK: - Anthropic

/// Anthropic Messages API: POST {base}/v1/messages, streamed SSE.
final class AnthropicProvider: ConfiguredProvider {
    let settings: ProviderSettings
    var name: String { "anthropic" }
    static let apiVersion = "2023-06-01"

    init(_ settings: ProviderSettings) { self.settings = settings }

    func body(_ request: ChatRequest) -> JSON {
        var messages: [JSON] = []
        for message in request.messages {
            switch message {
            case .user(let text):
                messages.append(["role": "user", "content": .string(text)])
            case .assistant(let text, let calls):
                var blocks: [JSON] = []
                if !text.isEmpty { blocks.append(["type": "text", "text": .string(text)]) }
                for call in calls {
                    blocks.append(["type": "tool_use", "id": .string(call.id), "name": .string(call.name), "input": call.arguments])
                }
                if blocks.isEmpty { blocks.append(["type": "text", "text": "(no answer)"]) }
                messages.append(["role": "assistant", "content": .array(blocks)])
            case .toolResults(let results):
                messages.append(["role": "user", "content": .array(results.map {
                    ["type": "tool_result", "tool_use_id": .string($0.callID), "content": .string($0.content)]
                })])
            }
        }
        var body = JSONObject([
            ("model", .string(settings.model)),
            ("max_tokens", .number(Double(request.maxTokens))),
            ("system", .string(request.system)),
            ("messages", .array(messages)),
            ("stream", true),
        ])
        if !request.tools.isEmpty {
            body["tools"] = .array(request.tools.map {
                ["name": .string($0.name), "description": .string($0.description), "input_schema": $0.parameters]
            })
            body["tool_choice"] = ["type": request.toolChoice == .none ? "none" : "auto"]
        }
        return .object(body)
    }

    func complete(_ request: ChatRequest, onText: (String) throws -> Void) throws -> ChatTurn {
        let http = HTTPRequest.json(settings.endpoint("messages"), body: body(request), headers: [
            ("x-api-key", settings.apiKey ?? ""),
            ("anthropic-version", Self.apiVersion),
            ("Accept", "text/event-stream"),
        ])
        var turn = ChatTurn()
        struct Block { var type: String; var id = ""; var name = ""; var json = "" }
        var blocks: [Int: Block] = [:]
        var order: [Int] = []
        var finished = false
        var parser = SSEParser()
        do {
            try settings.client().stream(http) { bytes in
                for event in parser.feed(bytes) {
                    let json = try parseJSON(event.data, provider: name)
                    let type = json["type"]?.stringValue ?? event.event
                    switch type {
                    case "message_start":
                        let usage = json["message"]?["usage"]
                        turn.usage.input = (usage?["input_tokens"]?.intValue ?? 0)
                            + (usage?["cache_creation_input_tokens"]?.intValue ?? 0)
                            + (usage?["cache_read_input_tokens"]?.intValue ?? 0)
                        turn.usage.output = usage?["output_tokens"]?.intValue ?? 0
                    case "content_block_start":
                        guard let index = json["index"]?.intValue, let block = json["content_block"] else {
                            throw malformed(name, "content_block_start without index or content_block")
                        }
                        var b = Block(type: block["type"]?.stringValue ?? "text")
                        b.id = block["id"]?.stringValue ?? ""
                        b.name = block["name"]?.stringValue ?? ""
                        if b.type == "text", let text = block["text"]?.stringValue, !text.isEmpty {
                            turn.text += text; try onText(text)
                        }
                        blocks[index] = b
                        order.append(index)
                    case "content_block_delta":
                        guard let index = json["index"]?.intValue, let delta = json["delta"] else {
                            throw malformed(name, "content_block_delta without index or delta")
                        }
                        switch delta["type"]?.stringValue {
                        case "text_delta":
                            let text = delta["text"]?.stringValue ?? ""
                            turn.text += text
                            try onText(text)
                        case "input_json_delta":
                            guard blocks[index] != nil else { throw malformed(name, "input_json_delta for unknown block \(index)") }
                            blocks[index]!.json += delta["partial_json"]?.stringValue ?? ""
                        default: break  // thinking, signatures, citations: not used
                        }
                    case "content_block_stop":
                        break
                    case "message_delta":
                        if let reason = json["delta"]?["stop_reason"]?.stringValue { turn.stopReason = reason }
                        if let out = json["usage"]?["output_tokens"]?.intValue { turn.usage.output = out }
                        if let input = json["usage"]?["input_tokens"]?.intValue, input > 0 { turn.usage.input = max(turn.usage.input, input) }
                    case "message_stop":
                        finished = true
                    case "error":
                        let error = json["error"]
                        let kind = error?["type"]?.stringValue ?? "error"
                        throw IBError("Anthropic reported \(kind) mid-stream: \(error?["message"]?.stringValue ?? event.data); nothing was saved", code: .provider)
                    default:
                        break  // ping and future events
                    }
                }
            }
        } catch {
            throw providerError(error, provider: name, keyVariable: "ANTHROPIC_API_KEY", retries: settings.maxRetries)
        }
        guard finished else {
            throw IBError("the Anthropic stream ended before message_stop (cut off mid-answer); nothing was saved", code: .provider)
        }
        for index in order {
            guard let block = blocks[index], block.type == "tool_use" else { continue }
            let input = block.json.isEmpty ? JSON.object(JSONObject()) : try parseJSON(block.json, provider: name)
            turn.toolCalls.append(ToolCall(id: block.id, name: block.name, arguments: input))
        }
        return turn
    }
}

// MARK: - OpenAI

/// OpenAI Chat Completions (and compatible servers): POST {base}/v1/chat/completions, streamed SSE
/// (a base that ends in /v1 or another version gets only /chat/completions).
final class OpenAIProvider: ConfiguredProvider {
    let settings: ProviderSettings
    var name: String { "openai" }

    init(_ settings: ProviderSettings) { self.settings = settings }

    func body(_ request: ChatRequest) -> JSON {
        // Content is null beside tool calls; arguments travel as a JSON string.
        let messages = chatStyleMessages(request, content: { text, calls in text.isEmpty && !calls.isEmpty ? .null : .string(text) },
            toolCall: { ["id": .string($0.id), "type": "function",
                         "function": ["name": .string($0.name), "arguments": .string($0.arguments.serialized)]] },
            toolResult: { ["role": "tool", "tool_call_id": .string($0.callID), "content": .string($0.content)] })
        var body = JSONObject([
            ("model", .string(settings.model)),
            ("messages", .array(messages)),
            ("stream", true),
            ("stream_options", ["include_usage": true]),
            ("max_completion_tokens", .number(Double(request.maxTokens))),
        ])
        if !request.tools.isEmpty {
            body["tools"] = .array(request.tools.map {
                ["type": "function", "function": ["name": .string($0.name), "description": .string($0.description), "parameters": $0.parameters]]
            })
            body["tool_choice"] = request.toolChoice == .none ? "none" : "auto"
        }
        return .object(body)
    }

    func complete(_ request: ChatRequest, onText: (String) throws -> Void) throws -> ChatTurn {
        var headers = [("Accept", "text/event-stream")]
        if let key = settings.apiKey { headers.append(("Authorization", "Bearer " + key)) }
        let http = HTTPRequest.json(settings.endpoint("chat/completions"), body: body(request), headers: headers)
        var turn = ChatTurn()
        struct Call { var id = ""; var name = ""; var arguments = "" }
        var calls: [Int: Call] = [:]
        var finished = false
        var parser = SSEParser()
        do {
            try settings.client().stream(http) { bytes in
                for event in parser.feed(bytes) {
                    if event.data == "[DONE]" { finished = true; continue }
                    let json = try parseJSON(event.data, provider: name)
                    if let error = json["error"], !error.isNull {
                        throw IBError("OpenAI reported an error mid-stream: \(error["message"]?.stringValue ?? event.data); nothing was saved", code: .provider)
                    }
                    if let usage = json["usage"], !usage.isNull {
                        turn.usage.input = usage["prompt_tokens"]?.intValue ?? turn.usage.input
                        turn.usage.output = usage["completion_tokens"]?.intValue ?? turn.usage.output
                    }
                    guard let choice = json["choices"]?.arrayValue?.first else { continue }
                    if let reason = choice["finish_reason"]?.stringValue { turn.stopReason = reason }
                    guard let delta = choice["delta"] else { continue }
                    if let text = delta["content"]?.stringValue, !text.isEmpty {
                        turn.text += text
                        try onText(text)
                    }
                    for call in delta["tool_calls"]?.arrayValue ?? [] {
                        let index = call["index"]?.intValue ?? 0
                        var c = calls[index] ?? Call()
                        if let id = call["id"]?.stringValue { c.id = id }
                        if let n = call["function"]?["name"]?.stringValue { c.name += n }
                        if let a = call["function"]?["arguments"]?.stringValue { c.arguments += a }
                        calls[index] = c
                    }
                }
            }
        } catch {
            throw providerError(error, provider: name, keyVariable: "OPENAI_API_KEY", retries: settings.maxRetries)
        }
        guard finished else {
            throw IBError("the OpenAI stream ended before [DONE] (cut off mid-answer); nothing was saved", code: .provider)
        }
        for index in calls.keys.sorted() {
            let c = calls[index]!
            let arguments = c.arguments.isEmpty ? JSON.object(JSONObject()) : try parseJSON(c.arguments, provider: name)
            turn.toolCalls.append(ToolCall(id: c.id.isEmpty ? "call_\(index)" : c.id, name: c.name, arguments: arguments))
        }
        return turn
    }
}

// MARK: - Ollama

/// Ollama: POST {OLLAMA_HOST}/api/chat, streamed NDJSON.
final class OllamaProvider: ConfiguredProvider {
    var settings: ProviderSettings
    var name: String { "ollama" }

    init(_ settings: ProviderSettings) { self.settings = settings }

    func complete(_ request: ChatRequest, onText: (String) throws -> Void) throws -> ChatTurn {
        let http = HTTPRequest.json(settings.endpoint("api/chat"), body: body(request), headers: [("Accept", "application/x-ndjson")])
        var turn = ChatTurn()
        var finished = false
        var splitter = LineSplitter()
        func handle(_ line: [UInt8]) throws {
            let json = try parseJSON(String(decoding: line, as: UTF8.self), provider: name)
            if let error = json["error"]?.stringValue {
                throw IBError("Ollama reported an error mid-stream: \(error); nothing was saved", code: .provider)
            }
            if let message = json["message"] {
                if let text = message["content"]?.stringValue, !text.isEmpty {
                    turn.text += text
                    try onText(text)
                }
                for call in message["tool_calls"]?.arrayValue ?? [] {
                    let function = call["function"]
                    var arguments = function?["arguments"] ?? .object(JSONObject())
                    if let text = arguments.stringValue { arguments = try parseJSON(text, provider: name) }
                    turn.toolCalls.append(ToolCall(id: call["id"]?.stringValue ?? "call_\(turn.toolCalls.count)",
                                                   name: function?["name"]?.stringValue ?? "", arguments: arguments))
                }
            }
            if json["done"]?.boolValue == true {
                finished = true
                turn.stopReason = json["done_reason"]?.stringValue
                turn.usage.input = json["prompt_eval_count"]?.intValue ?? 0
                turn.usage.output = json["eval_count"]?.intValue ?? 0
            }
        }
        do {
            try settings.client().stream(http) { bytes in
                do {
                    for line in try splitter.feed(bytes) { try handle(line) }
                } catch let e as LineSplitter.LineTooLong {
                    throw malformed(name, e.description)
                }
            }
            if let last = splitter.finish() { try handle(last) }
        } catch let error as HTTPError {
            if error.kind == .status, error.status == 400, request.toolChoice == .auto, !request.tools.isEmpty,
               error.bodyExcerpt.lowercased().contains("does not support tools") {
                throw ToolsUnsupported()
            }
            if error.kind == .status, error.status == 404, error.bodyExcerpt.contains("not found") {
                throw IBError("Ollama has no model '\(settings.model)' (try `ollama pull \(settings.model)` or --model): \(error.bodyExcerpt)", code: .provider)
            }
            throw providerError(error, provider: name, keyVariable: nil, retries: settings.maxRetries)
        }
        guard finished else {
            throw IBError("the Ollama stream ended before done (cut off mid-answer); nothing was saved", code: .provider)
        }
        return turn
    }

    func body(_ request: ChatRequest) -> JSON {
        // Tool calls carry no id; arguments travel as a JSON object, results by the tool's name.
        let messages = chatStyleMessages(request, content: { text, _ in .string(text) },
                                         toolCall: { ["function": ["name": .string($0.name), "arguments": $0.arguments]] },
                                         toolResult: { ["role": "tool", "tool_name": .string($0.name), "content": .string($0.content)] })
        var body = JSONObject([("model", .string(settings.model)), ("messages", .array(messages)), ("stream", true)])
        // Ollama has no tool_choice: the final call leaves the tools out
        // (Ollama accepts tool messages in the history without them).
        if !request.tools.isEmpty && request.toolChoice == .auto {
            body["tools"] = .array(request.tools.map {
                ["type": "function", "function": ["name": .string($0.name), "description": .string($0.description), "parameters": $0.parameters]]
            })
        }
        body["options"] = ["num_predict": .number(Double(request.maxTokens))]
        return .object(body)
    }

}
