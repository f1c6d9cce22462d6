// The one rule every tool follows for records and tables on stdout (what ls
// and jq -C users expect): human text on a terminal, JSON Lines when stdout
// is not a terminal; --json forces JSON, --format text|json says which.
// Tools ask `OutputFormat.chosen`, never isatty themselves.

public enum OutputFormat: String, Sendable, CaseIterable {
    case text, json

    /// The options every tool that prints records or tables declares.
    public static var options: [Arguments.Option] { [.init("json"), .init("format", takesValue: true)] }

    /// The format for `args`: --json, else --format text|json, else text on a
    /// terminal and JSON in a pipe. --json with --format text is a usage error.
    public static func chosen(_ args: Arguments, stdoutIsTerminal: Bool = Terminal.stdoutIsTerminal) throws(IBError) -> OutputFormat {
        if let value = args.value("format") {
            guard let format = OutputFormat(rawValue: value) else {
                throw IBError.usage("--format must be text or json, not '\(value)'")
            }
            if format == .text && args.has("json") { throw IBError.usage("--json and --format text cannot be used together") }
            return format
        }
        if args.has("json") { return .json }
        return defaultFormat(stdoutIsTerminal: stdoutIsTerminal)
    }

    /// Without --json or --format: text on a terminal, JSON Lines in a pipe.
    public static func defaultFormat(stdoutIsTerminal: Bool = Terminal.stdoutIsTerminal) -> OutputFormat {
        stdoutIsTerminal ? .text : .json
    }
}
