// Incremental parsers for streamed bodies, fed arbitrary byte chunks:
// `SSEParser` for text/event-stream (Anthropic, OpenAI) and `LineSplitter`
// for NDJSON (Ollama). A chunk may end anywhere, even inside a UTF-8
// sequence or between the CR and LF of a line ending.

/// One server-sent event.
public struct SSEEvent: Sendable, Equatable {
    /// The `event:` field; "message" when the event had none.
    public var event: String
    /// The `data:` lines joined with "\n".
    public var data: String
    /// The last `id:` seen so far in the stream (it persists across events).
    public var id: String?
    /// A `retry:` value in milliseconds, if this event carried one.
    public var retry: Int?

    public init(event: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event; self.data = data; self.id = id; self.retry = retry
    }
}

/// Server-sent events as the WHATWG HTML standard parses them: lines end in
/// CRLF, LF or CR; `:` starts a comment; `field: value` drops one leading
/// space; several `data:` lines join with "\n"; a blank line dispatches; an
/// event with no data is not dispatched; a leading BOM is skipped.
public struct SSEParser: Sendable {
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var eventType = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var lastID: String?
    private var retry: Int?
    /// Longest line kept; longer lines are an error in `feed`.
    public var maxLineBytes: Int

    public init(maxLineBytes: Int = 16 << 20) { self.maxLineBytes = maxLineBytes }

    /// True when part of an event has been read but not yet dispatched (a
    /// stream that ends now was cut off mid-event).
    public var hasPendingEvent: Bool { !line.isEmpty || hasData || !eventType.isEmpty }

    /// The last event id seen (for reconnecting with Last-Event-ID).
    public var lastEventID: String? { lastID }

    /// Feeds bytes; returns the events completed by them.
    public mutating func feed<C: Collection>(_ bytes: C) -> [SSEEvent] where C.Element == UInt8 {
        var out: [SSEEvent] = []
        for byte in bytes {
            if bomMatched < 3 {
                // A UTF-8 BOM may start the stream, possibly split across chunks.
                let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
                if byte == bom[bomMatched] { bomMatched += 1; continue }
                let held = bom[0..<bomMatched]
                bomMatched = 3
                for b in held { take(b, &out) }
            }
            take(byte, &out)
        }
        return out
    }

    private var bomMatched = 0

    private mutating func take(_ byte: UInt8, _ out: inout [SSEEvent]) {
        if byte == 0x0A {
            if lastWasCR { lastWasCR = false; return }
            endLine(&out)
        } else if byte == 0x0D {
            lastWasCR = true
            endLine(&out)
        } else {
            lastWasCR = false
            line.append(byte)
        }
    }

    /// Ends the stream. Per the standard an unterminated event is dropped;
    /// check `hasPendingEvent` first to tell a cut-off stream.
    public mutating func finish() -> [SSEEvent] {
        line.removeAll(); data.removeAll(); hasData = false; eventType = ""; retry = nil
        return []
    }

    private mutating func endLine(_ out: inout [SSEEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            // Dispatch.
            if hasData {
                let text = String(decoding: data, as: UTF8.self)
                out.append(SSEEvent(event: eventType.isEmpty ? "message" : eventType, data: text, id: lastID, retry: retry))
            }
            data.removeAll(keepingCapacity: true); hasData = false; eventType = ""; retry = nil
            return
        }
        if line[0] == 0x3A { return }  // ":" comment
        let colon = line.firstIndex(of: 0x3A)
        let name = colon.map { line[..<$0] } ?? line[...]
        var value: ArraySlice<UInt8> = colon.map { line[line.index(after: $0)...] } ?? []
        if value.first == 0x20 { value = value.dropFirst() }
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case "id":
            if !value.contains(0) { lastID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(String(decoding: value, as: UTF8.self)) {
                retry = n
            }
        default:
            break
        }
    }
}

/// Splits a byte stream into lines for NDJSON: LF or CRLF ends a line, blank
/// lines are skipped, and `finish` returns a last line without a newline.
public struct LineSplitter: Sendable {
    private var pending: [UInt8] = []
    public var maxLineBytes: Int

    public init(maxLineBytes: Int = 16 << 20) { self.maxLineBytes = maxLineBytes }

    /// True when bytes of an unterminated line are waiting.
    public var hasPartialLine: Bool { pending.contains { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 } }

    /// Feeds bytes; returns the complete, non-blank lines (without line endings).
    public mutating func feed<C: Collection>(_ bytes: C) throws(LineTooLong) -> [[UInt8]] where C.Element == UInt8 {
        var out: [[UInt8]] = []
        for byte in bytes {
            if byte == 0x0A {
                emit(&out)
            } else {
                pending.append(byte)
                if pending.count > maxLineBytes { throw LineTooLong(limit: maxLineBytes) }
            }
        }
        return out
    }

    /// Ends the stream: the last line if it had no newline.
    public mutating func finish() -> [UInt8]? {
        var out: [[UInt8]] = []
        emit(&out)
        return out.first
    }

    private mutating func emit(_ out: inout [[UInt8]]) {
        if pending.last == 0x0D { pending.removeLast() }
        if pending.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) { out.append(pending) }
        pending.removeAll(keepingCapacity: true)
    }

    public struct LineTooLong: Error, Sendable, CustomStringConvertible {
        public let limit: Int
        public var description: String { "a streamed line is longer than \(limit) bytes" }
    }
}
