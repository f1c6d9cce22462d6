// The picture subcommands of ib-capture: card, export --format cards, chart,
// status --format svg|png, and suggest. Each writes its file (a temporary
// renamed into place) and prints one JSON line naming it.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import IBCore
import IBStore

public enum PictureCommands {
    public static let defaultCardSize = (width: 1080, height: 1080)

    /// --size WxH: each side 64 to 8192 pixels.
    static func size(_ args: Arguments, default fallback: (width: Int, height: Int)) throws(IBError) -> (width: Int, height: Int) {
        guard let text = args.value("size") else { return fallback }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (64...8192).contains(w), (64...8192).contains(h) else {
            throw IBError.usage("--size must be WIDTHxHEIGHT, each 64 to 8192 pixels (1080x1350), not '\(Arguments.shown(text))'")
        }
        return (w, h)
    }

    static func style(_ args: Arguments) throws(IBError) -> CardStyle {
        guard let name = args.value("style") else { return .serif }
        guard let style = CardStyle(rawValue: name) else {
            throw IBError.usage("--style must be minimal, serif, modern or literary, not '\(Arguments.shown(name))'")
        }
        return style
    }

    /// svg or png: --format, else the -o file's extension, else png.
    static func pictureFormat(_ args: Arguments) throws(IBError) -> String {
        if let f = args.value("format") {
            guard f == "svg" || f == "png" else { throw IBError.usage("--format must be svg or png here, not '\(Arguments.shown(f))'") }
            return f
        }
        if let o = args.value("output"), o.lowercased().hasSuffix(".svg") { return "svg" }
        return "png"
    }

    /// Writes the picture, then says so: a line on a terminal, its record in a pipe or
    /// with --json (the one output rule; --format here is the picture's format).
    static func write(_ picture: Picture, format: String, path: String, record: JSONObject, _ args: Arguments,
                      _ out: OutputStream) throws {
        guard !path.isEmpty else { throw IBError.usage("-o needs a file name") }
        if FileSystem.isDirectory(path) { throw IBError.usage("-o \(path): is a directory") }
        try picture.write(format: format, to: path)
        var o = record
        o["path"] = .string(path); o["format"] = .string(format)
        o["width"] = JSON(picture.width); o["height"] = JSON(picture.height)
        if args.has("json") || OutputFormat.defaultFormat() == .json {
            out.writeJSON(.object(o))
        } else {
            out.write("wrote \(TerminalText.safe(path)) (\(format), \(picture.width)x\(picture.height))\n")
        }
    }

    /// `card QUOTE`: QUOTE is a quote's id or `today` (the quote of the day).
    public static func card(_ store: CaptureStore, _ positionals: [String], _ args: Arguments, today: Day, _ out: OutputStream) throws {
        guard positionals.count == 1 else { throw IBError.usage("card needs one QUOTE: a quote's id, or today") }
        let style = try style(args), format = try pictureFormat(args)
        let (w, h) = try size(args, default: defaultCardSize)
        let id: Int
        if positionals[0] == "today" {
            guard let q = try StatusReport.quoteOfTheDay(store, today: today) else { throw IBError("no quotes yet: save one first") }
            id = q.id
        } else {
            guard let n = Int(positionals[0]), n > 0 else {
                throw IBError.usage("card: QUOTE must be a quote's id or today, not '\(Arguments.shown(positionals[0]))'")
            }
            id = n
        }
        guard let quote = try store.records.cardQuote(id: id) else { throw IBError("no quote \(id) in the library") }
        let picture = QuoteCard(quote).picture(style: style, width: w, height: h)
        try write(picture, format: format, path: args.value("output") ?? "quote-\(id)-\(style.rawValue).\(format)",
                  record: JSONObject([("type", "card"), ("quote_id", JSON(id)), ("style", .string(style.rawValue))]), args, out)
    }

    /// `export --format cards DIR`: every quote as DIR/quote-ID.png (or .svg with --svg).
    public static func exportCards(_ store: CaptureStore, _ positionals: [String], _ args: Arguments) throws -> Int {
        guard positionals.count == 1, !positionals[0].isEmpty else { throw IBError.usage("export --format cards needs one DIR") }
        let dir = positionals[0]
        let style = try style(args)
        let (w, h) = try size(args, default: defaultCardSize)
        let format = args.has("svg") ? "svg" : "png"
        if FileSystem.exists(dir) && !FileSystem.isDirectory(dir) { throw IBError.usage("export --format cards: \(dir) is not a directory") }
        try FileSystem.createDirectories(dir)
        let quotes = try store.records.cardQuotes()
        // One worker a core (at most 4), each drawing every n-th card: cairo surfaces are
        // per card and pango's font map per thread, so nothing is shared but the list.
        let workers = max(1, min(4, Cores.available, quotes.count))
        // Each worker writes only its own slot.
        nonisolated(unsafe) let failures = UnsafeMutableBufferPointer<IBError?>.allocate(capacity: workers)
        failures.initialize(repeating: nil)
        defer { failures.deallocate() }
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for i in stride(from: worker, to: quotes.count, by: workers) {
                do {
                    try QuoteCard(quotes[i]).picture(style: style, width: w, height: h)
                        .write(format: format, to: dir + "/quote-\(quotes[i].id).\(format)")
                } catch {
                    failures[worker] = error as? IBError ?? IBError("\(error)")
                    return
                }
            }
        }
        if let failure = failures.compactMap({ $0 }).first { throw failure }
        return quotes.count
    }

    public static func chart(_ store: CaptureStore, _ positionals: [String], _ args: Arguments, today: Day, _ out: OutputStream) throws {
        guard positionals.count == 1, let kind = Charts.Kind(rawValue: positionals[0]) else {
            throw IBError.usage("chart needs one of streak, pages, plan, progress" + (positionals.first.map { ", not '\(Arguments.shown($0))'" } ?? ""))
        }
        let format = try pictureFormat(args)
        let picture = try Charts.picture(kind, store: store, today: today, size: try size(args, default: kind.defaultSize))
        try write(picture, format: format, path: args.value("output") ?? "chart-\(kind.rawValue).\(format)",
                  record: JSONObject([("type", "chart"), ("chart", .string(kind.rawValue))]), args, out)
    }

    /// `status --format svg|png`: the widget picture of a status record.
    public static func statusPicture(_ status: JSON, format: String, _ args: Arguments, _ out: OutputStream) throws {
        let picture = StatusPicture.picture(status, size: try size(args, default: StatusPicture.defaultSize))
        try write(picture, format: format, path: args.value("output") ?? "status.\(format)",
                  record: JSONObject([("type", "status_picture"), ("private", status["private"] ?? false)]), args, out)
    }

    public static func suggest(_ status: JSON, json: Bool, _ out: OutputStream) {
        let suggestions = status["suggestions"]?.arrayValue ?? []
        if json {
            out.writeJSON(.object(JSONObject([("type", "suggestions"), ("date", status["date"] ?? .null), ("suggestions", .array(suggestions))])))
            return
        }
        let terminal = Terminal.stdoutIsTerminal
        let lines = Suggestions.lines(suggestions)
        if lines.isEmpty { out.write("No suggestions yet: log some reading first.\n") }
        for l in lines { out.write((terminal ? TerminalText.safe(l) : l) + "\n") }
    }
}
