// ib-index: stores record streams in the library and manages it.
import IBCore
import IBStore
#if canImport(Glibc)
import Glibc
#endif

let usage = """
Usage: ib-index [--db PATH] [--replace] [FILE...]     store records (stdin when no FILE)
       ib-index [--db PATH] list
       ib-index [--db PATH] show BOOK
       ib-index [--db PATH] delete BOOK...
       ib-index [--db PATH] set-page BOOK N           (0 clears the reading position; at most 1000000000)
       ib-index [--db PATH] export [--missing-embeddings] [--floats] [BOOK...]
       ib-index [--db PATH] stats
       ib-index [--db PATH] vacuum
       ib-index [--db PATH] quantize off|i8|bits

Stores book, page and chunk records (with or without embeddings) and the
reader's records in the library, one transaction per book; manages the library.
BOOK is an id, an id prefix (4+ characters), or a title (fuzzy).
quantize sets the vector index: i8 (int8 codes beside the floats, the default of
a new library; exact search reads them first), bits (sign bits: binary search,
re-scored in float) or off (floats only).

Options:
  --db PATH              the library (default: $IB_DB, else $XDG_DATA_HOME/ib/library.db)
  --replace              store books again even when their id is already stored
  --missing-embeddings   export: only the chunks without a vector (for ib-embed)
  --floats               export: embeddings as JSON arrays instead of base64
  -q, --quiet            no progress or summary on stderr
  -h, --help             this help
      --version          the version

Environment: IB_DB (the library), XDG_DATA_HOME, IB_INDEX_TIMING (time the store).
Exit status: 0 ok, 1 error, 2 usage, 3 BOOK matches several books.
See ib-index(1) for the replace rule and concurrency.
"""

let options: [Arguments.Option] = [
    .init("db", takesValue: true), .init("replace"), .init("missing-embeddings"), .init("floats"),
    .init("quiet", short: "q"), .init("help", short: "h"), .init("version"),
]

let subcommands: Set<String> = ["list", "show", "delete", "set-page", "export", "stats", "vacuum", "quantize", "store"]

runTool("ib-index") {
    // SIGXFSZ would kill us at a file-size limit; get EFBIG and a clear error instead.
    signal(SIGXFSZ, SIG_IGN)
    let args = try Arguments(Array(CommandLine.arguments.dropFirst()), options: options)
    if args.has("help") { print(usage); return }
    if args.has("version") { print("ib-index \(ibVersion)"); return }
    let db = try args.path("db")
    var positionals = args.positionals
    var command = "store"
    if let first = positionals.first, subcommands.contains(first), !FileSystem.exists(first) {
        command = first
        positionals.removeFirst()
    }
    let quiet = args.has("quiet")
    let out = OutputStream.standardOutput

    switch command {
    case "store":
        if positionals.isEmpty && Terminal.stdinIsTerminal {
            throw IBError.usage("no records: pipe them in (ib-parse FILE | ib-chunk | ib-embed | ib-index) or give FILEs")
        }
        let started = Timestamp.monotonic()
        let library = try Library.open(path: db)
        let indexer = Indexer(library: library)
        indexer.replace = args.has("replace")
        if !quiet { indexer.report = { printError("ib-index: \($0)") } }
        try RecordReader.forEach(paths: positionals) { record, line in
            if try !indexer.add(record) { out.writeRaw(line) }
        }
        try indexer.finish()
        let s = indexer.summary
        if !quiet {
            var parts = ["\(s.stored.count) books stored"]
            if !s.unchanged.isEmpty { parts.append("\(s.unchanged.count) unchanged") }
            if !s.replaced.isEmpty { parts.append("\(s.replaced.count) replaced") }
            parts.append("\(s.vectorsStored + s.vectorsAdded) vectors")
            if s.chunksWithoutVectors > 0 { parts.append("\(s.chunksWithoutVectors) chunks without embeddings") }
            if s.readerRecords > 0 { parts.append("\(s.readerRecords) reader records") }
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

    case "list":
        guard positionals.isEmpty else { throw IBError.usage("list takes no arguments") }
        let library = try Library.open(path: db)
        let books = try library.books()
        if Terminal.stdoutIsTerminal {
            out.write(Table.render(header: ["ID", "TITLE", "AUTHORS", "PAGES", "CHUNKS", "EMBEDDED", "AT"],
                                   rows: books.map { b in
                                       [String(b.id.prefix(8)), b.title, b.authors.joined(separator: ", "), String(b.pageCount),
                                        String(b.chunkCount), String(b.vectorCount), b.currentPage > 0 ? "p. \(b.currentPage)" : ""]
                                   }))
            if books.isEmpty { out.write("(no books in \(library.path))\n") }
        } else {
            for book in books { out.writeJSON(book.json) }
        }

    case "show":
        guard positionals.count == 1 else { throw IBError.usage("show takes one BOOK") }
        let library = try Library.open(path: db)
        let book = try library.resolveBook(positionals[0])
        if Terminal.stdoutIsTerminal {
            var lines: [(String, String)] = [("id", book.id), ("title", book.title)]
            if !book.authors.isEmpty { lines.append(("authors", book.authors.joined(separator: ", "))) }
            if let language = book.language { lines.append(("language", language)) }
            lines += [("format", book.format), ("source", book.source), ("sha256", book.sha256),
                      ("pages", String(book.pageCount)), ("chunks", String(book.chunkCount)),
                      ("embedded", "\(book.vectorCount)" + (book.embeddingModel.map { " (\($0), \(book.embeddingDimension ?? 0) dims)" } ?? "")),
                      ("reading at", book.currentPage > 0 ? "page \(book.currentPage)" : "-"),
                      ("status", book.status), ("added", Library.normalizedDate(book.createdAt)),
                      ("updated", Library.normalizedDate(book.updatedAt))]
            for (key, value) in lines { out.write(key.padding(12) + value + "\n") }
        } else {
            out.writeJSON(book.json)
        }

    case "delete":
        guard !positionals.isEmpty else { throw IBError.usage("delete needs a BOOK") }
        let library = try Library.open(path: db)
        // Resolve all first: an ambiguous name deletes nothing.
        let books = try positionals.map { try library.resolveBook($0) }
        for book in books {
            do { try library.delete(bookID: book.id) } catch let e as IBError { throw e } catch { throw library.describe(error) }
            if !quiet { printError("ib-index: deleted \(book.id) '\(book.title)' (run `ib-index vacuum` to give the space back)") }
        }

    case "set-page":
        guard positionals.count == 2 else { throw IBError.usage("set-page takes BOOK and a page number") }
        let page = try Arguments.parseInt(positionals[1], name: "set-page N", min: 0, max: 1_000_000_000)
        let library = try Library.open(path: db)
        let book = try library.resolveBook(positionals[0])
        do { try library.setPage(bookID: book.id, page: page) } catch let e as IBError { throw e } catch { throw library.describe(error) }
        if !quiet { printError("ib-index: '\(book.title)': " + (page == 0 ? "reading position cleared" : "reading at page \(page)")) }

    case "export":
        let library = try Library.open(path: db)
        var exporter = Exporter(library: library)
        exporter.missingEmbeddings = args.has("missing-embeddings")
        exporter.encoding = args.has("floats") ? .floats : .base64
        let ids = positionals.isEmpty ? nil : try positionals.map { try library.resolveBook($0).id }
        do { try exporter.export(bookIDs: ids, to: out) } catch let e as IBError { throw e } catch { throw library.describe(error) }

    case "stats":
        guard positionals.isEmpty else { throw IBError.usage("stats takes no arguments") }
        let library = try Library.open(path: db)
        let stats: JSON
        do { stats = try library.stats() } catch { throw library.describe(error) }
        if Terminal.stdoutIsTerminal, let o = stats.objectValue {
            for (key, value) in o.entries {
                out.write(key.padding(16) + (value.stringValue ?? JSON.serializeValue(value)) + "\n")
            }
        } else {
            out.writeJSON(stats)
        }

    case "vacuum":
        let library = try Library.open(path: db)
        let before = try library.stats()
        do { try library.vacuum() } catch { throw library.describe(error) }
        let after = try library.stats()
        if !quiet {
            printError("ib-index: vacuum: \(before["file_bytes"]?.intValue ?? 0) -> \(after["file_bytes"]?.intValue ?? 0) bytes")
        }

    case "quantize":
        guard positionals.count == 1 else { throw IBError.usage("quantize takes one of off, i8, bits") }
        let library = try Library.open(path: db)
        do { try library.setQuantize(positionals[0]) } catch let e as IBError { throw e } catch { throw library.describe(error) }
        if !quiet { printError("ib-index: quantised index: \(positionals[0])") }

    default:
        throw IBError.usage("unknown command \(command)")
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

extension JSON {
    static func serializeValue(_ json: JSON) -> String {
        var out: [UInt8] = []
        json.write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// Terminal columns: CJK and full-width characters take two, combining marks none.
    var displayWidth: Int {
        var width = 0
        for s in unicodeScalars {
            let v = s.value
            if s.properties.generalCategory == .nonspacingMark || s.properties.generalCategory == .enclosingMark || v == 0x200B { continue }
            width += FullText.isCJK(v) || (0x3000...0x303F).contains(v) || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) ? 2 : 1
        }
        return width
    }

    /// Cut to at most `width` columns, with an ellipsis when cut.
    func truncated(toWidth width: Int) -> String {
        if displayWidth <= width { return self }
        var out = "", used = 0
        for c in self {
            let w = String(c).displayWidth
            if used + w > width - 1 { break }
            out.append(c); used += w
        }
        return out + "…"
    }

    func padded(toWidth width: Int) -> String {
        self + String(repeating: " ", count: max(1, width - displayWidth))
    }
}

enum Table {
    /// A plain text table; wide columns (titles) are cut to fit 100 columns.
    static func render(header: [String], rows: [[String]]) -> String {
        var widths = header.map(\.displayWidth)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.displayWidth) } }
        widths[1] = min(widths[1], 48)
        widths[2] = min(widths[2], 24)
        func line(_ cells: [String]) -> String {
            var out = ""
            for (i, cell) in cells.enumerated() {
                let c = cell.truncated(toWidth: widths[i])
                out += i == cells.count - 1 ? c : c.padded(toWidth: widths[i] + 1)
            }
            return out + "\n"
        }
        return line(header) + rows.map(line).joined()
    }
}
