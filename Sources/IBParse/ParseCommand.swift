// ib-parse's command: the options, then each input read, parsed and written as
// a book record and its page records (a failed input is one line on stderr and
// the others go on). See man/man1/ib-parse.1.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

public enum ParseCommand {
    public static let usage = """
Usage: ib-parse [OPTIONS] FILE|URL|- ...

Write one `book` record, then its `page` records, for each input, as JSON Lines
on stdout (see ib(7)). Inputs are processed in order; an input that fails gets
one line on stderr ("ib-parse: INPUT: message") and none of its records are
written; the other inputs go on. `-` reads stdin.

Formats, detected from the content (magic bytes, the ZIP's mimetype or
[Content_Types].xml, HTML markup), not only from the extension:
  text      UTF-8 (BOM accepted), UTF-16 LE/BE with a BOM; CRLF and CR become LF;
            other bytes are an error naming the byte offset (see --encoding);
            its structure: a heading paragraph ("CHAPTER I", "ACT III", "SCENE II.
            A room in the castle.", "BOOK ONE: 1805", a bare "XIV" in its count,
            "JANUARY 1659-1660"), a title its contents list names (Walden's
            "ECONOMY"), a collection's titles on lines of their own ("A
            Scandal in Bohemia": three or more, long apart, the first at the
            start, each holding no heading but its own count), a journal's or
            letter's header ("DR. SEWARD'S
            DIARY.", "Letter, Mina Murray to Lucy Westenra."), a diary's dated
            paragraphs ("_3 May. Bistritz._--Left Munich"); lines counting a part
            the Chinese way (第一卷, 第十二章 出海), a diary's days (五月四日 晴)
            and years (1937年); the contents list such texts open with is skipped
            (a unit "CONTENTS" where it runs into the first chapter), and
            Project Gutenberg's end line starts a unit, the licence
  markdown  cmark-gfm to plain text; front matter title/authors (authors: [A, B] is two); headings start sections
  html      all visible text (no script/style/template/noscript/head); <title>,
            <meta name="author">; headings start sections
  pdf       one page per physical page, printed page labels, line-end hyphenation
            joined, document info, outline sections; password_protected error
  epub      EPUB 2 and 3 in spine order; print pages from the nav page-list or NCX
            pageList; section = spine index + TOC title; drm_protected error
            (font obfuscation alone is not DRM); its structure: the whole TOC,
            headings it leaves out, diaries, entries, letters and quoted
            documents with a header (a letter ends where it ends: the text after
            it is its chapter's again)
  docx      paragraphs, tables (cells " | ", a row per line), footnotes; headings
            by style name or outline level start sections; page breaks
  image     PNG, JPEG, TIFF (every page), WebP: one page per image by OCR (tesseract),
            paragraphs as blank lines, orientation and script detected
  audio     WAV, MP3, M4A/M4B, Ogg (Opus, Vorbis), FLAC: decoded by ffmpeg (spawned,
            16 kHz mono, read in blocks), transcribed by Whisper (--model); pages of
            about a minute of speech cut at a pause, each with start_time and end_time
            (seconds) and a label like 1:02:30 (m:ss under an hour); chapters (M4B
            chapters, ID3 CHAP) are sections; title and author from the tags; the
            book record has "duration". A progress line on a terminal.
  URL       http(s) only: timeout, size cap, at most 5 redirects; format from
            Content-Type; title from the document, else the last path segment

Pages: a format's own pages where it has them (PDF pages, EPUB print pages, DOCX
page breaks); otherwise estimated pages of about 2,000 characters, cut at a
paragraph or line break near the target, else at a space, never inside a word;
the white space at a cut is dropped. A section (chapter: EPUB spine document,
heading, PDF outline entry) starts a new page; each page carries section_index
and section_title (null for plain text).

OCR: images, and PDF pages whose text layer is (nearly) empty and that are mostly
image (scans), are recognised with tesseract (loaded on first use); each such page
record has "ocr": true and "ocr_confidence" (mean word confidence, 0-100).

Options:
  -f, --format FMT       force the format: text, markdown, html, pdf, epub, docx, image, audio
      --title TITLE      the book's title (default: the document's, else the file name)
      --encoding ENC     plain-text encoding: utf-8, utf-16le, utf-16be, latin1, windows-1252
      --page-chars N     target characters per estimated page (default 2000;
                         100 to 1000000)
      --timeout SECONDS  URL fetch timeout (default 30; 0.001 to 86400)
      --max-bytes N      URL download size cap (default 268435456; 1 to 2147483648)
      --ocr MODE         PDF pages to OCR: auto (default: scanned pages, with (nearly)
                         no text and mostly image), always, never
      --lang LANGS       OCR languages, tesseract names joined with +: eng, chi_sim,
                         eng+chi_sim (default auto: the book's language, else English,
                         Chinese when the script is Han)
      --model DIR        the Whisper model folder for audio (default $IB_WHISPER_DIR,
                         else $XDG_DATA_HOME/ib/models/whisper-tiny.en; scripts/fetch-model whisper)
  -h, --help             show this help
      --version          show the version, the commit and the model folder

Environment: IB_PARSE_JOBS  worker processes for PDF pages, 1 to 16 (default: one
                            per CPU, at most 8, for 64 pages or more, and for
                            scanned pages to OCR; 1: in-process)
             TMPDIR         where stdin, a device or a download over 64 MiB (a PDF
                            or ZIP) is spooled, unlinked (default /tmp); audio from
                            stdin or a URL is written there for ffmpeg, then removed
             IB_WHISPER_DIR the Whisper model folder (see --model)

On a terminal: JSON Lines (book and page records)
In a pipe: JSON Lines
Output options: none (a record stream; --format names the input's format)
Exit status: 0 every input parsed; 1 an input failed (unreadable, empty, corrupt,
unsafe, drm_protected, password_protected, bad encoding; audio: ffmpeg missing,
not decodable, truncated, no audio stream, over 8 channels, no speech, the Whisper
model missing); 2 usage error;
4 every failed input was a URL that could not be fetched.
"""

    /// `speech` makes the recogniser for audio inputs (the tool passes IBWhisper's); nil refuses audio.
    public static func run(_ arguments: [String], speech: SpeechRecognizerFactory? = nil) throws {
        let args = try Arguments(arguments, options: [
            .init("format", short: "f", takesValue: true), .init("title", takesValue: true),
            .init("encoding", takesValue: true), .init("page-chars", takesValue: true),
            .init("timeout", takesValue: true), .init("max-bytes", takesValue: true),
            .init("ocr", takesValue: true), .init("lang", takesValue: true), .init("model", takesValue: true),
            .init("help", short: "h"), .init("version"),
        ])
        if args.has("help") { print(usage); return }
        if args.has("version") { print(Installation.versionText(tool: "ib-parse"), terminator: ""); return }
        var options = ParseOptions()
        if let name = args.value("format") {
            guard let format = BookFormat(name: name) else {
                throw IBError.usage("--format must be one of text, markdown, html, pdf, epub, docx, image, audio, not '\(name)'")
            }
            options.format = format
        }
        if let name = args.value("encoding") {
            guard let encoding = TextEncoding(name: name) else {
                throw IBError.usage("--encoding must be one of utf-8, utf-16le, utf-16be, latin1, windows-1252, not '\(name)'")
            }
            options.encoding = encoding
        }
        options.title = args.value("title")
        if let n = try args.int("page-chars", min: 100, max: 1_000_000) { options.pageCharacters = n }
        if let t = try args.seconds("timeout") { options.timeoutSeconds = t }
        if let n = try args.int("max-bytes", min: 1, max: InputSource.maxFileBytes) { options.maxDownloadBytes = n }
        if let mode = args.value("ocr") {
            guard let m = OCRMode(rawValue: mode) else { throw IBError.usage("--ocr must be one of auto, always, never, not '\(mode)'") }
            options.ocr = m
        }
        if let lang = args.value("lang"), !options.setOCRLanguage(lang) {
            throw IBError.usage("--lang must be auto or installed tesseract languages joined with + (eng, chi_sim, eng+chi_sim), not '\(lang)'")
        }
        options.speech = speech.map(RecognizerCache.init).map { cache in { @Sendable directory in try cache.recognizer(directory) } }
        if let model = args.value("model") {
            if model.isEmpty { throw IBError.usage("--model needs a folder, not ''") }
            options.speechModel = model
        }
        options.pdfWorkers = try Arguments.environmentInt("IB_PARSE_JOBS", min: 1, max: 16)
        guard !args.positionals.isEmpty else { throw IBError.usage("no input: give FILE, URL or -") }
        if args.positionals.filter({ $0 == "-" }).count > 1 { throw IBError.usage("- (stdin) can be given only once") }

        var failed = 0
        var networkFailures = 0
        let out = OutputStream.standardOutput
        for name in args.positionals {
            do {
                let input: InputSource
                if name == "-" {
                    input = try InputSource.standardInput()
                } else if URLFetch.isURL(name) {
                    input = try URLFetch.fetch(name, options: options)
                } else if options.format == nil || options.format == .audio, options.format == .audio || Parser.audioFormat(path: name) {
                    // Audio is decoded and hashed from the file itself, never read whole.
                    let (book, pages) = try Parser.parseAudioFile(name, options: options)
                    out.writeRecord(.book(book))
                    for page in pages { out.writeRecord(.page(page)) }
                    continue
                } else {
                    input = try InputSource.file(name)
                }
                let (book, pages) = try Parser.parse(input, options: options)
                out.writeRecord(.book(book))
                for page in pages { out.writeRecord(.page(page)) }
            } catch {
                failed += 1
                if let e = error as? ParseError, e.kind == "network" { networkFailures += 1 }
                out.flush()
                printError("ib-parse: \(name): \(error)")
            }
        }
        out.flush()
        // Each failed input already has its one line on stderr.
        if failed > 0 { exit(networkFailures == failed ? ExitCode.provider.rawValue : ExitCode.failure.rawValue) }
    }
}
