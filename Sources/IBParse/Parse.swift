// The driver: read an input (a file, stdin or a URL), detect its format,
// hand it to that format's parser, and turn the result into one book record
// and its page records. A book's records are built in full before any is
// written, so a book that fails writes nothing.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of one input and what is known about where they came from.
public struct InputSource: Sendable {
    /// How the input is named in messages (the path or URL as given).
    public var name: String
    /// The book record's `source`.
    public var source: String
    public var bytes: InputBytes
    /// The file name's extension (without the dot), lower-case.
    public var extensionHint: String?
    /// The title to use when the document has none (the file name or the URL's last path segment).
    public var fallbackTitle: String
    /// The HTTP Content-Type, for URLs.
    public var contentType: String?

    public init(name: String, source: String, bytes: InputBytes, extensionHint: String?, fallbackTitle: String, contentType: String? = nil) {
        self.name = name; self.source = source; self.bytes = bytes; self.extensionHint = extensionHint
        self.fallbackTitle = fallbackTitle; self.contentType = contentType
    }

    public static let maxFileBytes = 2 << 30
    /// Text, Markdown and HTML are held in memory whole, with their pages (~3x the
    /// file): larger than this they are refused before being read. PDF and ZIP
    /// containers (EPUB, DOCX) have their own checks.
    static let maxTextBytes = 64 << 20

    /// Whether `head` starts a PDF or a ZIP container.
    static func isContainer(_ head: some Collection<UInt8>) -> Bool {
        head.starts(with: Array("%PDF-".utf8)) || head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || ImageParser.isImage(head)
            || AudioFormat.detect(head) != nil
    }

    /// Reads a file (up to 64 MiB) or maps it (a larger PDF or ZIP container).
    /// Directories, missing files and unreadable files are errors.
    public static func file(_ path: String) throws(ParseError) -> InputSource {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw ParseError(String(cString: strerror(errno)).lowercased()) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ParseError(String(cString: strerror(errno)).lowercased()) }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw ParseError("is a directory") }
        if Int(st.st_size) > maxFileBytes { throw ParseError("file is too large (\(st.st_size) bytes)") }
        if Int(st.st_size) > maxTextBytes {
            var head = [UInt8](repeating: 0, count: 12)
            let n = pread(fd, &head, 12, 0)
            if n < 5 || !isContainer(head.prefix(max(n, 0))) {
                throw ParseError("file is too large for a text, Markdown or HTML document (\(st.st_size) bytes; limit \(maxTextBytes >> 20) MiB)")
            }
        }
        var resolved = path
        if let real = realpath(path, nil) { resolved = String(cString: real); free(real) }
        // A device or FIFO has no size to check first: it is read as a stream (/dev/zero ends at 64 MiB).
        let bytes = Int(st.st_size) > maxTextBytes && (st.st_mode & S_IFMT) == S_IFREG
            ? try InputBytes(mapping: fd, size: Int(st.st_size), name: path)
            : try stream(fd, expected: Int(st.st_size))
        let base = path.split(separator: "/").last.map(String.init) ?? path
        var stem = base, ext: String? = nil
        if let dot = base.lastIndex(of: "."), dot != base.startIndex {
            stem = String(base[..<dot]); ext = String(base[base.index(after: dot)...]).lowercased()
        }
        return InputSource(name: path, source: resolved, bytes: bytes, extensionHint: ext,
                           fallbackTitle: stem.isEmpty ? base : stem)
    }

    /// Reads standard input (see Spool: only a PDF or ZIP may be over 64 MiB).
    public static func standardInput() throws(ParseError) -> InputSource {
        InputSource(name: "-", source: "-", bytes: try stream(0), extensionHint: nil, fallbackTitle: "stdin")
    }

    /// Reads `fd` to its end: into memory up to 64 MiB, spooled to a file and mapped past that.
    static func stream(_ fd: Int32, expected: Int = 0) throws(ParseError) -> InputBytes {
        let spool = Spool(expected: expected)
        try spool.read(from: fd)
        return try spool.finish()
    }
}

public enum Parser {
    /// Parses one input into its book record and page records.
    public static func parse(_ input: InputSource, options: ParseOptions) throws(ParseError) -> (BookRecord, [PageRecord]) {
        let format: BookFormat
        if let forced = options.format {
            if input.bytes.isEmpty { throw ParseError("empty file (0 bytes)") }
            format = forced
        } else {
            format = try FormatDetection.detect(input.bytes, extensionHint: input.extensionHint, contentType: input.contentType)
        }
        if [.text, .markdown, .html].contains(format) && input.bytes.count > InputSource.maxTextBytes {
            throw ParseError("input is too large for a text, Markdown or HTML document (\(input.bytes.count) bytes; limit \(InputSource.maxTextBytes >> 20) MiB)")
        }
        var book: ParsedBook
        switch format {
        case .text: book = try TextParser.parse(input.bytes.array, options: options)
        case .markdown: book = try MarkdownParser.parse(input.bytes.array, options: options)
        case .html: book = try HTMLParser.parse(input.bytes.array, options: options)
        case .pdf: book = try PDFParser.parse(input.bytes, options: options)
        case .epub: book = try EPUBParser.parse(input.bytes, options: options)
        case .docx: book = try DOCXParser.parse(input.bytes, options: options)
        case .image: book = try ImageParser.parse(input.bytes, options: options)
        case .audio:
            // Audio from stdin or a URL: ffmpeg reads it from an unlinked temporary file.
            let spooled = try TemporaryFile(input.bytes)
            return try parseAudio(path: spooled.path, input: input, format: AudioFormat.detect(Array(input.bytes.prefix(16))),
                                  options: options, sha: input.bytes.sha256Hex())
        }
        return records(book, format: format, input: input, sha: input.bytes.sha256Hex(), options: options)
    }

    /// Whether the file at `path` is audio by its first bytes (so it is decoded from disk, never read whole).
    public static func audioFormat(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 16)
        let n = pread(fd, &head, 16, 0)
        return n > 0 && AudioFormat.detect(head.prefix(n)) != nil
    }

    /// Parses an audio file in place: probed, decoded and hashed as streams.
    public static func parseAudioFile(_ path: String, options: ParseOptions) throws(ParseError) -> (BookRecord, [PageRecord]) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw ParseError(String(cString: strerror(errno)).lowercased()) }
        var head = [UInt8](repeating: 0, count: 16)
        let n = pread(fd, &head, 16, 0)
        close(fd)
        if n == 0 { throw ParseError("empty file (0 bytes)") }
        var resolved = path
        if let real = realpath(path, nil) { resolved = String(cString: real); free(real) }
        let base = path.split(separator: "/").last.map(String.init) ?? path
        var stem = base
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { stem = String(base[..<dot]) }
        let input = InputSource(name: path, source: resolved, bytes: InputBytes([]), extensionHint: nil,
                                fallbackTitle: stem.isEmpty ? base : stem)
        return try parseAudio(path: path, input: input, format: AudioFormat.detect(head.prefix(max(n, 0))), options: options,
                              sha: try AudioBookParser.sha256(path: path))
    }

    static func parseAudio(path: String, input: InputSource, format: AudioFormat?, options: ParseOptions,
                           sha: String) throws(ParseError) -> (BookRecord, [PageRecord]) {
        let (book, duration) = try AudioBookParser.parse(path: path, name: input.name, format: format, options: options)
        var (record, pages) = records(book, format: .audio, input: input, sha: sha, options: options)
        record.extra["duration"] = .number(milliseconds(duration))
        return (record, pages)
    }

    /// A parsed book as its book record and page records.
    static func records(_ book: ParsedBook, format: BookFormat, input: InputSource, sha: String,
                        options: ParseOptions) -> (BookRecord, [PageRecord]) {
        let id = BookRecord.id(forSHA256: sha)
        var title = options.title ?? (format == .text ? nil : book.title?.collapsedWhitespace)
        if title?.isEmpty ?? true { title = input.fallbackTitle }
        if title?.isEmpty ?? true { title = "untitled" }
        for warning in book.warnings { printError("ib-parse: \(input.name): \(warning)") }
        let record = BookRecord(id: id, title: title!, authors: book.authors.map(\.collapsedWhitespace).filter { !$0.isEmpty },
                                language: book.language, format: format.rawValue, source: input.source, sha256: sha,
                                pageCount: book.pages.count)
        var pages: [PageRecord] = []
        pages.reserveCapacity(book.pages.count)
        for (i, page) in book.pages.enumerated() {
            var record = PageRecord(bookID: id, page: i + 1, label: page.label, sectionIndex: page.sectionIndex,
                                    sectionTitle: page.sectionTitle, text: page.text)
            if let confidence = page.ocrConfidence {
                record.extra["ocr"] = .bool(true)
                record.extra["ocr_confidence"] = JSON(confidence)
            }
            if !page.structure.isEmpty { record.extra["structure"] = .array(page.structure.map(\.json)) }
            if let start = page.startTime { record.extra["start_time"] = .number(milliseconds(start)) }
            if let end = page.endTime { record.extra["end_time"] = .number(milliseconds(end)) }
            pages.append(record)
        }
        return (record, pages)
    }

    /// Seconds rounded to the millisecond (times in records).
    static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
