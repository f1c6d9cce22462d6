// The MCP session: both eras of the protocol over one stdio connection.
// One message in, at most one message out; any failure is an error
// response, never an exit.
//
// The handshake era (2024-11-05 to 2025-11-25): `initialize` negotiates the
// version (an offer of one of those is accepted, any other gets 2025-11-25,
// and the client decides), then `notifications/initialized`. Clients before
// 2025-06-18 get no titles, output schemas or structured content (their
// protocol has none); the same JSON is in the text content for every client.
//
// The modern era (2026-07-28): stateless; every request carries its protocol
// version and client capabilities in `params._meta`, `server/discover` tells
// the versions and capabilities, and every result carries `resultType`
// (lists and reads also `cacheScope` and `ttlMs`) and the server's identity in
// its `_meta`. A version this server lacks is error -32022 naming the ones it
// has. The first request fixes a connection's era: after `initialize`, an
// enveloped request is refused (-32600); after an enveloped request,
// `initialize` is refused (-32022), and so is a request without the envelope (-32602).
import IBCapture
import IBCore
import IBSearch

public final class MCPServer {
    public static let supportedVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    public static var latestVersion: String { supportedVersions[0] }
    public static let modernVersions = ["2026-07-28"]

    static let versionKey = "io.modelcontextprotocol/protocolVersion"
    static let capabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    static let serverInfoKey = "io.modelcontextprotocol/serverInfo"

    enum Era { case handshake, modern }
    /// Fixed by the first initialize or enveloped request.
    var era: Era?
    /// The version the request being answered speaks (per request in the modern era).
    var requestVersion: String?

    let access: LibraryAccess
    /// The version agreed in initialize; nil before it.
    public private(set) var protocolVersion: String?
    /// Whether notifications/initialized has come.
    public private(set) var initialized = false

    /// `settings`: ib-search's (the IB_SEARCH_* environment, read once by the command).
    public init(databasePath: String?, modelDirectory: String?, settings: SearchSettings = SearchSettings(), today: Day? = nil) {
        access = LibraryAccess(databasePath: databasePath, modelDirectory: modelDirectory, settings: settings, today: today)
    }

    static let instructions = """
        ib is the user's personal library of books. Use search_library to find passages (it never goes past the \
        page the user has reached unless all_pages is true, which only the user may ask for), get_passage to read \
        one with its neighbours, continue_reading for where they are, and capture (or add_quote, add_note, \
        log_progress, set_plan) to save what they say. When a book name is ambiguous the tool fails with the \
        candidates: ask the user which one and call again with its id.
        """

    /// Titles, output schemas and structured content came with 2025-06-18.
    var structured: Bool { (requestVersion ?? protocolVersion ?? Self.latestVersion) >= "2025-06-18" }

    // MARK: messages

    /// The response to one line, or nil when none is due (a notification, a response, a blank line).
    public func handle(line: UnsafeBufferPointer<UInt8>) -> JSON? {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        return handle(Inbound.read(line))
    }

    public func handle(_ text: String) -> String? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { handle(line: UnsafeBufferPointer($0)) }?.serialized
    }

    func handle(_ message: Inbound) -> JSON? {
        switch message {
        case .invalid(let id, let error):
            printError("ib-mcp: \(error.message)")
            return RPCMessage.error(id: id, error)
        case .response:
            return nil
        case .notification(let method, _):
            if method == "notifications/initialized" { initialized = true }
            return nil
        case .request(let id, let method, let params):
            do {
                if method != "initialize", params["_meta"]?[Self.versionKey] != nil {
                    return RPCMessage.result(id: id, try modern(method, params))
                }
                if method == "initialize", era == .modern {
                    throw RPCError(.unsupportedVersion, "this connection speaks the \(Self.modernVersions[0]) protocol (per-request _meta); the initialize handshake is not accepted on it",
                                   data: ["supported": JSON(Self.modernVersions), "requested": params["protocolVersion"] ?? .null])
                }
                if method == "server/discover" || (era == .modern && method != "initialize") {
                    throw RPCError(.invalidParams, "invalid params: \(method) needs params._meta with \(Self.versionKey) and \(Self.capabilitiesKey) (protocol \(Self.modernVersions[0]))")
                }
                requestVersion = nil
                return RPCMessage.result(id: id, try request(method, params))
            } catch let e as RPCError {
                return RPCMessage.error(id: id, e)
            } catch {
                printError("ib-mcp: \(method): \(error)")
                return RPCMessage.error(id: id, RPCError(.internalError, "internal error: \(error)"))
            }
        }
    }

    func request(_ method: String, _ params: JSONObject) throws -> JSON {
        switch method {
        case "initialize": return try initialize(params)
        case "ping": return .object(JSONObject())
        case "tools/list": return ["tools": .array(Tools.all.map { $0.listing(structured: structured) })]
        case "tools/call": return try callTool(params)
        case "resources/list": return try resourceCall { try Resources.list(access) }
        case "resources/templates/list": return Resources.templates()
        case "resources/read":
            guard let uri = params["uri"]?.stringValue else { throw RPCError(.invalidParams, "invalid params: resources/read needs \"uri\", a string") }
            return try resourceCall { try Resources.read(uri, access) }
        case "server/discover":
            return ["supportedVersions": JSON(Self.supportedVersions.reversed() + Self.modernVersions),
                    "capabilities": Self.capabilities, "instructions": .string(Self.instructions)]
        default:
            throw RPCError(.methodNotFound, "method not found: \(method)")
        }
    }

    func initialize(_ params: JSONObject) throws -> JSON {
        guard let offered = params["protocolVersion"]?.stringValue else {
            throw RPCError(.invalidParams, "invalid params: initialize needs \"protocolVersion\", a string")
        }
        let version = Self.supportedVersions.contains(offered) ? offered : Self.latestVersion
        protocolVersion = version
        era = .handshake
        return ["protocolVersion": .string(version), "capabilities": Self.capabilities,
                "serverInfo": serverInfo, "instructions": .string(Self.instructions)]
    }

    static let capabilities: JSON = ["tools": ["listChanged": false], "resources": ["subscribe": false, "listChanged": false]]

    var serverInfo: JSON {
        var info = JSONObject([("name", "ib-mcp"), ("version", .string(ibVersion))])
        if structured { info["title"] = "ib: your library" }
        return .object(info)
    }

    // MARK: the modern era

    /// One request in the 2026-07-28 envelope: checked, answered, and its result stamped.
    func modern(_ method: String, _ params: JSONObject) throws -> JSON {
        if era == .handshake {
            throw RPCError(.invalidRequest, "invalid request: this connection began with initialize (protocol \(protocolVersion ?? Self.latestVersion)); requests with the \(Self.modernVersions[0]) _meta envelope are not accepted on it")
        }
        guard let meta = params["_meta"]?.objectValue, meta[Self.capabilitiesKey] != nil else {
            throw RPCError(.invalidParams, "invalid params: params._meta is missing \(Self.capabilitiesKey)")
        }
        guard let version = meta[Self.versionKey]?.stringValue else {
            throw RPCError(.invalidParams, "invalid params: \(Self.versionKey) must be a string")
        }
        guard Self.modernVersions.contains(version) else {
            throw RPCError(.unsupportedVersion, "unsupported protocol version \(version); this server speaks \(Self.modernVersions.joined(separator: ", ")) per request (and \(Self.supportedVersions.reversed().joined(separator: ", ")) by initialize)",
                           data: ["supported": JSON(Self.modernVersions), "requested": .string(version)])
        }
        era = .modern
        requestVersion = version
        defer { requestVersion = nil }
        guard case .object(var result) = try request(method, params) else { throw RPCError(.internalError, "internal error: a result that is not an object") }
        result["resultType"] = "complete"
        // What may be cached, by whom and for how long: the tool list and the
        // server's description are the same for everyone; the library is the reader's own and changes.
        switch method {
        case "server/discover", "tools/list", "resources/templates/list":
            result["cacheScope"] = "public"; result["ttlMs"] = 3_600_000
        case "resources/list", "resources/read":
            result["cacheScope"] = "private"; result["ttlMs"] = 0
        default:
            break
        }
        var resultMeta = result["_meta"]?.objectValue ?? JSONObject()
        resultMeta[Self.serverInfoKey] = serverInfo
        result["_meta"] = .object(resultMeta)
        return .object(result)
    }

    /// Resource failures other than "not found" (no library, a bad file) are internal errors with the reason.
    func resourceCall(_ body: () throws -> JSON) throws -> JSON {
        do {
            return try body()
        } catch let e as ToolError {
            throw RPCError(.internalError, e.message)
        }
    }

    // MARK: tools

    func callTool(_ params: JSONObject) throws -> JSON {
        guard let name = params["name"]?.stringValue else {
            throw RPCError(.invalidParams, "invalid params: tools/call needs \"name\", a string")
        }
        guard let tool = Tools.named(name) else {
            throw RPCError(.invalidParams, "unknown tool: \(name) (tools: \(Tools.all.map(\.name).joined(separator: ", ")))")
        }
        let arguments = params["arguments"] ?? .object(JSONObject())
        if let problem = Schema.violation(of: tool.input, by: arguments.isNull ? .object(JSONObject()) : arguments) {
            return toolError(ToolError("\(name): bad arguments: \(problem)"))
        }
        do {
            let result = try tool.run(ToolArguments(object: arguments.objectValue ?? JSONObject()), access)
            var o = JSONObject([("content", [["type": "text", "text": .string(result.serialized)]])])
            if structured { o["structuredContent"] = result }
            o["isError"] = false
            return .object(o)
        } catch let e as ToolError {
            return toolError(e)
        }
    }

    func toolError(_ e: ToolError) -> JSON {
        printError("ib-mcp: \(e.message)")
        var o = JSONObject([("content", [["type": "text", "text": .string(e.message)]])])
        if structured, let detail = e.detail {
            var d = detail.objectValue ?? JSONObject()
            d["message"] = .string(e.message)
            o["structuredContent"] = .object(d)
        }
        o["isError"] = true
        return .object(o)
    }
}
