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

    // MARK: numbers
    //
    // Every numeric option of every tool goes through `int`, `double` or
    // `seconds` (and numbers that are not options, such as `set-page BOOK N`,
    // through `parseInt`/`parseDouble`). A value that is not a number, not
    // finite, or outside the option's range is a usage error (exit 2) with one
    // line naming the option, the range and the value.

    /// The longest timeout any tool takes, in seconds (a day: as milliseconds
    /// or nanoseconds it is far from overflowing anything).
    public static let maxSeconds: Double = 86_400
    /// The shortest timeout, in seconds (1 ms: never rounds to 0, which
    /// libcurl reads as "no timeout").
    public static let minSeconds: Double = 0.001

    /// The last value of --`long` as a whole number in `min...max` (nil when not given).
    public func int(_ long: String, min: Int, max: Int) throws(IBError) -> Int? {
        guard let text = value(long) else { return nil }
        return try Arguments.parseInt(text, name: "--" + long, min: min, max: max)
    }

    /// The last value of --`long` as a finite number in `min...max` (above
    /// `min` when `minExclusive`); nil when not given.
    public func double(_ long: String, min: Double, max: Double, minExclusive: Bool = false) throws(IBError) -> Double? {
        guard let text = value(long) else { return nil }
        return try Arguments.parseDouble(text, name: "--" + long, min: min, max: max, minExclusive: minExclusive)
    }

    /// The last value of --`long` as a number of seconds, from 1 ms to `max` (default a day).
    public func seconds(_ long: String, max: Double = Arguments.maxSeconds) throws(IBError) -> Double? {
        guard let text = value(long) else { return nil }
        return try Arguments.parseSeconds(text, name: "--" + long, max: max)
    }

    /// The last value of --`long`, which must not be empty (a path such as --db).
    public func path(_ long: String) throws(IBError) -> String? {
        guard let text = value(long) else { return nil }
        guard !text.isEmpty else { throw IBError.usage("--\(long) needs a path, not an empty value") }
        return text
    }

    /// The environment variable `name` as a whole number in `min...max`; nil when
    /// unset or empty, a usage error naming the variable otherwise.
    public static func environmentInt(_ name: String, min: Int, max: Int) throws(IBError) -> Int? {
        guard let text = Config.environment(name) else { return nil }
        return try parseInt(text, name: name, min: min, max: max)
    }

    /// `text` as a whole number in `min...max`, or a usage error naming `name`.
    /// Decimal digits with an optional sign only: no spaces, no "1e3", no "0x10".
    public static func parseInt(_ text: String, name: String, min: Int, max: Int) throws(IBError) -> Int {
        if let n = Int(text), n >= min, n <= max { return n }
        throw IBError.usage("\(name) must be a whole number from \(min) to \(max), not '\(shown(text))'")
    }

    /// `text` as a finite number in `min...max` (above `min` when
    /// `minExclusive`), or a usage error naming `name`. "inf", "nan" and
    /// values that overflow are refused.
    public static func parseDouble(_ text: String, name: String, min: Double, max: Double,
                                   minExclusive: Bool = false) throws(IBError) -> Double {
        let parsed = decimal(text)
        if let n = parsed, n.isFinite, minExclusive ? n > min : n >= min, n <= max { return n }
        let range = minExclusive ? "above \(format(min)) and at most \(format(max))" : "from \(format(min)) to \(format(max))"
        throw IBError.usage("\(name) must be a number \(range), not '\(shown(text))'")
    }

    /// `text` as seconds, from `minSeconds` (1 ms) to `max`.
    public static func parseSeconds(_ text: String, name: String, max: Double = maxSeconds) throws(IBError) -> Double {
        let parsed = decimal(text)
        if let n = parsed, n.isFinite, n >= minSeconds, n <= max { return n }
        throw IBError.usage("\(name) must be a number of seconds from \(format(minSeconds)) to \(format(max)), not '\(shown(text))'")
    }

    /// `text` as a decimal number ("12", "0.5", "-1e3"): no hex floats, no
    /// "inf" or "nan", no spaces, at most 64 characters.
    static func decimal(_ text: String) -> Double? {
        guard text.utf8.count <= 64, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || "+-.eE".utf8.contains($0) }) else { return nil }
        return Double(text)
    }

    /// A value as a message shows it: on one line, at most 40 characters.
    public static func shown(_ text: String) -> String {
        var out = ""
        var count = 0
        for c in text.unicodeScalars {
            if count == 40 { return out + "..." }
            out.unicodeScalars.append(c.properties.generalCategory == .control ? "?" : c)
            count += 1
        }
        return out
    }

    /// 20 for 20.0, 0.001 for 0.001.
    static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
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
