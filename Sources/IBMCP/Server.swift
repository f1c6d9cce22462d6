// The MCP session: the initialize handshake and version negotiation, then
// tools, resources and ping. One message in, at most one message out; any
// failure is an error response, never an exit.
//
// Versions: the handshake era, 2024-11-05 to 2025-11-25. A client offering
// one of those gets it back; any other offer gets 2025-11-25, the newest
// (the client then decides). Clients before 2025-06-18 get no titles, output
// schemas or structured content (their protocol has none); the same JSON is
// in the text content for every client. `server/discover` (the stateless
// 2026-07-28 era's probe) is answered "method not found", which tells a client
// to fall back to initialize.
import IBCore

public final class MCPServer {
    public static let supportedVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    public static var latestVersion: String { supportedVersions[0] }

    let access: LibraryAccess
    /// The version agreed in initialize; nil before it.
    public private(set) var protocolVersion: String?
    /// Whether notifications/initialized has come.
    public private(set) var initialized = false

    public init(databasePath: String?, modelDirectory: String?) {
        access = LibraryAccess(databasePath: databasePath, modelDirectory: modelDirectory)
    }

    static let instructions = """
        ib is the user's personal library of books. Use search_library to find passages (it never goes past the \
        page the user has reached unless all_pages is true, which only the user may ask for), get_passage to read \
        one with its neighbours, continue_reading for where they are, and capture (or add_quote, add_note, \
        log_progress, set_plan) to save what they say. When a book name is ambiguous the tool fails with the \
        candidates: ask the user which one and call again with its id.
        """

    /// Titles, output schemas and structured content came with 2025-06-18.
    var structured: Bool { (protocolVersion ?? Self.latestVersion) >= "2025-06-18" }

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
            throw RPCError(.methodNotFound, "method not found: server/discover (ib-mcp speaks the initialize handshake, protocol \(Self.supportedVersions.reversed().joined(separator: ", ")))")
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
        var info = JSONObject([("name", "ib-mcp"), ("version", .string(ibVersion))])
        if structured { info["title"] = "ib: your library" }
        return ["protocolVersion": .string(version),
                "capabilities": ["tools": ["listChanged": false], "resources": ["subscribe": false, "listChanged": false]],
                "serverInfo": .object(info),
                "instructions": .string(Self.instructions)]
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
