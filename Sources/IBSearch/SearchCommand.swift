// ib-search's command line, shared by the ib-search tool and by `ib-ask
// --search` (the same search with a provider's --expand/--rerank; see
// SearchAssist.swift). See man/man1/ib-search.1.
import IBCore
import IBStore
#if canImport(Glibc)
import Glibc
#endif

public enum SearchCommand {
    public static let usage = """
        Usage: ib-search [OPTIONS] QUERY...
               ib-search [OPTIONS] --queries FILE

        Searches the library: passages by meaning and by words (hybrid), books by
        title and author, and your quotes and notes. Passages past each book's
        reading position are never shown unless --page or --all-pages says so.

        Options:
          -k, --count N        results per kind (default 10; 1 to 10000)
          --mode MODE          hybrid (default), vector or text
          --book BOOK          only this book: an id, an id prefix or a (fuzzy) title;
                               repeat for several books
          --kind KIND          chunks (default), books, quotes, notes or all
          --page N             search up to page N (a passage must end on or before it)
                               instead of each book's reading position (1 to 1000000000);
                               with one --book, N may be a printed label (iv, xii)
          --all-pages          search whole books, ignoring reading positions
          --queries FILE       one search per line of FILE (- for standard input), all
                               with these options, the library and model opened once;
                               each JSON result adds "query_line" (the line's number);
                               blank lines are skipped, a line over 64 KiB is an error
          --json               JSON Lines (the default when stdout is not a terminal)
          --format text|json   text (the default on a terminal) or JSON Lines
          --min-score X        leave out results scoring below X (the score printed by
                               --json: hybrid fuses standardized scores, vector is a
                               cosine, text is -bm25); a number from -1000000 to 1000000.
                               Without it, a hybrid search where no passage holds a word
                               of the query and the nearest is below cosine 0.35 shows
                               nothing (a query about nothing in the library)
          --explain            add vector_rank, text_rank, vector_distance (after the
                               re-scoring by window vectors), bm25 and fused_score (hybrid)
          --candidates N       depth of each list before fusion (default 40; 1 to 10000)
          --rrf-k K            fuse by reciprocal rank with this k instead of by
                               standardized scores (for comparisons; above 0, at most 1000000)
          --expand             a language model rewrites the question into two or three
                               searches in the book's words (one a short passage that
                               would answer it); their results are fused with the question's
          --rerank             a language model orders the best 30 passages
          --provider NAME      for --expand/--rerank: anthropic, openai, ollama or llm
                               (default $IB_PROVIDER, else the first API key set)
          --model NAME         the provider's model (default $IB_MODEL or its default)
          --timeout SECONDS    the provider's idle timeout for --expand/--rerank (default 20;
                               0.001 to 3600)
          --db PATH            the library (default $IB_DB, else $XDG_DATA_HOME/ib/library.db)
                               never created; read-only libraries are read; not a regular file: exit 2
          --model-dir DIR      the model folder (default $IB_MODEL_DIR, else
                               $XDG_DATA_HOME/ib/models/all-MiniLM-L6-v2)
          -h, --help           this help
          --version            the version, the commit and the model folder

        Output: JSON Lines {"type":"result","kind":"chunk","rank","score","book_id","title",
        "start_page","end_page","start_label","end_label","chunk_id","text","snippet"};
        audio books add "start_time","end_time" (seconds) and "time_label" ("1:02:30").
        Matched terms in the snippet are marked «like this». On a terminal: a listing
        with title, pages (printed labels when known; an audio book's times) and snippet.

        Chunks are scored by their best window vector (a paragraph or a ~32-token
        run, from ib-embed) before fusion: every window when the scope holds up to
        5,000 chunks (IB_SEARCH_WINDOW_SCAN=N changes that), else the candidates'.
        IB_SEARCH_WINDOWS=0 turns windows off. In scopes of up to 20,000 chunks
        (IB_SEARCH_SYNONYM_SCOPE=N), the full-text half also searches each word's WordNet synonyms (scripts/build-thesaurus makes
        the file, $IB_THESAURUS or $XDG_DATA_HOME/ib/thesaurus.tsv; IB_SEARCH_SYNONYMS=0
        turns them off), each word counted once by the best of itself and its synonyms.
        Each N is a whole number from 0 to 100,000,000; anything else is exit 2.
        In a scope of one book or a few, a word's rarity blends its rarity there and in
        the library: IB_SEARCH_BOOK_IDF_PERCENT=P is the book's share (default 50; 0 to 100).

        --expand and --rerank run as ib-ask --search ARGS (the provider code lives there, so a
        plain search never loads it); a provider that fails, is slow or is not
        configured gives one warning on stderr and the plain search's results.

        A search bounded by reading positions says so: on a terminal one stderr line
        names the books read part-way; in JSON each passage of such a book carries
        "up_to_page" (its reading position). --page and --all-pages set no such field.

        Nothing found: no output and, on a terminal, "no passage matched" on stderr; exit 0.
        An empty library: a message on stderr, exit 0.
        On a terminal: a listing (title, pages, snippet)
        In a pipe: JSON Lines (one line per result)
        Output options: --json, --format text|json
        Exit codes: 0 ok, 1 error (no library file, bad model), 2 usage, 3 ambiguous BOOK.

        """

    public static var options: [Arguments.Option] { [
        .init("count", short: "k", takesValue: true), .init("mode", takesValue: true),
        .init("book", takesValue: true), .init("kind", takesValue: true), .init("page", takesValue: true),
        .init("all-pages"), .init("queries", takesValue: true), .init("json"), .init("format", takesValue: true),
        .init("min-score", takesValue: true), .init("explain"), .init("candidates", takesValue: true),
        .init("rrf-k", takesValue: true), .init("db", takesValue: true), .init("model-dir", takesValue: true),
        .init("expand"), .init("rerank"), .init("provider", takesValue: true), .init("model", takesValue: true),
        .init("timeout", takesValue: true),
        .init("help", short: "h"), .init("version"),
    ] }

    /// Whether the arguments ask for a provider (--expand or --rerank).
    public static func wantsAssistant(_ arguments: [String]) throws -> Bool {
        let args = try Arguments(arguments, options: options)
        return !args.has("help") && !args.has("version") && (args.has("expand") || args.has("rerank"))
    }

    /// The provider's settings from the arguments, for `makeAssistant`.
    public struct AssistantChoice: Sendable {
        public var provider: String?
        public var model: String?
        public var timeout: Double
        public init(provider: String?, model: String?, timeout: Double) {
            self.provider = provider; self.model = model; self.timeout = timeout
        }
    }

    /// Runs one search. `makeAssistant` turns --provider/--model/--timeout into a
    /// SearchAssistant (nil: none configured, with the reason); nil when this
    /// binary has no provider code (ib-search hands those searches to ib-ask).
    public static func run(_ arguments: [String], tool: String = "ib-search",
                           makeAssistant: ((AssistantChoice) throws -> (SearchAssistant?, String?))? = nil) throws {
        let args = try Arguments(arguments, options: options)

        if args.has("help") { OutputStream.standardOutput.write(usage); return }
        if args.has("version") { OutputStream.standardOutput.write(Installation.versionText(tool: "ib-search", modelDirectoryFlag: try args.path("model-dir"))); return }
        let queriesPath = try args.path("queries")
        if queriesPath != nil {
            guard args.positionals.isEmpty else { throw IBError.usage("--queries FILE and a QUERY cannot be used together") }
        } else {
            guard !args.positionals.joined().allSatisfy(\.isWhitespace) else { throw IBError.usage("QUERY is missing") }
        }
        let k = try args.int("count", min: 1, max: 10_000) ?? 10
        let mode = SearchMode(rawValue: try args.choice("mode", SearchMode.allCases.map(\.rawValue)) ?? "hybrid")!
        let kind = try args.choice("kind", ["chunks", "books", "quotes", "notes", "all"]) ?? "chunks"
        let pageText = args.value("page")
        if pageText != nil && args.has("all-pages") { throw IBError.usage("--page and --all-pages cannot be used together") }
        let minScore = try args.double("min-score", min: -1e6, max: 1e6)
        let candidates = try args.int("candidates", min: 1, max: 10_000) ?? SearchEngine.defaultCandidates
        let rrfK = try args.double("rrf-k", min: 0, max: 1e6, minExclusive: true)
        let timeout = try args.seconds("timeout", max: 3600) ?? 20
        let choice = AssistantChoice(provider: args.value("provider"), model: args.value("model"), timeout: timeout)
        let explain = args.has("explain")
        let asJSON = try OutputFormat.chosen(args) == .json
        let bold = !asJSON && Config.environment("NO_COLOR") == nil

        let path = Config.databasePath(flag: try args.path("db"))
        guard FileSystem.exists(path) else {
            throw IBError("no library at \(path) (add a book: ib-parse FILE | ib-chunk | ib-embed | ib-index)")
        }
        // Opened before the library: a missing FILE is the argument's fault.
        let queries: LineReader?
        do throws(IBError) {
            queries = try queriesPath.map { (path) throws(IBError) in try LineReader(path: path, maxLineBytes: maxQueryLineBytes) }
        } catch { throw IBError.usage("--queries " + error.message) }
        // A search that embeds its query loads the model beside opening the library.
        let embeds = mode != .text && (kind == "chunks" || kind == "all")
        let preload = embeds ? ModelPreload(directory: Config.modelDirectory(flag: try args.path("model-dir"))) : nil
        let library = try Library.open(path: path, create: false)
        let engine = SearchEngine(library: library, modelDirectory: try args.path("model-dir"), settings: try .fromEnvironment())
        engine.preload = preload
        engine.releasesMappedPages = queries == nil
        if queries != nil {
            engine.postingsMegabytes = SearchEngine.servingPostingsMegabytes
            engine.sharesCores = true
        }
        engine.rrfK = rrfK
        let ready = try engine.readyBooks()
        // A deleted book's quotes and notes stay in the library: they are searched with no book at all.
        if ready.isEmpty && kind != "quotes" && kind != "notes" {
            printError("\(tool): the library \(path) has no books yet (add one: ib-parse FILE | ib-chunk | ib-embed | ib-index)")
            return
        }
        var books: [String]? = nil
        let bookArgs = args.allValues("book")
        if !bookArgs.isEmpty {
            books = try bookArgs.map { try library.resolveBook($0).id }
        }
        let page = try pageText.map { try pageNumber($0, books: books, library) }
        let pageLimit: PageLimit = page.map { .page($0) } ?? (args.has("all-pages") ? .none : .readingPosition)
        // Books read part-way whose reading position bounds this search (none with --page or --all-pages).
        let searched = Set(books ?? ready.map(\.id))
        let bounded = pageLimit != .readingPosition ? [] : ready.filter {
            searched.contains($0.id) && $0.isReadPartWay
        }
        let boundAt = Dictionary(bounded.map { ($0.id, $0.currentPage) }, uniquingKeysWith: { a, _ in a })
        // The provider for --expand/--rerank, made once (and its absence told once) for every search.
        var assist = AssistOptions(expand: args.has("expand"), rerank: args.has("rerank"))
        var assistant: SearchAssistant? = nil
        if (kind == "chunks" || kind == "all") && assist.any, let makeAssistant {
            let (made, reason) = try makeAssistant(choice)
            assistant = made
            if let reason { printError("\(tool): \(reason): plain search") }
        }
        if assistant == nil { assist = AssistOptions() }
        let out = OutputStream.standardOutput
        // One search; `line`: its line in --queries FILE (each JSON result carries it).
        func search(_ text: String, line: Int?) throws {
            var printed = 0
            var farOnly = false   // the hybrid results were all far from the query and shared no word with it
            func kept(_ score: Double) -> Bool {
                guard let minScore, score < minScore else { printed += 1; return true }
                return false
            }
            func emit(_ json: JSON) {
                guard let line, case .object(var o) = json else { return out.writeJSON(json) }
                o["query_line"] = JSON(line)
                out.writeJSON(.object(o))
            }
            if let line, !asJSON { out.write((bold ? "\u{1B}[1m" : "") + "\(line): \(text)" + (bold ? "\u{1B}[0m" : "") + "\n") }

            if kind == "books" || kind == "all" {
                for hit in try engine.searchBooks(text, books: books, k: k) where kept(hit.score) {
                    if asJSON { emit(Render.json(hit)) } else { out.write(Render.terminal(hit, bold: bold)) }
                }
            }
            for noteKind in [NoteHit.Kind.quote, .note] where kind == noteKind.rawValue + "s" || kind == "all" {
                for hit in try engine.searchNotes(text, kind: noteKind, books: books, k: k) where kept(hit.score) {
                    if asJSON { emit(Render.json(hit)) } else { out.write(Render.terminal(hit, bold: bold)) }
                }
            }
            if kind == "chunks" || kind == "all" {
                let query = SearchQuery(text: text, books: books, pageLimit: pageLimit, k: k, mode: mode, candidates: candidates)
                let results = try engine.search(query, assistant: assistant, options: assist) { printError("\(tool): \($0)") }
                for warning in engine.warnings { printError("\(tool): \(warning)") }
                if !asJSON && !bounded.isEmpty { printError("\(tool): " + boundNote(bounded)) }
                farOnly = minScore == nil && mode == .hybrid && Relevance.unrelated(results)
                let shown = farOnly ? [] : results
                for r in shown where kept(r.score) {
                    if asJSON {
                        emit(Render.json(r, explain: explain, upToPage: boundAt[r.bookID]))
                    } else {
                        out.write(Render.terminal(r, explain: explain, bold: bold))
                    }
                }
            }
            if printed == 0 && !asJSON {
                printError("\(tool): " + (kind == "chunks" ? "no passage matched" : "nothing matched")
                           + (minScore != nil ? " (with --min-score \(args.value("min-score")!))" : "")
                           + (farOnly ? " (" + Relevance.unrelatedReason(override: "--min-score -1000000") + ")" : ""))
            }
        }

        if let queries {
            try queries.forEachLine { bytes in
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw IBError("\(queries.name):\(queries.lineNumber): not UTF-8 text")
                }
                guard !text.allSatisfy(\.isWhitespace) else { return }
                try search(text, line: queries.lineNumber)
                out.flush()   // a reader on the other end of a pipe gets each search as it ends
            }
        } else {
            try search(args.positionals.joined(separator: " "), line: nil)
        }
        // The results are out; the next process finds the model's weights packed.
        out.flush()
        engine.keepPackedModel()
    }

    /// A question is a line; 64 KiB is far beyond one, and bounds what a stray binary file costs.
    static let maxQueryLineBytes = 64 << 10

    /// "searched 'Moby-Dick' up to p. 120 (the reading position); --all-pages searches whole books".
    static func boundNote(_ books: [BookSummary]) -> String {
        let named = books.prefix(3).map { "'\($0.title)' up to p. \($0.currentPage)" }.joined(separator: ", ")
        let more = books.count > 3 ? " and \(counted(books.count - 3, "more book"))" : ""
        return "searched \(named)\(more) (the reading position); --all-pages searches whole books"
    }

    /// --page N: a number, or with one --book a printed label of that book (iv, xii).
    static func pageNumber(_ text: String, books: [String]?, _ library: Library) throws -> Int {
        if let books, books.count == 1, Int(text) == nil {
            let labelled = try library.pageLabels(bookID: books[0]).filter { $0.value.lowercased() == text.lowercased() }.keys.min()
            guard let labelled else { throw IBError.usage("--page: the book has no page labelled '\(text)'") }
            return labelled
        }
        if Int(text) == nil, !text.isEmpty, text.allSatisfy({ $0.isLetter }) {
            throw IBError.usage("--page '\(text)': a printed page label needs exactly one --book")
        }
        return try Arguments.parseInt(text, name: "--page", min: 1, max: 1_000_000_000)
    }
}
