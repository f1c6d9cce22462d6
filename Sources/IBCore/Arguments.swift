// A small command-line parser in the getopt_long style: `--name value`,
// `--name=value`, `-k 5`, boolean flags, `--` to end options, and positionals.
// Each tool declares its options so that unknown ones are usage errors.

public struct Arguments {
    public struct Option {
        public let long: String
        public let short: Character?
        public let takesValue: Bool
        public init(_ long: String, short: Character? = nil, takesValue: Bool = false) {
            self.long = long; self.short = short; self.takesValue = takesValue
        }
    }

    public private(set) var values: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []

    /// Parses `arguments` (without the program name) against `options`.
    public init(_ arguments: [String], options: [Option]) throws(IBError) {
        let byLong = Dictionary(options.map { ($0.long, $0) }, uniquingKeysWith: { a, _ in a })
        var byShort: [Character: Option] = [:]
        for option in options { if let s = option.short { byShort[s] = option } }
        var i = 0
        var onlyPositionals = false
        func value(for option: Option, inline: String?) throws(IBError) -> String {
            if let inline { return inline }
            i += 1
            guard i < arguments.count else { throw IBError.usage("option --\(option.long) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            let arg = arguments[i]
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
            } else if arg == "--" {
                onlyPositionals = true
            } else if arg.hasPrefix("--") {
                let body = arg.dropFirst(2)
                let name: String, inline: String?
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq]); inline = String(body[body.index(after: eq)...])
                } else {
                    name = String(body); inline = nil
                }
                guard let option = byLong[name] else { throw IBError.usage("unknown option --\(name)") }
                if option.takesValue {
                    values[option.long, default: []].append(try value(for: option, inline: inline))
                } else {
                    if inline != nil { throw IBError.usage("option --\(name) takes no value") }
                    flags.insert(option.long)
                }
            } else {
                // -k 5, -k5, or bundled boolean flags such as -vc. A negative number is a positional.
                if arg.dropFirst().allSatisfy(\.isNumber) { positionals.append(arg); i += 1; continue }
                var rest = Substring(arg.dropFirst())
                while let c = rest.first {
                    rest = rest.dropFirst()
                    guard let option = byShort[c] else { throw IBError.usage("unknown option -\(c)") }
                    if option.takesValue {
                        values[option.long, default: []].append(try value(for: option, inline: rest.isEmpty ? nil : String(rest)))
                        break
                    }
                    flags.insert(option.long)
                }
            }
            i += 1
        }
    }

    public func has(_ long: String) -> Bool { flags.contains(long) }

    /// The last value given for an option.
    public func value(_ long: String) -> String? { values[long]?.last }

    public func allValues(_ long: String) -> [String] { values[long] ?? [] }

    public func int(_ long: String, min: Int? = nil) throws(IBError) -> Int? {
        guard let text = value(long) else { return nil }
        guard let n = Int(text) else { throw IBError.usage("--\(long) needs a whole number, not '\(text)'") }
        if let min, n < min { throw IBError.usage("--\(long) must be at least \(min)") }
        return n
    }

    public func double(_ long: String) throws(IBError) -> Double? {
        guard let text = value(long) else { return nil }
        guard let n = Double(text) else { throw IBError.usage("--\(long) needs a number, not '\(text)'") }
        return n
    }

    /// A value that must be one of `choices`.
    public func choice(_ long: String, _ choices: [String]) throws(IBError) -> String? {
        guard let text = value(long) else { return nil }
        guard choices.contains(text) else {
            throw IBError.usage("--\(long) must be one of \(choices.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }
}

/// The version every tool prints for --version.
public let ibVersion = "0.1.0"
