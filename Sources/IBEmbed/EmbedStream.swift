// ib-embed's stream: chunk records in, the same records out with "model",
// "precision" (int8, bf16; none for fp32), "dim" and "embedding" added. Every other record passes through unchanged,
// byte for byte, in its place: records are held until the chunks before them
// are embedded, and chunks are embedded a buffer at a time.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

public struct EmbedOptions: Sendable {
    public var encoding: EmbeddingEncoding = .floats
    /// Add window vectors ("windows") when the provider makes them (the native model).
    public var windows = true
    /// Chunks held before they are embedded together (batches are cut from these).
    public var bufferSize = 256
    /// Progress line on stderr: nil means "when stderr is a terminal".
    public var progress: Bool? = nil
    public init() {}
}

public final class EmbedStream {
    let provider: any EmbeddingProvider
    let options: EmbedOptions
    let out: OutputStream

    private enum Pending {
        case raw([UInt8])
        case chunk(ChunkRecord)
    }
    private var pending: [Pending] = []
    private var pendingChunks = 0
    public private(set) var chunksEmbedded = 0
    private let progress: Progress?

    public init(provider: any EmbeddingProvider, options: EmbedOptions = EmbedOptions(),
                out: OutputStream = .standardOutput) {
        self.provider = provider
        self.options = options
        self.out = out
        progress = (options.progress ?? Terminal.stderrIsTerminal) ? Progress() : nil
    }

    /// Reads record files ("-" or none for stdin) and writes the embedded stream.
    public func run(paths: [String]) throws {
        do {
            for path in paths.isEmpty ? ["-"] : paths {
                let reader = try RecordReader(path: path)
                progress?.startFile(path: path)
                try reader.forEach { record, line in
                    progress?.consumed(bytes: line.count + 1)
                    try self.add(record, line: line)
                }
            }
        } catch {
            // Records read before the error still go out, then the error stops the run.
            try? flush()
            throw error
        }
        try flush()
        progress?.finish(chunks: chunksEmbedded)
    }

    func add(_ record: Record, line: UnsafeBufferPointer<UInt8>) throws {
        if case .book(let book) = record { progress?.startBook(title: book.title, pages: book.pageCount) }
        if case .chunk(let chunk) = record {
            progress?.reached(page: chunk.endPage)
            pending.append(.chunk(chunk))
            pendingChunks += 1
            if pendingChunks >= options.bufferSize { try flush() }
        } else if pendingChunks == 0 {
            out.writeRaw(line)
        } else {
            pending.append(.raw(Array(line)))
        }
    }

    /// Embeds the held chunks and writes everything held, in order.
    func flush() throws {
        guard !pending.isEmpty else { return }
        var texts: [String] = []
        texts.reserveCapacity(pendingChunks)
        for item in pending { if case .chunk(let c) = item { texts.append(c.text) } }
        var vectors: [[Float]] = []
        var windows: [[Int8]] = []
        if texts.isEmpty {
        } else if options.windows, let windowed = provider as? WindowEmbeddingProvider, windowed.supportsWindows {
            let embedded = try windowed.embedWithWindows(texts)
            vectors = embedded.map(\.vector)
            windows = embedded.map(\.windows)
        } else {
            vectors = try provider.embed(texts)
        }
        guard vectors.count == texts.count else {
            throw IBError("\(provider.modelID): asked for \(texts.count) embeddings, got \(vectors.count)", code: .provider)
        }
        var next = 0
        for item in pending {
            switch item {
            case .raw(let bytes):
                bytes.withUnsafeBufferPointer { out.writeRaw($0) }
            case .chunk(var chunk):
                let vector = vectors[next]
                next += 1
                guard vector.count == provider.dimension else {
                    throw IBError("\(provider.modelID): returned a vector of \(vector.count) values, expected \(provider.dimension)", code: .provider)
                }
                chunk.embedding = vector
                chunk.windows = windows.isEmpty ? [] : windows[next - 1]
                chunk.model = provider.modelID
                chunk.precision = provider.precision
                out.writeRecord(.chunk(chunk), encoding: options.encoding)
            }
        }
        chunksEmbedded += texts.count
        pending.removeAll(keepingCapacity: true)
        pendingChunks = 0
        progress?.update(chunks: chunksEmbedded)
    }
}

/// Free text: `--query TEXT` and `--text` (one text per line).
public enum TextEmbedding {
    /// Writes {"type":"embedding","text","model","precision" (when not fp32),"dim","embedding"} for each text.
    public static func write(texts: [String], provider: any EmbeddingProvider, encoding: EmbeddingEncoding,
                             out: OutputStream = .standardOutput) throws {
        guard !texts.isEmpty else { return }
        let vectors = try provider.embed(texts)
        guard vectors.count == texts.count else {
            throw IBError("\(provider.modelID): asked for \(texts.count) embeddings, got \(vectors.count)", code: .provider)
        }
        for (text, vector) in zip(texts, vectors) {
            out.writeLine { line in
                line.append(contentsOf: "{\"type\":\"embedding\",\"text\":".utf8)
                JSON.writeString(text, to: &line)
                line.append(contentsOf: ",\"model\":".utf8)
                JSON.writeString(provider.modelID, to: &line)
                if let precision = provider.precision {
                    line.append(contentsOf: ",\"precision\":".utf8)
                    JSON.writeString(precision, to: &line)
                }
                line.append(contentsOf: ",\"dim\":\(vector.count),\"embedding\":".utf8)
                encoding.write(vector, to: &line)
                line.append(UInt8(ascii: "}"))
            }
        }
    }

    /// Reads one text per line from the files ("-" or none for stdin), embedding a buffer at a time.
    public static func run(paths: [String], provider: any EmbeddingProvider, encoding: EmbeddingEncoding,
                           bufferSize: Int = 256, out: OutputStream = .standardOutput) throws {
        var texts: [String] = []
        for path in paths.isEmpty ? ["-"] : paths {
            let reader = try LineReader(path: path)
            try reader.forEachLine { line in
                guard let text = String(validating: line, as: UTF8.self) else {
                    throw IBError("\(reader.name):\(reader.lineNumber): not valid UTF-8")
                }
                texts.append(text)
                if texts.count >= bufferSize {
                    try write(texts: texts, provider: provider, encoding: encoding, out: out)
                    texts.removeAll(keepingCapacity: true)
                }
            }
        }
        try write(texts: texts, provider: provider, encoding: encoding, out: out)
    }
}

/// The progress line: chunks, chunks/s and an ETA: from the bytes read of a
/// file, else (a pipe: ib-parse | ib-chunk | ib-embed) from the pages the
/// chunks have reached of the book's page count. Under `make -j` (MAKEFLAGS
/// names a job count or the jobserver) several ib-embeds share one terminal:
/// each prints whole lines, named by its book, every few seconds, instead of
/// rewriting one line that the others would overwrite.
final class Progress {
    private let started = Timestamp.monotonic()
    private var lastPrint = 0.0
    private var totalBytes = 0
    private var doneBytes = 0
    private var fileBytes = 0
    private var bookTitle: String? = nil
    private var bookStarted = 0.0
    private var bookPages = 0
    private var pageReached = 0
    let wholeLines: Bool

    init(environment makeflags: String? = Config.environment("MAKEFLAGS")) {
        wholeLines = Progress.sharesTerminal(makeflags: makeflags)
    }

    /// GNU make passes -jN (and --jobserver-auth) in MAKEFLAGS to the recipes it runs in parallel.
    static func sharesTerminal(makeflags: String?) -> Bool {
        guard let flags = makeflags else { return false }
        return flags.contains("jobserver") || flags.split(separator: " ").contains { $0.hasPrefix("-j") && $0 != "-j1" }
    }

    func startBook(title: String, pages: Int) {
        bookTitle = title; bookPages = pages; pageReached = 0
        bookStarted = Timestamp.monotonic()
    }

    func reached(page: Int) { pageReached = max(pageReached, page) }

    /// Seconds left: by bytes when the input's size is known, else by the book's pages.
    func eta(now: Double) -> Double? {
        let elapsed = max(now - started, 1e-6)
        if totalBytes > 0, doneBytes > 0, doneBytes < totalBytes {
            return elapsed * Double(totalBytes - doneBytes) / Double(doneBytes)
        }
        if bookPages > 0, pageReached > 0, pageReached < bookPages {
            return max(now - bookStarted, 1e-6) * Double(bookPages - pageReached) / Double(pageReached)
        }
        return nil
    }

    func startFile(path: String) {
        var info = stat()
        let ok = path == "-" ? fstat(0, &info) == 0 : stat(path, &info) == 0
        fileBytes = ok && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
        totalBytes = doneBytes + fileBytes
    }

    func consumed(bytes: Int) { doneBytes += bytes }

    func update(chunks: Int) {
        let now = Timestamp.monotonic()
        guard now - lastPrint >= (wholeLines ? 5 : 0.5) else { return }
        lastPrint = now
        let rate = Double(chunks) / max(now - started, 1e-6)
        var line = prefix + "\(counted(chunks, "chunk")), \(format(rate)) chunks/s"
        if let eta = eta(now: now) { line += ", ETA \(duration(eta))" }
        if wholeLines { line += "\n" }
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// "\r\e[Kib-embed: " rewrites the line; under make -j, "ib-embed: 'TITLE': " starts a new one.
    private var prefix: String {
        wholeLines ? "ib-embed: " + (bookTitle.map { "'\($0)': " } ?? "") : "\r\u{1B}[Kib-embed: "
    }

    func finish(chunks: Int) {
        let elapsed = max(Timestamp.monotonic() - started, 1e-6)
        printError(prefix + "\(counted(chunks, "chunk")) in \(duration(elapsed)), \(format(Double(chunks) / elapsed)) chunks/s")
    }

    private func format(_ x: Double) -> String { String(Int(x * 10) / 10) + "." + String(Int(x * 10) % 10) }

    private func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600)h\(s % 3600 / 60)m" : s >= 60 ? "\(s / 60)m\(s % 60)s" : "\(s)s"
    }
}
