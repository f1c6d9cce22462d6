// JSON-RPC 2.0 as MCP uses it over stdio: one message per line, requests
// (with an id) get exactly one response, notifications (without) get none.
// A line that is not a usable message gets an error response whose id is the
// request's when it can be read, null otherwise; the connection stays open.
import IBCore

/// The error codes ib-mcp answers with (JSON-RPC's and MCP's).
enum RPCCode: Int {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    /// MCP: resources/read of a URI the server does not have.
    case resourceNotFound = -32002
    /// MCP 2026-07-28: a protocol version the server does not speak (data: supported, requested).
    case unsupportedVersion = -32022
}

/// A request that fails as a whole: becomes the response's "error".
struct RPCError: Error {
    var code: RPCCode
    var message: String
    var data: JSON? = nil
    init(_ code: RPCCode, _ message: String, data: JSON? = nil) {
        self.code = code; self.message = message; self.data = data
    }
}

/// One inbound message, sorted out of a line.
enum Inbound {
    /// A request: answer it, with this id.
    case request(id: JSON, method: String, params: JSONObject)
    /// A notification: act on it, answer nothing.
    case notification(method: String, params: JSONObject)
    /// A response to a request of ours (ib-mcp sends none): ignored.
    case response
    /// Not a usable message: answer this error (id null when it could not be read).
    case invalid(id: JSON, RPCError)

    static func read(_ line: UnsafeBufferPointer<UInt8>) -> Inbound {
        let value: JSON
        do {
            value = try JSON.parse(line)
        } catch {
            return .invalid(id: .null, RPCError(.parseError, "parse error: \(error)"))
        }
        return read(value)
    }

    static func read(_ value: JSON) -> Inbound {
        if case .array = value {
            return .invalid(id: .null, RPCError(.invalidRequest, "invalid request: batches are not supported; send one message per line"))
        }
        guard let o = value.objectValue else {
            return .invalid(id: .null, RPCError(.invalidRequest, "invalid request: a message is a JSON object"))
        }
        // An id is a string or an integer; anything else cannot be answered by it.
        var id: JSON? = nil
        if let raw = o["id"] {
            switch raw {
            case .string: id = raw
            case .number where raw.intValue != nil: id = raw
            default:
                return .invalid(id: .null, RPCError(.invalidRequest, "invalid request: \"id\" must be a string or an integer"))
            }
        }
        guard o["jsonrpc"]?.stringValue == "2.0" else {
            return .invalid(id: id ?? .null, RPCError(.invalidRequest, "invalid request: \"jsonrpc\" must be \"2.0\""))
        }
        guard let methodValue = o["method"] else {
            if id != nil && (o["result"] != nil || o["error"] != nil) { return .response }
            return .invalid(id: id ?? .null, RPCError(.invalidRequest, "invalid request: \"method\" is missing"))
        }
        guard let method = methodValue.stringValue else {
            return .invalid(id: id ?? .null, RPCError(.invalidRequest, "invalid request: \"method\" must be a string"))
        }
        var params = JSONObject()
        if let p = o["params"], !p.isNull {
            guard let object = p.objectValue else {
                if let id { return .invalid(id: id, RPCError(.invalidParams, "invalid params: \"params\" must be an object")) }
                return .notification(method: method, params: JSONObject())
            }
            params = object
        }
        if let id { return .request(id: id, method: method, params: params) }
        return .notification(method: method, params: params)
    }
}

enum RPCMessage {
    static func result(id: JSON, _ result: JSON) -> JSON {
        .object(JSONObject([("jsonrpc", "2.0"), ("id", id), ("result", result)]))
    }

    static func error(id: JSON, _ error: RPCError) -> JSON {
        var e = JSONObject([("code", JSON(error.code.rawValue)), ("message", .string(error.message))])
        if let data = error.data { e["data"] = data }
        return .object(JSONObject([("jsonrpc", "2.0"), ("id", id), ("error", .object(e))]))
    }
}
