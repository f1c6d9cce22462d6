// JSON Schemas for tool inputs and outputs, built as JSON, and a checker for
// the part of JSON Schema they use (type, properties, required,
// additionalProperties: false, enum, minimum/maximum, minLength, minItems,
// items). Arguments are checked against the very schema tools/list shows, so
// the two cannot drift; the tests check outputs against the output schemas.
import IBCore

enum Schema {
    static func object(_ properties: [(String, JSON)], required: [String] = [], closed: Bool = true) -> JSON {
        var o = JSONObject([("type", "object")])
        o["properties"] = .object(JSONObject(properties))
        if !required.isEmpty { o["required"] = JSON(required) }
        if closed { o["additionalProperties"] = false }
        return .object(o)
    }

    static func string(_ description: String, minLength: Int? = 1, nullable: Bool = false) -> JSON {
        var o = JSONObject([("type", nullable ? ["string", "null"] : "string"), ("description", .string(description))])
        if let minLength { o["minLength"] = JSON(minLength) }
        return .object(o)
    }

    static func integer(_ description: String, minimum: Int? = nil, maximum: Int? = nil) -> JSON {
        var o = JSONObject([("type", "integer"), ("description", .string(description))])
        if let minimum { o["minimum"] = JSON(minimum) }
        if let maximum { o["maximum"] = JSON(maximum) }
        return .object(o)
    }

    static func number(_ description: String, nullable: Bool = false) -> JSON {
        ["type": nullable ? ["number", "null"] : "number", "description": .string(description)]
    }

    static func boolean(_ description: String) -> JSON {
        ["type": "boolean", "description": .string(description)]
    }

    static func oneOf(_ values: [String], _ description: String) -> JSON {
        ["type": "string", "enum": JSON(values), "description": .string(description)]
    }

    static func array(_ items: JSON, _ description: String) -> JSON {
        ["type": "array", "items": items, "description": .string(description)]
    }

    /// An object of any shape (a record whose fields are documented elsewhere).
    static func anyObject(_ description: String, nullable: Bool = false) -> JSON {
        ["type": nullable ? ["object", "null"] : "object", "description": .string(description)]
    }

    // MARK: checking

    /// The first way `value` breaks `schema`, as "path: problem"; nil when it conforms.
    static func violation(of schema: JSON, by value: JSON, at path: String = "arguments") -> String? {
        if let types = schema["type"] {
            let allowed = types.arrayValue?.compactMap(\.stringValue) ?? [types.stringValue].compactMap { $0 }
            if !allowed.contains(where: { matches(value, type: $0) }) {
                return "\(path): expected \(allowed.joined(separator: " or ")), got \(describe(value))"
            }
        }
        if let choices = schema["enum"]?.arrayValue, !choices.contains(value) {
            return "\(path): must be one of \(choices.compactMap(\.stringValue).joined(separator: ", ")), got \(value.serialized)"
        }
        switch value {
        case .number(let n):
            if let min = schema["minimum"]?.doubleValue, n < min { return "\(path): must be at least \(JSON.number(min).serialized), got \(value.serialized)" }
            if let max = schema["maximum"]?.doubleValue, n > max { return "\(path): must be at most \(JSON.number(max).serialized), got \(value.serialized)" }
        case .string(let s):
            if let min = schema["minLength"]?.intValue, s.count < min {
                return min == 1 ? "\(path): must not be empty" : "\(path): must be at least \(min) characters"
            }
        case .array(let items):
            if let min = schema["minItems"]?.intValue, items.count < min { return "\(path): needs at least \(min) item\(min == 1 ? "" : "s")" }
            if let itemSchema = schema["items"] {
                for (i, item) in items.enumerated() {
                    if let v = violation(of: itemSchema, by: item, at: "\(path)[\(i)]") { return v }
                }
            }
        case .object(let object):
            let properties = schema["properties"]?.objectValue ?? JSONObject()
            for key in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[key] == nil {
                return "\(path): \"\(key)\" is required"
            }
            for (key, item) in object.entries {
                if let propertySchema = properties[key] {
                    if let v = violation(of: propertySchema, by: item, at: path == "arguments" ? key : "\(path).\(key)") { return v }
                } else if schema["additionalProperties"]?.boolValue == false {
                    return "\(path): unknown property \"\(key)\" (known: \(properties.keys.joined(separator: ", ")))"
                }
            }
        default:
            break
        }
        return nil
    }

    static func matches(_ value: JSON, type: String) -> Bool {
        switch (type, value) {
        case ("string", .string), ("boolean", .bool), ("number", .number), ("array", .array), ("object", .object), ("null", .null):
            return true
        case ("integer", .number):
            return value.intValue != nil
        default:
            return false
        }
    }

    static func describe(_ value: JSON) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return value.intValue != nil ? "an integer" : "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
