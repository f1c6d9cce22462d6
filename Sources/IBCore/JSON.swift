// A small JSON value with a byte-level parser and writer. ib reads and writes
// millions of records a run; a parser over UTF-8 bytes with exact error
// positions is both faster and clearer than bridging through Foundation.
#if canImport(Glibc)
import Glibc
#endif

public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)

    public subscript(key: String) -> JSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var doubleValue: Double? { if case .number(let n) = self { return n }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }
    /// An integer, when the number is whole and fits.
    public var intValue: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) < 9.0e15 else { return nil }
        return Int(n)
    }
}

/// A JSON object that keeps its keys in insertion order, so records written
/// back out read the same way they came in. Small objects (records, messages)
/// find a key by scanning; past `indexedFrom` keys a hash index is built once and
/// kept up to date, so that filling or reading an object of n keys costs O(n),
/// not O(n²) (a 300,000-key line used to hold ib-mcp for minutes).
public struct JSONObject: Sendable, Equatable {
    public private(set) var entries: [(key: String, value: JSON)] = []
    /// Each key's place in `entries`; nil while the object is small.
    private var positions: [String: Int]? = nil
    static let indexedFrom = 16

    public init() {}
    public init(_ entries: [(String, JSON)]) {
        for (key, value) in entries { self[key] = value }
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return entries.firstIndex(where: { $0.key == key })
    }

    public subscript(key: String) -> JSON? {
        get { position(of: key).map { entries[$0].value } }
        set {
            if let index = position(of: key) {
                if let newValue { entries[index].value = newValue } else { remove(at: index) }
            } else if let newValue {
                entries.append((key, newValue))
                if positions != nil {
                    positions![key] = entries.count - 1
                } else if entries.count >= Self.indexedFrom {
                    buildIndex()
                }
            }
        }
    }

    private mutating func remove(at index: Int) {
        entries.remove(at: index)
        positions = nil
        if entries.count >= Self.indexedFrom { buildIndex() }
    }

    private mutating func buildIndex() {
        var index = [String: Int](minimumCapacity: entries.count)
        for (i, entry) in entries.enumerated() { index[entry.key] = i }
        positions = index
    }

    public var keys: [String] { entries.map(\.key) }

    /// Sets each field in turn (new keys go last, in the order given).
    public mutating func set(_ fields: KeyValuePairs<String, JSON>) {
        for (key, value) in fields { self[key] = value }
    }

    /// A record's object: its own fields in order, then the unknown fields it was read with.
    public static func record(_ fields: KeyValuePairs<String, JSON>, extra: JSONObject) -> JSONObject {
        var o = JSONObject()
        o.set(fields)
        for entry in extra.entries { o[entry.key] = entry.value }
        return o
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let offset: Int
    public var description: String { "\(message) at byte \(offset + 1)" }
}

// MARK: - Parsing

extension JSON {
    /// At most this many keys in one object: far above any record, message or
    /// model file ib reads, far below a line that only exists to stall a tool.
    public static let maxKeysPerObject = 10_000

    /// Parses exactly one JSON value; surrounding whitespace is allowed.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = 512,
                             maxKeys: Int = JSON.maxKeysPerObject) throws(JSONParseError) -> JSON {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth, maxKeys: maxKeys)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.position != bytes.count { throw parser.error("unexpected trailing characters") }
        return value
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSON {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in try parse(buffer) }
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSON {
        try parse(Array(text.utf8))
    }
}

struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let maxKeys: Int
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxKeys: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.maxKeys = maxKeys
    }

    func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: position) }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSON {
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character '\(printable(bytes[position]))'")
        }
    }

    func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw error("unexpected end of input") }
        let start = literal.utf8Start
        for i in 0..<count where bytes[position + i] != start[i] { throw error("invalid literal") }
        position += count
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSON {
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth)") }
        position += 1
        var object = JSONObject()
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(object) }
        var members = 0
        while true {
            skipWhitespace()
            members += 1
            if members > maxKeys { throw error("too many keys in one object (more than \(maxKeys))") }
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            object[key] = try parseValue(depth: depth)
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input in object") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(object) }
            throw error("expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSON {
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth)") }
        position += 1
        var array: [JSON] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(array) }
        while true {
            skipWhitespace()
            array.append(try parseValue(depth: depth))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input in array") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(array) }
            throw error("expected ',' or ']'")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        func digits(_ p: inout Int, _ b: UnsafeBufferPointer<UInt8>) -> Int {
            let s = p
            while p < b.count, b[p] >= 0x30, b[p] <= 0x39 { p += 1 }
            return p - s
        }
        if digits(&position, bytes) == 0 { throw error("invalid number") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            if digits(&position, bytes) == 0 { throw error("invalid number") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            if digits(&position, bytes) == 0 { throw error("invalid number") }
        }
        let length = position - start
        if length > 64 { throw JSONParseError(message: "number too long", offset: start) }
        // strtod needs a terminated string; numbers are short, so copy to the stack.
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer in
            for i in 0..<length { buffer[i] = CChar(bitPattern: bytes[start + i]) }
            buffer[length] = 0
            return strtod(buffer.baseAddress!, nil)
        }
        // 1e400 would read as infinity and be written back as null: refused, not changed
        // (found by scripts/fuzz/run records).
        if value.isInfinite { throw JSONParseError(message: "number out of range (infinite as a Double)", offset: start) }
        return value
    }

    mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw JSONParseError(message: "invalid UTF-8 in string", offset: start)
                }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            position += 1
        }
        var out: [UInt8] = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let string = String(validating: out, as: UTF8.self) else {
                    throw JSONParseError(message: "invalid UTF-8 in string", offset: start)
                }
                return string
            case UInt8(ascii: "\\"):
                position += 1
                guard position < bytes.count else { throw error("unexpected end of input in string") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        // A high surrogate must be followed by a low one.
                        if position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                            position += 2
                            let low = try parseHex4()
                            guard low >= 0xDC00 && low < 0xE000 else { throw error("invalid surrogate pair") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            throw error("lone surrogate in string")
                        }
                    } else if scalar >= 0xDC00 && scalar < 0xE000 {
                        throw error("lone surrogate in string")
                    }
                    out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                default:
                    throw error("invalid escape '\\\(printable(escape))'")
                }
            default:
                if byte < 0x20 { throw error("control character in string") }
                // Copy the run up to the next quote, backslash or control byte at once.
                var runEnd = position + 1
                while runEnd < bytes.count {
                    let b = bytes[runEnd]
                    if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 { break }
                    runEnd += 1
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<runEnd]))
                position = runEnd
            }
        }
        throw error("unterminated string")
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}

// MARK: - Writing

extension JSON {
    /// Compact JSON, as one line.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): JSON.writeNumber(n, to: &out)
        case .string(let s): JSON.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, entry) in object.entries.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeString(entry.key, to: &out)
                out.append(UInt8(ascii: ":"))
                entry.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    public var serialized: String {
        var out: [UInt8] = []
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func writeNumber(_ n: Double, to out: inout [UInt8]) {
        if n.isNaN || n.isInfinite {
            out.append(contentsOf: "null".utf8)  // JSON has no NaN; never emit invalid JSON
        } else if n.rounded() == n && abs(n) < 1e15 {
            out.append(contentsOf: String(Int64(n)).utf8)
        } else {
            out.append(contentsOf: n.description.utf8)
        }
    }

    /// Floats are written with their own shortest round-trip form, which is
    /// both exact and about half as long as Double's.
    public static func writeFloat(_ n: Float, to out: inout [UInt8]) {
        if n.isNaN || n.isInfinite { out.append(contentsOf: "null".utf8); return }
        out.append(contentsOf: n.description.utf8)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var runStart = 0
            for i in 0..<bytes.count {
                let byte = bytes[i]
                if byte >= 0x20 && byte != 0x22 && byte != 0x5C { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                runStart = i + 1
                switch byte {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                default:
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30,
                                            hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(elements)) }
}

extension JSON {
    public init(_ value: String?) { self = value.map { .string($0) } ?? .null }
    public init(_ value: Int?) { self = value.map { .number(Double($0)) } ?? .null }
    public init(_ values: [String]) { self = .array(values.map { .string($0) }) }
}

extension JSON {
    /// A whole JSON file of at most `limit` bytes; errors name the file.
    public static func read(file path: String, limit: Int) throws(IBError) -> JSON {
        let bytes = try FileSystem.read(path, limit: limit)
        do { return try JSON.parse(bytes) } catch { throw IBError("\(path): \(error)") }
    }
}
