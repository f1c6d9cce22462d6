// ib-index: stores record streams in the library and manages it. The
// subcommands, each a function over the library; main.swift only calls `run`.
import IBCore
import IBStore

public enum IndexCommand {
    static let usage = """
    Usage: ib-index [--db PATH] [--replace] [--mixed-precision] [FILE...]   store records (stdin when no FILE)
           ib-index [--db PATH] --restructure [FILE...]   rebuild stored books' structure from page records
           ib-index [--db PATH] list [--json | --format text|json]
           ib-index [--db PATH] show [--json | --format text|json] BOOK
           ib-index [--db PATH] get [--context N] [--all-pages] [--json | --format text|json] BOOK:PAGE or CHUNK_ID
           ib-index [--db PATH] delete [--purge] [--yes] BOOK...
           ib-index [--db PATH] set-page BOOK N           (0 clears the reading position; at most 1000000000)
           ib-index [--db PATH] export [--missing-embeddings] [--floats] [BOOK...]
           ib-index [--db PATH] stats [--json | --format text|json]
           ib-index [--db PATH] vacuum
           ib-index [--db PATH] quantize off|i8|bits

    Stores book, page and chunk records (with or without embeddings) and the
    reader's records in the library, one transaction per book; manages the library.
    BOOK is an id, an id prefix (4+ characters), or a title (fuzzy).
    get prints a passage (CHUNK_ID as ib-search gives it, BOOK_ID:INDEX; or the one
    where BOOK:PAGE starts, PAGE a number or printed label) with N neighbouring
    passages on each side. Like every
    read it stops at the reading position: a passage past it is refused (exit 1)
    and later neighbours are left out, unless --all-pages.
    --replace stores a book's text again under the same book: its quotes, notes,
    progress and reading state stay. delete removes a book's text but keeps the
    reader's words (detached, with the book's title; still exported and searched)
    unless --purge; on a terminal it asks first; a partial title is refused
    without --yes (exit 3).
    list, show, get and stats print text on a terminal and JSON Lines when stdout
    is not a terminal (list: one line per book; show: one object with its sections;
    get: one line per passage; stats: one object); --json or --format says which.
    quantize sets the vector index: i8 (int8 codes beside the floats, the default of
    a new library; exact search reads them first), bits (sign bits: binary search,
    re-scored in float) or off (floats only).

    Options:
      --db PATH              the library (default: $IB_DB, else $XDG_DATA_HOME/ib/library.db)
                             list, show, export, stats never create it and read it in a read-only folder;
                             a PATH that is not a regular file, or is in a missing folder, is exit 2
      --replace              store books again even when their id is already stored
      --mixed-precision      store vectors made in another precision than the library's
                             (ib-embed --precision; a chunk without "precision" is fp32);
                             without it such a book is refused (exit 1). The library keeps
                             its first precision and ib-search embeds queries in it
      --restructure          read page records (ib-parse BOOK | ib-index --restructure) and rebuild the
                             stored book's sections and chunks' sections; no vector is touched
      --json                 JSON Lines (the default when stdout is not a terminal);
                             get: one line per passage (chunk_id, book_id, title, pages,
                             labels, asked, text)
      --format text|json     text (the default on a terminal) or JSON Lines
      --context N            get: N passages before and after (default 0; 0 to 20)
      --all-pages            get: also past the reading position (spoilers)
      --missing-embeddings   export: only the chunks without a vector (for ib-embed)
      --floats               export: embeddings as JSON arrays instead of base64
      --purge                delete: remove the reader's quotes, notes, progress and
                             conversations of the book too (and say how many)
      -y, --yes              delete: no question, and a partial title is enough
      -q, --quiet            no progress or summary on stderr
      -h, --help             this help
          --version          the version, the commit and the model folder

    On a terminal: tables (list, stats), the book and its contents (show), passages (get)
    In a pipe: JSON Lines (list: a line per book; show, stats: one object; get: a line per passage)
    Output options: --json, --format text|json
    Environment: IB_DB (the library), XDG_DATA_HOME, IB_INDEX_TIMING (time the store).
    Exit status: 0 ok, 1 error, 2 usage (a slip for a subcommand, as in "ib-index lst",
    says "did you mean list?"), 3 BOOK matches several books (or, for
    delete, only a partial title without --yes); nothing was changed.
    See ib-index(1) for the replace rule and concurrency.
    """

    static var options: [Arguments.Option] { [
        .init("db", takesValue: true), .init("replace"), .init("mixed-precision"), .init("restructure"), .init("json"), .init("format", takesValue: true),
        .init("context", takesValue: true), .init("all-pages"), .init("missing-embeddings"), .init("floats"),
        .init("purge"), .init("yes", short: "y"),
        .init("quiet", short: "q"), .init("help", short: "h"), .init("version"),
    ] }

    static let subcommands: Set<String> = ["list", "show", "get", "delete", "set-page", "export", "stats", "vacuum", "quantize", "store"]

    /// What every subcommand gets: the parsed flags, its own arguments, the library's path (nil: the default).
    struct Invocation {
        var args: Arguments
        var positionals: [String]
        var db: String?
        var quiet: Bool { args.has("quiet") }
        /// list, show, get, stats: text on a terminal, JSON Lines in a pipe (OutputFormat).
        var format: OutputFormat { get throws { try OutputFormat.chosen(args) } }
        let out = OutputStream.standardOutput
    }

    /// Runs one command line (without the program name).
    public static func run(_ arguments: [String]) throws {
        let args = try Arguments(arguments, options: options)
        if args.has("help") { print(usage); return }
        if args.has("version") { print(Installation.versionText(tool: "ib-index"), terminator: ""); return }
        var positionals = args.positionals
        var command = "store"
        // A file that happens to be called "list" is stored, not listed.
        if let first = positionals.first, subcommands.contains(first), !FileSystem.exists(first) {
            command = first
            positionals.removeFirst()
        } else if let first = positionals.first, !FileSystem.exists(first),
                  let close = Subcommands.suggestion(first, among: subcommands.sorted()) {
            throw Subcommands.unknown(first, suggestion: close)
        }
        let invocation = Invocation(args: args, positionals: positionals, db: try args.path("db"))
        if args.has("restructure") {
            guard command == "store" else { throw IBError.usage("--restructure reads page records; it takes no command") }
            try restructure(invocation)
            return
        }
        switch command {
        case "store": try store(invocation)
        case "list": try list(invocation)
        case "show": try show(invocation)
        case "get": try get(invocation)
        case "delete": try delete(invocation)
        case "set-page": try setPage(invocation)
        case "export": try export(invocation)
        case "stats": try stats(invocation)
        case "vacuum": try vacuum(invocation)
        case "quantize": try quantize(invocation)
        default: throw IBError.usage("unknown command \(command)")
        }
    }

    static func store(_ c: Invocation) throws {
        if c.positionals.isEmpty && Terminal.stdinIsTerminal {
            throw IBError.usage("no records: pipe them in (ib-parse FILE | ib-chunk | ib-embed | ib-index) or give FILEs")
        }
        let started = Timestamp.monotonic()
        let library = try Library.open(path: c.db)
        let indexer = Indexer(library: library)
        indexer.replace = c.args.has("replace")
        indexer.allowMixedPrecision = c.args.has("mixed-precision")
        if !c.quiet { indexer.report = { printError("ib-index: \($0)") } }
        try RecordReader.forEach(paths: c.positionals) { record, line in
            if try !indexer.add(record) { c.out.writeRaw(line) }
        }
        try indexer.finish()
        let s = indexer.summary
        if !c.quiet {
            var parts = [counted(s.stored.count, "book") + " stored"]
            if !s.unchanged.isEmpty { parts.append("\(s.unchanged.count) unchanged") }
            if !s.replaced.isEmpty { parts.append("\(s.replaced.count) replaced") }
            parts.append(counted(s.vectorsStored + s.vectorsAdded, "vector"))
            if s.chunksWithoutVectors > 0 { parts.append(counted(s.chunksWithoutVectors, "chunk") + " without embeddings") }
            if s.readerRecords > 0 { parts.append(counted(s.readerRecords, "reader record")) }
            printError("ib-index: " + parts.joined(separator: ", ") + " (\(library.path))")
        }
        if Config.environment("IB_INDEX_TIMING") != nil {
            let total = Timestamp.monotonic() - started
            let vectors = Double(s.vectorsStored + s.vectorsAdded)
            let cpu = processCPUSeconds()
            func f(_ x: Double) -> String { String(Double(Int(x * 1000)) / 1000) }
            printError("ib-index: timing: wall \(f(total)) s (storing \(f(s.storeSeconds)) s = \(Int(vectors / max(s.storeSeconds, 1e-9))) vectors/s); "
                       + "cpu \(f(cpu)) s (storing \(f(s.storeCPUSeconds)) s = \(Int(vectors / max(s.storeCPUSeconds, 1e-9))) vectors/s, reading+parsing \(f(cpu - s.storeCPUSeconds)) s)")
        }
    }

    static func list(_ c: Invocation) throws {
        guard c.positionals.isEmpty else { throw IBError.usage("list takes no arguments") }
        let library = try Library.open(path: c.db, create: false)
        let books = try library.books()
        guard try c.format == .text else {
            for book in books { c.out.writeJSON(book.json) }
            return
        }
        c.out.write(listTable(books))
        if books.isEmpty { c.out.write("(no books in \(library.path))\n") }
    }

    static func listTable(_ books: [BookInfo]) -> String {
        TextTable.render(header: ["ID", "TITLE", "AUTHORS", "PAGES", "CHUNKS", "EMBEDDED", "AT"], rows: books.map { b in
            [String(b.id.prefix(8)), b.title, b.authors.joined(separator: ", "), String(b.pageCount),
             String(b.chunkCount), String(b.vectorCount), b.currentPage > 0 ? "p. \(b.currentPage)" : ""]
        })
    }

    static func show(_ c: Invocation) throws {
        guard c.positionals.count == 1 else { throw IBError.usage("show takes one BOOK") }
        let library = try Library.open(path: c.db, create: false)
        let format = try c.format
        let book = try library.resolveBook(c.positionals[0])
        let sections = try library.sections(bookID: book.id)
        if format == .json {
            guard case .object(var object) = book.json else { return }
            object["sections"] = .array(sections.map(\.json))
            c.out.writeJSON(.object(object))
        } else {
            c.out.write(TextTable.keyValueLines(showPairs(book), keyWidth: 12))
            if !sections.isEmpty { c.out.write("\ncontents (\(counted(sections.count, "section"))):\n" + contentsLines(sections)) }
        }
    }

    static func showPairs(_ book: BookInfo) -> [(String, String)] {
        var lines: [(String, String)] = [("id", book.id), ("title", book.title)]
        if !book.authors.isEmpty { lines.append(("authors", book.authors.joined(separator: ", "))) }
        if let language = book.language { lines.append(("language", language)) }
        lines += [("format", book.format), ("source", book.source), ("sha256", book.sha256),
                  ("pages", String(book.pageCount)), ("chunks", String(book.chunkCount)),
                  ("embedded", "\(book.vectorCount)" + (book.embeddingModel.map { " (\($0), \(book.embeddingDimension ?? 0) dims" + (book.embeddingPrecision.map { ", \($0)" } ?? "") + ")" } ?? "")),
                  ("reading at", book.currentPage > 0 ? "page \(book.currentPage)" : "-"),
                  ("status", book.status), ("added", Library.normalizedDate(book.createdAt)),
                  ("updated", Library.normalizedDate(book.updatedAt))]
        return lines
    }

    static func delete(_ c: Invocation) throws {
        guard !c.positionals.isEmpty else { throw IBError.usage("delete needs a BOOK") }
        let purge = c.args.has("purge"), trusted = c.args.has("yes")
        let library = try Library.open(path: c.db)
        // Resolve all first: an ambiguous or partial name deletes nothing.
        let books = try c.positionals.map { query in
            let (book, naming) = try library.resolveBookMatch(query)
            if naming == .partialTitle && !trusted {
                throw IBError("'\(query)' only partly matches \(book.id) '\(book.title)'; give its id or its whole title, or add --yes. Nothing was deleted",
                              code: .ambiguous)
            }
            return book
        }
        if Terminal.stdinIsTerminal && !trusted {
            for book in books where !(try confirmDelete(book, purge: purge, library)) {
                printError("ib-index: nothing was deleted")
                return
            }
        }
        for book in books {
            let counts = try described(library) { try library.delete(bookID: book.id, purge: purge) }
            guard !c.quiet || purge else { continue }
            var line = "ib-index: deleted \(book.id) '\(book.title)'"
            if purge {
                line += "; removed the reader's \(counts.description)"
            } else if counts.total > 0 {
                line += "; kept the reader's \(counts.description), detached (--purge removes them)"
            }
            printError(line + " (run `ib-index vacuum` to give the space back)")
        }
    }

    /// Asks on the terminal; only "y" or "yes" deletes.
    static func confirmDelete(_ book: BookInfo, purge: Bool, _ library: Library) throws -> Bool {
        let counts = try described(library) { try library.readerWordCounts(bookID: book.id) }
        let fate = purge ? "and remove the reader's \(counts.description)" : "(the reader's \(counts.description) are kept)"
        let prompt = OutputStream(fd: 2)
        prompt.write("ib-index: delete \(book.id) '\(book.title)' \(fate)? [y/N] ")
        prompt.flush()
        let answer = (readLine() ?? "").trimmingCharacters(in: " \t").lowercased()
        return answer == "y" || answer == "yes"
    }

    static func setPage(_ c: Invocation) throws {
        guard c.positionals.count == 2 else { throw IBError.usage("set-page takes BOOK and a page number") }
        let page = try Arguments.parseInt(c.positionals[1], name: "set-page N", min: 0, max: 1_000_000_000)
        let library = try Library.open(path: c.db)
        let book = try library.resolveBook(c.positionals[0])
        try described(library) { try library.setPage(bookID: book.id, page: page) }
        if !c.quiet { printError("ib-index: '\(book.title)': " + (page == 0 ? "reading position cleared" : "reading at page \(page)")) }
    }

    static func export(_ c: Invocation) throws {
        let library = try Library.open(path: c.db, create: false)
        var exporter = Exporter(library: library)
        exporter.missingEmbeddings = c.args.has("missing-embeddings")
        exporter.encoding = c.args.has("floats") ? .floats : .base64
        let ids = c.positionals.isEmpty ? nil : try c.positionals.map { try library.resolveBook($0).id }
        try described(library) { try exporter.export(bookIDs: ids, to: c.out) }
    }

    static func stats(_ c: Invocation) throws {
        guard c.positionals.isEmpty else { throw IBError.usage("stats takes no arguments") }
        let library = try Library.open(path: c.db, create: false)
        let stats: JSON
        do { stats = try library.stats() } catch { throw library.describe(error) }
        if try c.format == .text, let o = stats.objectValue {
            c.out.write(statsLines(o))
        } else {
            c.out.writeJSON(stats)
        }
    }

    /// Text values as they are, anything else as JSON.
    static func statsLines(_ stats: JSONObject) -> String {
        TextTable.keyValueLines(stats.entries.map { ($0.key, $0.value.stringValue ?? $0.value.serialized) }, keyWidth: 16)
    }

    static func vacuum(_ c: Invocation) throws {
        let library = try Library.open(path: c.db)
        let before = try library.stats()
        do { try library.vacuum() } catch { throw library.describe(error) }
        let after = try library.stats()
        if !c.quiet {
            printError("ib-index: vacuum: \(before["file_bytes"]?.intValue ?? 0) -> \(after["file_bytes"]?.intValue ?? 0) bytes")
        }
    }

    static func quantize(_ c: Invocation) throws {
        guard c.positionals.count == 1 else { throw IBError.usage("quantize takes one of off, i8, bits") }
        let library = try Library.open(path: c.db)
        try described(library) { try library.setQuantize(c.positionals[0]) }
        if !c.quiet { printError("ib-index: quantised index: \(c.positionals[0])") }
    }

    /// Runs `body`; an error that is not already an IBError is described against the library.
    @discardableResult
    static func described<T>(_ library: Library, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as IBError { throw e } catch { throw library.describe(error) }
    }
}
