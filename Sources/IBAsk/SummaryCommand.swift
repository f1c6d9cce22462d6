// ib-ask --summarize and --recap: the options they take, the book and its
// bound, the provider (or none), and the output (text, or one JSON object
// {summary, citations, sections, cached, ...}).
import IBCore
import IBStore
import IBModel

enum SummaryCommand {
    /// Options of ask that mean nothing to a summary.
    static let askOnly = ["continue", "conversation", "list", "rounds", "k", "no-tools", "no-expand", "no-rerank"]

    static func run(_ args: Arguments) throws {
        let recap = args.has("recap")
        if recap && args.has("summarize") { throw IBError.usage("--summarize and --recap cannot be used together") }
        if let other = askOnly.first(where: { args.has($0) || args.value($0) != nil }) {
            throw IBError.usage("--\(other) is for questions, not --\(recap ? "recap" : "summarize")")
        }
        if !args.positionals.isEmpty { throw IBError.usage("--\(recap ? "recap" : "summarize") takes no question (got '\(args.positionals.joined(separator: " "))')") }
        if args.value("section") != nil && args.value("pages") != nil { throw IBError.usage("--section and --pages cannot be used together") }
        if recap, args.value("section") != nil || args.value("pages") != nil { throw IBError.usage("--recap covers the book so far: no --section or --pages") }
        if args.has("all-pages") && args.value("page") != nil { throw IBError.usage("--page and --all-pages cannot be used together") }
        var request = SummaryRequest(recap: recap)
        if let section = args.value("section") {
            guard !section.trimmed.isEmpty else { throw IBError.usage("--section: give a number or a title") }
            request.scope = .section(section)
        }
        if let text = args.value("pages") { request.scope = try pageRange(text) }

        let verbose = args.has("verbose"), json = try OutputFormat.chosen(args) == .json, strict = args.has("strict")
        let log: ((String) -> Void)? = verbose ? { printError("ib-ask: " + $0) } : nil
        var settings = try ProviderSettings.resolve(provider: args.value("provider"), model: args.value("model"), baseURL: args.value("base-url"))
        settings.timeout = try args.seconds("timeout") ?? 60
        settings.maxRetries = try args.int("retries", min: 0, max: 100) ?? 3
        let maxTokens = try args.int("max-tokens", min: 16, max: 1_000_000) ?? 1024
        // Retries are details here: a provider that fails in the end gives one warning.
        settings.onRetry = { retry in log?("\(providerLabel(settings.name)) answered \(retry.reason); retrying in \(AskCommand.formatDelay(retry.delay))") }
        let modelDir = Config.modelDirectory(flag: try args.path("model-dir"))
        let library = try Library.open(path: try args.path("db"), create: false)
        let book = try BookLookup.resolveBook(library, args.value("book"))
        var context = try BookLookup.context(library.db, book: book, pageOverride: args.value("page"))
        if args.has("all-pages") { context.currentPage = nil }
        if library.db.isReadOnly { printError("ib-ask: the library \(library.path) is read-only here: summaries are not kept") }

        let summarizer = Summarizer(library: library, book: context, provider: settings.makeProvider(),
                                    embedder: { try ModelEmbedder(directory: modelDir) })
        summarizer.log = log
        summarizer.maxTokens = maxTokens
        let result = try summarizer.run(request)
        for c in result.citations where !c.supported {
            printError("ib-ask: unsupported citation \(c.text): " + (c.pages.isEmpty ? "no such page" : "not among the pages summarised") + (strict ? " (removed)" : ""))
        }
        var output = result
        if strict { output.summary = Citations.removeUnsupported(result.summary, result.citations); output.citations = result.citations.filter(\.supported) }
        if json {
            OutputStream.standardOutput.writeJSON(output.json(book: context))
        } else {
            OutputStream.standardOutput.write(output.summary + "\n")
        }
        OutputStream.standardOutput.flush()
    }

    /// "A-B" (or one page "A"): page numbers or labels are not guessed here; numbers only.
    static func pageRange(_ text: String) throws -> SummaryRequest.Scope {
        let ends = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "-" || $0 == "–" }).map { String($0).trimmed }
        guard (1...2).contains(ends.count), let a = Int(ends[0]), let b = Int(ends.last!), a >= 1, b >= a, b <= 1_000_000_000 else {
            throw IBError.usage("--pages: expected A-B with 1 <= A <= B, got '\(text)'")
        }
        return .pages(a, b)
    }
}
