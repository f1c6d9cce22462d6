// ib-ask's command line: options, provider choice, conversations, output.
#if canImport(Glibc)
import Glibc
#endif
import IBCore
import IBStore
import IBModel
import IBSearch

public enum AskCommand {
    public static let help = """
    Usage: ib-ask [options] [QUESTION...]

    Answers questions about a book with cited pages (p. N; an audio book's times,
    (1:02:30)), without spoilers past the reader's current page. Streams the answer to stdout.
    With no QUESTION: an interactive session when stdin is a terminal,
    otherwise each line of stdin is a question in the same conversation
    (a question over 64 KiB, or a line over 64 MiB, is refused with its number).

    Options:
      -b, --book BOOK         the book: id, id prefix, title or author (default: the only
                              book; with several, the one whose passage best fits the
                              QUESTION, searched across the library as ib-search does)
          --page PAGE         the reader's page (label or number) instead of the stored one;
                              past the book's last page: exit 2
          --all-pages         use the whole book, ignoring the reading position (spoilers!)
          --provider NAME     anthropic, openai, ollama, llm or extractive (default: $IB_PROVIDER,
                              else the first of ANTHROPIC_API_KEY / OPENAI_API_KEY, else extractive);
                              llm runs Simon Willison's llm command ($IB_LLM, else llm on PATH) with
                              its own models and keys, passages retrieved first, --no-log unless
                              IB_LLM_LOG=1; not installed: exit 4 (pipx install llm)
          --model NAME        the provider's model (default: $IB_MODEL or the provider's default;
                              for llm, llm's default model)
          --base-url URL      the provider's address (default: $ANTHROPIC_BASE_URL, $OPENAI_BASE_URL
                              or $OLLAMA_HOST; read as ib-embed reads them: /v1 is added to an
                              Anthropic or OpenAI URL without a version; Ollama takes HOST,
                              HOST:PORT or a URL, port 11434 unless a scheme says 80/443;
                              0.0.0.0 is 127.0.0.1; a bad value is a usage error naming it)
          --rounds N          at most N search rounds for providers with tools (default 3; 0 to 20)
      -k N                    passages per search (default 6; 1 to 100)
          --no-tools          always retrieve first, even for providers with tools
          --no-expand         with a provider: search the question as asked (by default the
                              provider also rewrites it into searches in the book's words)
          --no-rerank         with a provider: keep the search's order (by default the
                              provider orders the best 30 passages)
          --max-tokens N      longest answer, in tokens (default 1024; 16 to 1000000)
          --timeout SECONDS   provider idle timeout (default 60; 0.001 to 86400)
          --retries N         retries on 429 and 5xx (default 3; 0 to 100)
      -c, --continue          continue the most recent conversation (of the book, with --book)
          --conversation ID   continue conversation ID (or a unique prefix)
          --list              list the conversations and exit
          --strict            remove unsupported citations (prints the answer when complete)
          --json              write one JSON object per question (answer, answered, citations,
                              sources, usage); the default when stdout is not a terminal
          --format text|json  text (the default on a terminal: the answer streamed) or JSON
      -v, --verbose           tool calls, retrieved pages, token usage on stderr
          --db PATH           the library (default $IB_DB, else ~/.local/share/ib/library.db)
                              never created; read-only libraries are read; not a regular file: exit 2
          --model-dir DIR     the sentence encoder, for extractive answers (default $IB_MODEL_DIR)
      -h, --help              this help
          --version           the version, the commit and the model folder

    Offline (extractive) answers quote the book's closest sentences, never its
    front or back matter (cast lists, contents, licence) and never one twice; when
    the best sentence scores below 0.57 they say "No offline answer" and show the
    nearest passages instead ("answered": false in --json).

    Summaries (never past the reading position; --page and --all-pages move it):
          --summarize         summarise the book up to the reading position, section by section
          --section N|TITLE   with --summarize: one section (its number in the summary, or a title)
          --pages A-B         with --summarize: pages A to B
          --recap             the short version for picking the book up again: earlier sections
                              in a line each, the last two in more detail, the people who matter,
                              where you stopped
    With a provider the sections are summarised, then combined, every claim cited (p. N) and
    checked; results are kept in the library (per book, section, model and prompt), so the same
    call again sends nothing and a later page re-sends only what is new. Offline (or when the
    provider fails: one warning, exit 0) the summary quotes the sentences of each section that
    best cover it, chosen with the sentence encoder; it says no language model was used.
    The summary as text on a terminal; in a pipe, or with --json, one object:
    {summary, citations, sections, cached, language_model, provider, model, up_to_page, requests}.

    ib-ask --search ARGS... runs ib-search ARGS with this tool's providers, for
    ib-search --expand and --rerank (same options and output as ib-search).

    Environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL,
    OLLAMA_HOST, IB_PROVIDER, IB_MODEL, IB_LLM, IB_LLM_LOG, IB_DB, IB_MODEL_DIR; ib-search's IB_SEARCH_WINDOWS,
    IB_SEARCH_WINDOW_SCAN, IB_SEARCH_SYNONYM_SCOPE (0 to 100,000,000), IB_SEARCH_SYNONYMS,
    IB_SEARCH_BOOK_IDF_PERCENT (0 to 100), IB_THESAURUS for its searches.
    On a terminal: the answer, streamed (--list: a line per conversation)
    In a pipe: JSON Lines (one object per question; --list: one per conversation)
    Output options: --json, --format text|json
    Exit codes: 0 ok, 1 error, 2 usage, 3 ambiguous book, 4 provider or network failure.
    See ib-ask(1).
    """

    static var options: [Arguments.Option] { [
        .init("book", short: "b", takesValue: true), .init("page", takesValue: true), .init("all-pages"),
        .init("provider", takesValue: true), .init("model", takesValue: true), .init("base-url", takesValue: true),
        .init("rounds", takesValue: true), .init("k", short: "k", takesValue: true),
        .init("no-tools"), .init("no-expand"), .init("no-rerank"), .init("max-tokens", takesValue: true), .init("timeout", takesValue: true),
        .init("retries", takesValue: true), .init("continue", short: "c"),
        .init("conversation", takesValue: true), .init("list"), .init("strict"), .init("json"), .init("format", takesValue: true),
        .init("verbose", short: "v"), .init("db", takesValue: true), .init("model-dir", takesValue: true),
        .init("help", short: "h"), .init("version"),
        .init("summarize"), .init("recap"), .init("section", takesValue: true), .init("pages", takesValue: true),
    ] }

    /// Runs ib-ask with `arguments` (without the program name).
    public static func run(_ arguments: [String]) throws {
        let args = try Arguments(arguments, options: options)
        if args.has("help") { OutputStream.standardOutput.write(help + "\n"); return }
        if args.has("version") { OutputStream.standardOutput.write(Installation.versionText(tool: "ib-ask", modelDirectoryFlag: try args.path("model-dir"))); return }
        if args.has("summarize") || args.has("recap") { try SummaryCommand.run(args); return }
        if args.value("section") != nil || args.value("pages") != nil { throw IBError.usage("--section and --pages need --summarize") }
        let verbose = args.has("verbose")
        let log: ((String) -> Void)? = verbose ? { printError("ib-ask: " + $0) } : nil
        let json = try OutputFormat.chosen(args) == .json, strict = args.has("strict")
        if args.has("continue") && args.value("conversation") != nil {
            throw IBError.usage("--continue and --conversation cannot be used together")
        }

        // A bad provider address (OLLAMA_HOST, --base-url...) is a usage error before
        // anything else; other provider errors (a missing key) wait until one is needed.
        if !args.has("list") {
            do {
                _ = try ProviderSettings.resolve(provider: args.value("provider"), model: args.value("model"),
                                                 baseURL: args.value("base-url"))
            } catch where error.code == .usage { throw error } catch {}
        }

        // Every number and path is checked before anything is opened.
        let timeout = try args.seconds("timeout") ?? 60
        let retries = try args.int("retries", min: 0, max: 100) ?? 3
        let rounds = try args.int("rounds", min: 0, max: 20) ?? 3
        let k = try args.int("k", min: 1, max: 100) ?? 6
        let maxTokens = try args.int("max-tokens", min: 16, max: 1_000_000) ?? 1024
        let explicitModelDir = try args.path("model-dir")
        let library = try Library.open(path: try args.path("db"), create: false)
        let store = ConversationStore(library.db)
        if library.db.isReadOnly {
            printError("ib-ask: the library \(library.path) is read-only here: answers are not saved as a conversation")
        }

        if args.has("list") {
            let bookID = try args.value("book").map { try BookLookup.resolveBook(library, $0).id }
            try list(store, bookID: bookID, json: json)
            return
        }

        // The conversation and its book.
        var conversationID: String
        var isNew = true
        var history: [Turn] = []
        var book: BookLookup.BookRow
        if let id = args.value("conversation") ?? (args.has("continue") ? "" : nil) {
            let explicitBook = try args.value("book").map { try BookLookup.resolveBook(library, $0) }
            let info: ConversationInfo
            if id.isEmpty {
                guard let latest = try store.latest(bookID: explicitBook?.id) else {
                    throw IBError("no conversation to continue" + (explicitBook.map { " for \($0.title)" } ?? ""))
                }
                info = latest
            } else {
                info = try store.find(id)
            }
            if let explicitBook, explicitBook.id != info.bookID {
                throw IBError.usage("conversation \(info.id) is about '\(info.bookTitle)', not '\(explicitBook.title)'")
            }
            conversationID = info.id
            isNew = false
            history = try store.turns(info.id)
            book = try BookLookup.resolveBook(library, info.bookID)
            log?("continuing conversation \(info.id) (\(history.count) earlier turns): \(info.title)")
        } else {
            let question = args.positionals.joined(separator: " ").trimmed
            do {
                book = try BookLookup.resolveBook(library, args.value("book"))
            } catch let e as IBError where e.code == .ambiguous && args.value("book") == nil && !question.isEmpty {
                // Several books and none named: the one whose passage fits the question best (BookRouting).
                let engine = SearchEngine(library: library, modelDirectory: explicitModelDir, settings: try SearchSettings.fromEnvironment())
                guard let routed = try BookRouting.route(question, engine: engine) else {
                    throw IBError("no book of the library has a passage for this question (up to each reading position); choose one with --book")
                }
                printError("ib-ask: asking '\(routed.title)' (\(routed.id.prefix(8))), the book whose passage fits the question best; --book chooses another")
                book = routed
            }
            conversationID = ConversationStore.newID()
        }
        if args.has("all-pages") && args.value("page") != nil { throw IBError.usage("--page and --all-pages cannot be used together") }
        var context = try BookLookup.context(library.db, book: book, pageOverride: args.value("page"))
        if args.has("all-pages") { context.currentPage = nil }

        // The provider.
        var settings = try ProviderSettings.resolve(provider: args.value("provider"), model: args.value("model"),
                                                    baseURL: args.value("base-url"))
        settings.timeout = timeout
        settings.maxRetries = retries
        settings.useTools = !args.has("no-tools")
        settings.onRetry = { retry in
            printError("ib-ask: \(providerLabel(settings.name)) answered \(retry.reason); retrying in \(formatDelay(retry.delay))")
        }
        let provider = settings.makeProvider()
        log?("book \(context.id) '\(context.title)'" + (context.currentPage.map { ", reader at p. \(context.display($0))" } ?? ", no current page")
             + "; provider \(settings.name)" + (provider.map { " (\($0.model))" } ?? ""))

        let modelDir = Config.modelDirectory(flag: explicitModelDir)
        let searchSettings = try SearchSettings.fromEnvironment()
        // The model loads only when a search or the extractive answer needs
        // it: after the first provider request has left.
        var encoder: SentenceEncoder?
        func sharedEncoder() throws -> SentenceEncoder {
            if let encoder { return encoder }
            let e = try SentenceEncoder(directory: modelDir)
            encoder = e
            return e
        }
        let asker = Asker(book: context, provider: provider,
                          retriever: {
                              let engine = provider == nil
                                  ? SearchEngine(library: library, encoder: try sharedEncoder(), settings: searchSettings)
                                  : SearchEngine(library: library, modelDirectory: explicitModelDir, settings: searchSettings)
                              let r = SearchRetriever(engine: engine)
                              r.log = log
                              // A configured provider also rewrites and re-ranks the searches
                              // (ib-search --expand --rerank); a failure warns and searches plainly.
                              if let provider {
                                  r.assistant = ProviderAssistant(provider: provider, book: " (\"\(context.title)\")")
                                  r.assist = AssistOptions(expand: !args.has("no-expand"), rerank: !args.has("no-rerank"))
                              }
                              return r
                          },
                          embedder: { ModelEmbedder(encoder: try sharedEncoder()) })
        asker.maxRounds = rounds
        asker.k = k
        asker.maxTokens = maxTokens
        asker.log = log
        let bookID = context.id
        asker.pageText = { page in
            try? library.pageText(bookID: bookID, page: page)
        }

        let questionArgs = args.positionals.joined(separator: " ").trimmed
        func askOne(_ question: String, line: Int? = nil) throws {
            // A question, not a book: a 60 MiB line once held the search for minutes and 1 GB.
            if question.utf8.count > Self.maxQuestionBytes {
                throw IBError((line.map { "<stdin>:\($0): " } ?? "") + "the question is longer than \(Self.maxQuestionBytes) bytes")
            }
            let streaming = !json && !strict
            var printed = ""
            let result: AskResult
            do {
                result = try asker.ask(question, history: history) { text in
                    guard streaming else { return }
                    printed += text
                    OutputStream.standardOutput.write(text)
                    OutputStream.standardOutput.flush()
                }
            } catch {
                // End the partial answer's line before the error message.
                if !printed.isEmpty && !printed.hasSuffix("\n") { OutputStream.standardOutput.write("\n") }
                OutputStream.standardOutput.flush()
                throw error
            }
            let turn = Turn(question: question, searches: result.searches, answer: result.answer)
            // The whole turn, in one transaction, only now that the answer is complete.
            if !library.db.isReadOnly {
                do {
                    try store.append(turn, conversationID: conversationID, bookID: context.id, create: isNew)
                } catch {
                    throw library.describe(error)
                }
            }
            isNew = false
            history.append(turn)
            for c in result.unsupported {
                printError("ib-ask: unsupported citation \(c.text): " + (c.pages.isEmpty ? "no such page" : "not among the retrieved pages")
                           + (strict ? " (removed)" : ""))
            }
            let answer = strict ? Citations.removeUnsupported(result.answer, result.citations) : result.answer
            if json {
                OutputStream.standardOutput.writeJSON(output(result, answer: answer, question: question,
                                                             conversationID: conversationID, book: context, strict: strict))
            } else if strict {
                OutputStream.standardOutput.write(answer + "\n")
            } else if !printed.hasSuffix("\n") {
                OutputStream.standardOutput.write("\n")
            }
            OutputStream.standardOutput.flush()
        }

        if !questionArgs.isEmpty {
            try askOne(questionArgs)
            return
        }
        let interactive = Terminal.stdinIsTerminal
        if interactive {
            printError("ib-ask: \(context.title)" + (context.currentPage.map { ", up to p. \(context.display($0))" } ?? "")
                       + " — \(settings.name). Ask a question; an empty line or Ctrl-D ends.")
        }
        // The shared reader: each line is found once, and one longer than its
        // 64 MiB limit is refused with its number instead of filling memory.
        let reader = try LineReader(path: "-")
        if interactive { printErrorNoNewline("> ") }
        do {
            try reader.forEachLine { bytes in
                let question = String(decoding: bytes, as: UTF8.self).trimmed
                if question.isEmpty {
                    if interactive { throw EndOfSession() }
                    return
                }
                try askOne(question, line: reader.lineNumber)
                if interactive && !json { OutputStream.standardOutput.write("\n"); OutputStream.standardOutput.flush() }
                if interactive { printErrorNoNewline("> ") }
            }
        } catch is EndOfSession {}
        if !isNew { log?("conversation \(conversationID)") }
    }

    /// 64 KiB: some ten thousand words, far above any question.
    static let maxQuestionBytes = 64 << 10

    static func output(_ result: AskResult, answer: String, question: String, conversationID: String, book: BookContext, strict: Bool) -> JSON {
        let citations = result.citations.filter { !strict || $0.supported }
        var object = JSONObject()
        object["conversation_id"] = .string(conversationID)
        object["book_id"] = .string(book.id)
        object["question"] = .string(question)
        object["answer"] = .string(answer)
        object["answered"] = .bool(result.answered)
        object["citations"] = .array(citations.map { c in
            var j = c.json.objectValue!
            j["labels"] = .array(c.pages.map { .string(book.display($0)) })
            return .object(j)
        })
        object["sources"] = .array(result.sources.map { p in
            ["chunk": .string(p.chunkID), "pages": [.number(Double(p.startPage)), .number(Double(p.endPage))],
             "labels": [.string(book.display(p.startPage)), .string(book.display(p.endPage))],
             "citation": .string("(\(book.citation(p.startPage, p.endPage)))"), "text": .string(p.text)]
        })
        object["usage"] = ["input_tokens": .number(Double(result.usage.input)), "output_tokens": .number(Double(result.usage.output)),
                           "calls": .number(Double(result.calls))]
        object["provider"] = .string(result.provider)
        object["model"] = .string(result.model)
        object["current_page"] = book.currentPage.map { .number(Double($0)) } ?? .null
        return .object(object)
    }

    static func list(_ store: ConversationStore, bookID: String?, json: Bool) throws {
        let all = try store.list(bookID: bookID)
        for c in all {
            if json {
                OutputStream.standardOutput.writeJSON(["id": .string(c.id), "book_id": .string(c.bookID), "book_title": .string(c.bookTitle),
                                                       "title": .string(c.title), "created_at": .string(c.createdAt),
                                                       "messages": .number(Double(c.messageCount))])
            } else {
                OutputStream.standardOutput.write("\(c.id)  \(String(c.createdAt.prefix(16)))  \(c.bookTitle)  \(c.title)\n")
            }
        }
        if all.isEmpty && !json { printError("ib-ask: no conversations yet") }
    }

    static func formatDelay(_ s: Double) -> String {
        s < 10 ? String(Double(Int(s * 10)) / 10) + " s" : "\(Int(s)) s"
    }
}

func printErrorNoNewline(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress!, $0.count) }
}

/// An empty line on a terminal: the session ends.
private struct EndOfSession: Error {}
