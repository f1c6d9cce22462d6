// The ib-capture command line: capture lines, status, export, import.
#if canImport(Glibc)
import Glibc
#endif
import IBCore
import IBStore

public enum CaptureTool {
    public static let help = """
        Usage: ib-capture [OPTIONS] LINE...          capture one line (the words are joined)
               ib-capture [OPTIONS] < FILE           capture one line per stdin line
               ib-capture [OPTIONS] --audio FILE     capture one spoken line (Whisper)
               ib-capture status [--json] [--format text|json|waybar] [--private]
               ib-capture status --format svg|png [--private] [--size WxH] [-o FILE]
               ib-capture suggest [--json | --format text|json] [--private]
               ib-capture card QUOTE [--style S] [--format svg|png] [--size WxH] [-o FILE]
               ib-capture chart streak|pages|plan|progress [--format svg|png] [--size WxH] [-o FILE]
               ib-capture export [--format markdown|json|csv] [BOOK...]
               ib-capture export --format cards DIR [--style S] [--size WxH] [--svg]
               ib-capture import FILE.csv            (Readwise CSV)

        Turns a natural-language line (English or Simplified Chinese) into a record,
        stores it in the library and prints it: a line of text on a terminal, the
        record as JSON in a pipe (--json or --format text|json says which).

          Quote p. 47: "..."      "..." (p. 47)      "..." - Meditations, p. 12
          Note: ...               Thought on chapter 3: ...      What does ... mean?
          Reading Sapiens by Harari     Started Meditations     Want to read The Odyssey
          read 20 pages     on page 120 of Meditations     page 88     finished Sapiens
          Plan: finish Meditations and Sapiens by 2027-01-31       #tags anywhere
          listened to 2:15:00 of Persuasion      at 1:02:30 in Persuasion  (audiobooks)
          摘录 第47页：「…」   笔记：…   正在读《人类简史》   读了20页   读到第120页
          读完了《人类简史》   计划：2027年1月31日前读完《人类简史》

        Options:
          --db PATH        the library (default: $IB_DB, then $XDG_DATA_HOME/ib/library.db)
                           (status and export never create it; not a regular file: exit 2)
          --dry-run        parse only; print the parse, store nothing (no library needed;
                           with one, the record names the book: book_id, book_title)
          --json           JSON (the default when stdout is not a terminal); also
                           errors with candidates (ambiguous book) as JSON on stdout
          --create         add a book that is not in the library instead of failing
          --ask            forward a question to ib-ask (exec ib-ask --book ID QUESTION)
          --image FILE     a quote from a photo of the page (OCR by ib-parse): the
                           whole passage, or with --text the span that best matches;
                           the page from the photo's running header or footer unless
                           the line gives one; the line may name the book and tags.
                           A cover or shelf (few words): the library book it shows
                           gets a book event; several are listed (name one); an
                           unknown one is added with --create
          --text WORDS     with --image: words from the passage to quote
          --audio FILE     one spoken line (WAV, MP3, M4A, Ogg, FLAC; at most 120 s),
                           decoded by ffmpeg and transcribed by Whisper; what was
                           heard is shown on stderr, then read as said: "quote page
                           forty seven ... end quote", "note for Moby Dick ...",
                           "question ...", "I'm on page two hundred and twelve",
                           "listened to two hours fifteen minutes of Persuasion",
                           "hashtag stoicism". Whisper is told the library's titles
                           first (its initial prompt). A book is named after
                           for/from/of with its title as the library has it, or one
                           that clearly sounds like it (two alike: exit 3). An unsure
                           transcript (average log probability below -1.0, or
                           no-speech probability above 0.6) stores nothing (exit 1)
                           unless --yes
          --model DIR      with --audio: the Whisper folder (default: $IB_WHISPER_DIR,
                           then $XDG_DATA_HOME/ib/models/whisper-tiny.en)
          --spoken         read LINE (or each stdin line) as said aloud, the way
                           --audio reads its transcript
          --yes            finish the current book on a line that does not name it
                           ("done"; else refused, exit 1); with --image: save even a
                           low-confidence read (else the candidates are listed,
                           nothing saved, exit 1); with --audio: save an unsure
                           transcript
          --today DATE     take DATE (YYYY-MM-DD) as today, for relative dates (also $IB_TODAY)
          --now TIME       take TIME (ISO-8601) as now, for timestamps and suggestions
                           (testing; also $IB_NOW)
          --format F       a captured line, suggest: text or json; status: text, json,
                           waybar, svg, png; export: markdown, json, csv, cards
                           (default: markdown on a terminal, said on stderr; json in
                           a pipe); card, chart: svg, png (default: -o's extension,
                           else png). text|json default: text on a terminal, json
                           in a pipe
        export BOOK...: only those books' quotes and notes (BOOK as in every tool).
          --private        status, suggest: hide quote and note text
          --style S        card, export --format cards: minimal, serif (default), modern,
                           literary
          --size WxH       card (default 1080x1080), chart, status picture: pixels, 64 to 8192
          -o, --output FILE  card, chart, status picture: the file (default quote-ID-STYLE.png,
                           chart-KIND.png, status.png); written whole or not at all
          --svg            export --format cards: SVG files instead of PNG
          -h, --help       this help;  --version  the version, commit, model

        Pages start at 1: a page below 1 (p. -3, p. 0) or past the book's page
        count (when known) is an error naming it; nothing is written. A name that
        is an author's (Quote p. 9 of Dostoevsky: "...") picks their one book; if
        they have several, the current book wins when it is one of them (stderr
        says so), otherwise the line is ambiguous (exit 3).

        An ambiguous line waits in the library for an hour; a next line that is only
        a candidate's number, title or author settles the newest line it fits,
        once. A line holding a NUL byte is refused (exit 1), never stored cut short.

        On a terminal, status and export show control characters in captured text
        as escapes (\\x1B); piped, and as JSON, the text is exact.

        card QUOTE (a quote's id, or today: the quote of the day) draws a quote card:
        balanced lines, the opening mark hung in the margin, the largest size that
        fits, then title, author and page (the printed label when the book has one).
        SVG is written as text; PNG is drawn by cairo and pango, loaded only then.
        suggest: continue the book usually read at this hour, a plan behind (with
        the pages a day it needs), a book untouched for weeks, the quote of the
        day; each says why (also in status --format json and the waybar tooltip).

        On a terminal: a line per capture or picture written; status and suggest as text; export as Markdown
        In a pipe: JSON Lines (a record per capture or picture; status: one object; export: a line per book)
        Output options: --json, --format text|json (status: also waybar, svg, png; export: markdown, json, csv, cards)
        Exit codes: 0 saved, 1 error (unknown book, not understood, no such page;
        --audio: bad or missing audio, no speech, an unsure transcript, no model),
        2 usage, 3 ambiguous book or author (nothing written; candidates listed),
        or a line that reads two ways (a mixed-language line, or a spoken line
        whose book name could end at two places: both readings shown).
        Messages follow LC_ALL / LC_MESSAGES / LANG (zh* for Chinese).
        """

    public static let helpChinese = """
        用法：ib-capture [选项] 一行文字...          记录一行（多个词合成一行）
              ib-capture [选项] < 文件               每行记录一条
              ib-capture [选项] --audio 文件         记录一句语音（Whisper，英语）
              ib-capture status [--json] [--format text|json|waybar] [--private]
              ib-capture status --format svg|png [--private] [--size 宽x高] [-o 文件]
              ib-capture suggest [--json | --format text|json] [--private]
              ib-capture card 摘录 [--style 样式] [--format svg|png] [--size 宽x高] [-o 文件]
              ib-capture chart streak|pages|plan|progress [--format svg|png] [--size 宽x高] [-o 文件]
              ib-capture export [--format markdown|json|csv] [书...]
              ib-capture export --format cards 目录 [--style 样式] [--size 宽x高] [--svg]
              ib-capture import 文件.csv             （Readwise CSV）

        把一行自然语言（中文或英文）解析成一条记录，存入书库并输出：终端上为一行文字，
        管道中为 JSON 记录（用 --json 或 --format text|json 指定）。

          摘录 第47页：「…」   「…」——《沉思录》第12页   笔记：…   关于第3章的想法：…
          问题：…？   正在读《人类简史》   想读《奥德赛》   读了20页   读到第120页
          读完了《人类简史》   计划：2027年1月31日前读完《人类简史》   #标签
          Quote p. 47: "..."   Note: ...   Reading Sapiens by Harari   read 20 pages
          on page 120 of Meditations   finished Sapiens   Plan: finish X by 2027-01-31

        选项：
          --db 路径        书库（默认：$IB_DB，然后 $XDG_DATA_HOME/ib/library.db）
                           （status 和 export 从不创建书库；不是普通文件：退出码 2）
          --dry-run        只解析并输出解析结果，不保存（不需要书库；有书库时，记录中
                           写明会用哪本书：book_id、book_title）
          --json           以 JSON 输出（标准输出不是终端时的默认）；书名有歧义时，
                           把候选以 JSON 输出到标准输出
          --create         书库中没有这本书时直接添加，而不是报错
          --ask            把问题转给 ib-ask（exec ib-ask --book ID 问题）
          --image 文件     从书页照片中摘录（由 ib-parse 识别文字）：整段文字，或配合
                           --text 取最匹配的一段；页码取自照片的页眉或页脚（这一行
                           没有写页码时）；这一行可以写书名和标签。封面或书架（文字
                           很少）：照片上书库中的书记为一条书籍记录；有多本时列出（请
                           写明是哪一本）；书库中没有的书加上 --create 添加
          --text 词语      与 --image 一起使用：摘录段落中的词语
          --audio 文件     一句语音（WAV、MP3、M4A、Ogg、FLAC；最长 120 秒），由 ffmpeg
                           解码、Whisper 识别；听到的内容显示在标准错误中，再按口语
                           理解："quote page forty seven ... end quote"、"note for
                           Moby Dick ..."、"I'm on page two hundred and twelve"、
                           "listened to two hours fifteen minutes of Persuasion"。
                           识别前先把书库中的书名告诉 Whisper（初始提示）；for/from/of
                           后面的书名与书库中的书名读音明显相同时也算（两本相近：退出码 3）。
                           识别不可靠（平均对数概率低于 -1.0，或无语音概率高于 0.6）
                           时不保存（退出码 1），除非加上 --yes
          --model 目录     与 --audio 一起使用：Whisper 模型目录（默认：$IB_WHISPER_DIR，
                           然后 $XDG_DATA_HOME/ib/models/whisper-tiny.en）
          --spoken         把这一行（或标准输入的每一行）当作口语来理解，与 --audio 相同
          --yes            没有写书名的“读完了”（done）也读完当前在读的书（否则拒绝，
                           退出码 1）；与 --image 一起使用：置信度低时也保存（否则
                           列出候选、不保存，退出码 1）；与 --audio 一起使用：识别不可靠
                           时也保存
          --today 日期     以该日期（YYYY-MM-DD）为今天，用于相对日期（也可用 $IB_TODAY）
          --now 时间       以该时间（ISO-8601）为现在，用于时间戳和建议（用于测试；也可用 $IB_NOW）
          --format F       记录一行、suggest：text 或 json；status：text、json、waybar、svg、png；
                           export：markdown、json、csv、cards（默认：终端上 markdown，并在标准
                           错误中说明；管道中 json）；card、chart：svg、png（默认按 -o 的扩展名，
                           否则 png）。text|json 默认：终端上 text，管道中 json
        export 书...：只导出这些书的摘录和笔记。
          --private        status、suggest：隐藏摘录和笔记的文字
          --style 样式     card、export --format cards：minimal、serif（默认）、modern、literary
          --size 宽x高     card（默认 1080x1080）、chart、状态图片：像素，64 到 8192
          -o, --output 文件  card、chart、状态图片：输出文件（默认 quote-编号-样式.png、
                           chart-种类.png、status.png）；要么完整写入，要么不写
          --svg            export --format cards：输出 SVG 而不是 PNG
          -h, --help       本帮助；  --version  版本、提交与模型

        页码从 1 开始：小于 1 的页码（第-3页、p. 0）或超过书的总页数（已知时）
        都会报错并指出该页码，不写入任何内容。只写作者名（摘录 第9页 Dostoevsky：…）
        时使用该作者唯一的书；若有多本，当前在读的书是其中之一时使用它（并在标准
        错误中说明），否则视为有歧义（退出码 3）。

        有歧义的一行在书库中保留一小时；下一行只写候选的序号、书名或作者时，用于
        它所符合的最新一行，且只用一次。含有 NUL 字节的一行会被拒绝（退出码 1），
        不会被截断保存。

        在终端上，status 和 export 把记录文字中的控制字符显示为转义（\\x1B）；
        通过管道输出或以 JSON 输出时保持原文。

        card 摘录（摘录编号，或 today：今日摘录）生成摘录卡片：均衡断行，开头引号悬挂
        在页边，取放得下的最大字号，下方写书名、作者和页码（书有印刷页码时用印刷页码）。
        SVG 直接写成文本；PNG 由 cairo 和 pango 绘制，只在需要时加载。
        suggest：继续通常在这个时间读的书、落后的计划（及每天需要读的页数）、几周没有
        读的书、今日摘录；每条都说明理由（status --format json 和 waybar 提示中也有）。

        退出码：0 已保存，1 错误（无法理解、书库中没有这本书、页码不存在；--audio：音频
        有误或不存在、没有语音、识别不可靠、没有模型），2 用法错误，
        3 书名或作者有歧义（未写入任何内容，列出候选），或一行有两种理解（中英混写，或
        口语中书名可在两处结束；列出两种理解）。
        消息语言由 LC_ALL / LC_MESSAGES / LANG 决定（zh* 为中文）。
        """

    static var options: [Arguments.Option] { [
        .init("db", takesValue: true), .init("dry-run"), .init("json"), .init("create"), .init("ask"),
        .init("today", takesValue: true), .init("now", takesValue: true), .init("format", takesValue: true),
        .init("private"), .init("help", short: "h"), .init("version"),
        .init("image", takesValue: true), .init("text", takesValue: true), .init("yes"),
        .init("audio", takesValue: true), .init("model", takesValue: true), .init("spoken"),
        .init("style", takesValue: true), .init("size", takesValue: true), .init("output", short: "o", takesValue: true), .init("svg"),
    ] }

    /// `listen` transcribes --audio files (ib-capture's main hands in Whisper); nil: --audio is refused.
    public static func main(_ argv: [String], listen: Listener? = nil) throws {
        let args = try Arguments(argv, options: options)
        if args.has("help") { OutputStream.standardOutput.write((Messages.current == .zh ? helpChinese : help) + "\n"); return }
        if args.has("version") { OutputStream.standardOutput.write(Installation.versionText(tool: "ib-capture")); return }
        let db = try args.path("db")
        var opts = CaptureOptions()
        opts.dryRun = args.has("dry-run")
        opts.json = args.has("json")
        opts.create = args.has("create")
        opts.ask = args.has("ask")
        opts.yes = args.has("yes")
        opts.spoken = args.has("spoken")
        if let t = args.value("now") {
            guard let s = Timestamp.parse(t) else { throw IBError.usage(Messages.text("bad_now", t)) }
            opts.now = s
        } else if let s = try Suggestions.nowFromEnvironment() {
            opts.now = s
        }
        if let t = args.value("today") {
            guard let d = Day(iso: t), t.count == 10 else { throw IBError.usage(Messages.text("bad_today", t)) }
            opts.today = d
        } else if let d = try Day.fromEnvironment() {
            opts.today = d
        }
        let out = OutputStream.standardOutput
        var positionals = args.positionals
        let sub = positionals.first
        let pictureOptions = ["style", "size", "output"].filter { args.value($0) != nil } + (args.has("svg") ? ["svg"] : [])
        if !pictureOptions.isEmpty && !["card", "chart", "status", "export"].contains(sub ?? "") {
            throw IBError.usage("--\(pictureOptions[0]) goes with card, chart, status --format svg|png or export --format cards")
        }
        let subcommands = ["status", "export", "import", "card", "chart", "suggest"]
        if positionals.count == 1, let close = Subcommands.suggestion(sub!, among: subcommands) { throw Subcommands.unknown(sub!, suggestion: close) }
        if subcommands.contains(sub ?? "") {
            positionals.removeFirst()
            let store = try CaptureStore.open(path: db, create: sub == "import")
            let today = opts.today ?? Day(seconds: opts.now)
            switch sub {
            case "card":
                try PictureCommands.card(store, positionals, args, today: today, out)
            case "chart":
                try PictureCommands.chart(store, positionals, args, today: today, out)
            case "suggest":
                if !positionals.isEmpty { throw IBError.usage("suggest takes only --json or --format text|json (and --private)") }
                let json = try OutputFormat.chosen(args) == .json
                let s = try StatusReport.build(store, today: today, privateMode: args.has("private"), now: opts.now)
                PictureCommands.suggest(s, json: json, out)
            case "status":
                // text|json by the one rule (OutputFormat); waybar and pictures only when asked for.
                let asked = try args.choice("format", ["text", "json", "waybar", "svg", "png"])
                let picture = asked.flatMap { ["waybar", "svg", "png"].contains($0) ? $0 : nil }
                let format = try picture ?? OutputFormat.chosen(args).rawValue
                if format != "svg" && format != "png" && !pictureOptions.isEmpty {
                    throw IBError.usage("--\(pictureOptions[0]) goes with status --format svg or png")
                }
                let s = try StatusReport.build(store, today: today, privateMode: args.has("private"), now: opts.now)
                switch format {
                case "json": out.writeJSON(s)
                case "waybar": out.writeJSON(StatusReport.waybar(s))
                case "svg", "png": try PictureCommands.statusPicture(s, format: format, args, out)
                default:
                    // On a terminal, captured text cannot steer it (escape sequences shown, not run).
                    let terminal = Terminal.stdoutIsTerminal
                    let shown = { (s: String) -> String in terminal ? TerminalText.safe(s) : s }
                    for l in StatusReport.lines(s) { out.write(shown(l) + "\n") }
                }
            case "export" where args.value("format") == "cards":
                printError("ib-capture: wrote \(try PictureCommands.exportCards(store, positionals, args)) cards")
            case "export":
                if !pictureOptions.isEmpty { throw IBError.usage("--\(pictureOptions[0]) goes with export --format cards") }
                let format = try exportFormat(args)
                // BOOK...: only those books' quotes and notes (the same resolver as every tool).
                let bookIDs = positionals.isEmpty ? nil : Set(try positionals.map { try store.library.resolveBook($0).id })
                try Exporter.export(store, format: format, books: bookIDs, to: out,
                                    forTerminal: Terminal.stdoutIsTerminal)
            default:
                guard positionals.count == 1 else { throw IBError.usage(Messages.text("import_usage")) }
                let (n, skipped) = try Exporter.importCSV(store, path: positionals[0], now: Timestamp.iso8601(opts.now))
                printError(Messages.text("imported", n, skipped))
            }
            return
        }
        if args.has("private") || !["text", "json", nil].contains(args.value("format")) { throw IBError.usage(Messages.text("format_usage")) }
        opts.text = try OutputFormat.chosen(args) == .text
        if args.value("image") == nil && args.value("text") != nil { throw IBError.usage(Messages.text("image_usage")) }
        if args.value("audio") == nil && args.value("model") != nil { throw IBError.usage(Messages.text("audio_usage")) }
        if let audio = args.value("audio") {
            guard positionals.isEmpty, args.value("image") == nil, !opts.ask else { throw IBError.usage(Messages.text("audio_usage")) }
            guard !audio.isEmpty else { throw IBError.usage(Messages.text("audio_usage")) }
            guard let listen else { throw IBError(Messages.text("audio_unavailable")) }
            let model = try args.path("model")
            // --dry-run reads an existing library to split off book names; it never creates one.
            let store = opts.dryRun ? (FileSystem.exists(Config.databasePath(flag: db)) ? try openStore(db) : nil) : try openStore(db)
            if let store { keepOpen(store) }
            _ = try VoiceCapture.capture(CaptureEngine(options: opts, store: store), path: audio, model: model, listen: listen, out)
            return
        }
        if let image = args.value("image") {
            if opts.ask { throw IBError.usage(Messages.text("ask_usage")) }
            let line = positionals.joined(separator: " ")
            let store = opts.dryRun ? nil : try openStore(db)
            if let store { keepOpen(store) }
            let engine = CaptureEngine(options: opts, store: store)
            _ = try captureImage(engine, image, line: line, words: args.value("text"), yes: args.has("yes"), out)
            return
        }
        // --dry-run reads an existing library to name the book; it never creates one.
        let store = opts.dryRun ? (FileSystem.exists(Config.databasePath(flag: db)) ? try openStore(db) : nil) : try openStore(db)
        if let store { keepOpen(store) }
        let engine = CaptureEngine(options: opts, store: store)
        if !positionals.isEmpty {
            let line = positionals.joined(separator: " ")
            if opts.ask {
                let intent = engine.parser.parse(line).intent
                if intent != .question && intent != .unknown {
                    throw IBError.usage(Messages.text("ask_not_question", Messages.text("kind_" + intent.rawValue)))
                }
            }
            let record = try captureOne(engine, line, out)
            if opts.ask { try forwardToAsk(record, out) }
            return
        }
        if opts.ask { throw IBError.usage(Messages.text("ask_usage")) }
        if Terminal.stdinIsTerminal { throw IBError.usage(Messages.text("no_line")) }
        // One capture per stdin line; carry on after a bad line, exit with the worst code.
        var worst: ExitCode = .ok
        var failed = 0, total = 0
        let reader = try LineReader(path: "-")
        try reader.forEachLine { bytes in
            let line = String(decoding: bytes, as: UTF8.self)
            if TextClasses.trim(line).isEmpty { return }
            total += 1
            do {
                _ = try captureOne(engine, line, out)
            } catch let e as IBError {
                failed += 1
                out.flush()
                printError("ib-capture: " + e.message)
                if e.code == .ambiguous || worst == .ok { worst = e.code }
            }
        }
        if failed > 0 { throw IBError(Messages.text("lines_failed", failed, total), code: worst) }
    }

    /// export's format: --format, else --json, else markdown on a terminal (said
    /// on stderr) and JSON Lines in a pipe, as every tool chooses (OutputFormat).
    static func exportFormat(_ args: Arguments) throws -> String {
        if let format = args.value("format") {
            guard ["markdown", "md", "json", "csv"].contains(format) else { throw IBError.usage(Messages.text("export_format")) }
            return format == "md" ? "markdown" : format
        }
        if args.has("json") || OutputFormat.defaultFormat() == .json { return "json" }
        printError("ib-capture: " + Messages.text("export_default"))
        return "markdown"
    }

    /// A capture leaves the library open when the process exits. Closing the last
    /// connection checkpoints the WAL with four fsyncs, which cost more than the whole
    /// capture; the next opener reads the short WAL back instead (SQLite's normal crash
    /// path, just as safe). Once the WAL passes `walLimit` it is checkpointed here, so
    /// that reading it back stays cheap.
    nonisolated(unsafe) static var retained: CaptureStore? = nil
    static let walLimit = 4 << 20

    static func keepOpen(_ store: CaptureStore) {
        retained = store
        atexit {
            guard let store = CaptureTool.retained else { return }
            var info = stat()
            if stat(store.library.path + "-wal", &info) == 0, Int(info.st_size) > CaptureTool.walLimit {
                try? store.library.truncateWAL()
            }
        }
    }

    static func openStore(_ path: String?) throws -> CaptureStore {
        try CaptureStore.open(path: path)
    }

    /// --image: the quote read from a photo (see ImageCapture), with the book, page and tags the
    /// line names (the page printed on the photo when the line gives none).
    static func captureImage(_ engine: CaptureEngine, _ path: String, line: String, words: String?, yes: Bool,
                             _ out: OutputStream) throws -> JSON {
        if let words, ImageCapture.tokens(words).count > ImageCapture.maxQueryWords {
            throw IBError.usage(Messages.text("image_text_long", ImageCapture.maxQueryWords))
        }
        var c = Capture(intent: .quote)
        let parts = ImageCapture.lineParts(line)
        c.book = parts.book; c.page = parts.page; c.badPage = parts.badPage; c.tags = parts.tags
        let reading = try ImageCapture.read(path)
        if words == nil && parts.page == nil && ImageCapture.looksLikeCover(reading.text) {
            return try captureCover(engine, path, reading: reading, line: line, yes: yes, out)
        }
        let (printed, body) = ImageCapture.pageNumber(reading.text)
        var problems: [String] = []
        if reading.confidence < ImageCapture.minConfidence { problems.append(Messages.text("image_low_confidence", reading.confidence)) }
        var candidates: [String]
        if let words, !TextClasses.trim(words).isEmpty {
            let spans = ImageCapture.bestSpans(body, query: words, count: 3)
            guard let best = spans.first else { throw IBError(Messages.text("image_no_match", path)) }
            if best.share < ImageCapture.minMatch { problems.append(Messages.text("image_weak_match", Int((best.share * 100).rounded()))) }
            candidates = spans.map(\.text)
        } else {
            candidates = [ImageCapture.passage(body)]
        }
        if !problems.isEmpty && !yes {
            var message = Messages.text("image_low", path, problems.joined(separator: "; "))
            for (i, text) in candidates.enumerated() { message += "\n  \(i + 1). " + (text.count > 300 ? String(text.prefix(300)) + "…" : text) }
            message += "\n" + Messages.text("image_yes_hint")
            if engine.options.json {
                out.writeJSON(.object(JSONObject([("type", "low_confidence"), ("image", .string(path)),
                                                  ("ocr_confidence", JSON(reading.confidence)), ("page", JSON(printed)),
                                                  ("candidates", JSON(candidates))])))
                out.flush()
            }
            throw IBError(message)
        }
        c.text = candidates[0]
        if c.page == nil && c.badPage == nil { c.page = printed }
        if c.text?.unicodeScalars.contains(where: { $0.value >= 0x4E00 && $0.value <= 0x9FFF }) ?? false { c.language = "zh" }
        return try writeCapture(engine, out, adding: [("image", .string(path)), ("ocr_confidence", JSON(reading.confidence)),
                                                      ("page_from_image", .bool(c.page != nil && c.page == printed))]) {
            try engine.capture(c, line: path)
        }
    }

    /// --image on a cover or a shelf: the library book it shows (the one the line names, when
    /// it names one) gets a book event (status from the line: Reading, Want to read; else
    /// "added"); an unknown title is added with --create. Several books, none, or a weak read:
    /// the candidates are listed and nothing is stored (exit 3 for several, 1 otherwise).
    static func captureCover(_ engine: CaptureEngine, _ path: String, reading: ImageCapture.Reading, line: String,
                             yes: Bool, _ out: OutputStream) throws -> JSON {
        var c = Capture(intent: .book)
        var name = TextClasses.trim(line)
        for (prefix, status) in [("reading ", "reading"), ("started ", "reading"), ("want to read ", "want"), ("want ", "want"),
                                 ("added ", "added"), ("add ", "added"), ("正在读", "reading"), ("开始读", "reading"), ("想读", "want")] {
            if name.lowercased().hasPrefix(prefix) { c.status = status; name = TextClasses.trim(String(name.dropFirst(prefix.count))) }
            else if name.lowercased() == TextClasses.trim(prefix) { c.status = status; name = "" }
        }
        if name.hasPrefix("《") && name.hasSuffix("》") { name = String(name.dropFirst().dropLast()) }
        c.status = c.status ?? "added"
        let lines = reading.text.split(separator: "\n").map { ImageCapture.collapse(String($0)) }.filter { !$0.isEmpty }
        func refuse(_ key: String, _ listed: [String], code: ExitCode = .failure, _ args: String...) -> IBError {
            var message = Messages.text(key, arguments: [path] + args, language: Messages.current)
            for (i, l) in listed.prefix(8).enumerated() { message += "\n  \(i + 1). " + l }
            if engine.options.json {
                out.writeJSON(.object(JSONObject([("type", "cover_candidates"), ("image", .string(path)),
                                                  ("ocr_confidence", JSON(reading.confidence)), ("candidates", JSON(Array(listed.prefix(8))))])))
                out.flush()
            }
            return IBError(message, code: code)
        }
        if reading.confidence < ImageCapture.minConfidence && !yes {
            throw refuse("cover_low", lines, String(reading.confidence))
        }
        guard let store = engine.store else {
            // --dry-run: what was read, nothing matched.
            let record: JSON = .object(JSONObject([("type", "cover"), ("image", .string(path)), ("lines", JSON(lines)),
                                                   ("ocr_confidence", JSON(reading.confidence))]))
            out.writeJSON(record)
            return record
        }
        let matcher = TitleMatcher(try store.entries())
        let shown = ImageCapture.booksShown(reading.text, matcher: matcher)
        if !name.isEmpty {
            // The reader named the book: it must be the library's (or new with --create) and on the photo.
            switch try store.resolve(name) {
            case .book(let ref):
                guard shown.contains(where: { $0.id == ref.id }) || ImageCapture.shows(reading.text, title: ref.title) || yes else {
                    throw refuse("cover_not_shown", lines, ref.title)
                }
                c.book = ref.title
                engine.forcedBookID = ref.id
            case .ambiguous(let q, let ms):
                throw try engine.ambiguity(q, ms).error
            case .none:
                guard engine.options.create else { throw refuse("cover_unknown", lines, name) }
                guard ImageCapture.shows(reading.text, title: name) || yes else { throw refuse("cover_not_shown", lines, name) }
                c.book = name
            }
        } else if shown.count == 1 {
            c.book = shown[0].title
            engine.forcedBookID = shown[0].id
        } else if shown.count > 1 {
            throw refuse("cover_several", shown.map { "\($0.id)  \($0.title)  (“\($0.seen)”)" }, code: .ambiguous, String(shown.count))
        } else if engine.options.create, let title = lines.first(where: { $0.filter { $0.isLetter }.count >= 2 }) {
            // An unknown book: the first line of the cover is its title.
            c.book = title
        } else {
            throw refuse("cover_none", lines)
        }
        defer { engine.forcedBookID = nil }
        return try writeCapture(engine, out, adding: [("image", .string(path)), ("ocr_confidence", JSON(reading.confidence))]) {
            try engine.capture(c, line: path)
        }
    }

    /// Captures with `capture`, adds `extra` fields to its record (in order: what the
    /// record came from, --image or --audio) and writes it on `out`; a refusal writes
    /// its JSON there under --json, then throws.
    static func writeCapture(_ engine: CaptureEngine, _ out: OutputStream, adding extra: [(String, JSON)],
                             _ capture: () throws -> JSON) throws -> JSON {
        do {
            var record = try capture()
            if case .object(var o) = record {
                for (key, value) in extra { o[key] = value }
                record = .object(o)
            }
            RecordText.write(record, engine.options, out)
            return record
        } catch let f as CaptureFailure {
            if engine.options.json, let j = f.json { out.writeJSON(j); out.flush() }
            throw f.error
        }
    }

    static func captureOne(_ engine: CaptureEngine, _ line: String, _ out: OutputStream) throws -> JSON {
        do {
            var record: JSON
            if engine.options.spoken {
                // A spoken line is read with the spoken forms; an ambiguity is not kept for a later answer.
                record = try engine.capture(spoken: line)
            } else if engine.parser.parse(line).intent == .unknown, let settled = try engine.settlePending(answer: line) {
                record = settled
            } else {
                record = try engine.capture(line)
            }
            RecordText.write(record, engine.options, out)
            return record
        } catch let f as CaptureFailure {
            if engine.options.json, let j = f.json { out.writeJSON(j); out.flush() }
            if f.error.code == .ambiguous, !engine.options.spoken, let ids = f.json?["candidates"]?.arrayValue?.compactMap({ $0["id"]?.stringValue }) {
                // The ambiguity is the answer; a line that could not be kept for later is said beside it.
                do { try engine.savePending(line: line, candidates: ids) } catch { printError("ib-capture: \(error)") }
            }
            throw f.error
        } catch let e as IBError {
            throw e
        } catch {
            if let store = engine.store { throw store.library.describe(error, outcome: "the line was not stored") }
            throw IBError("\(error)")
        }
    }

    /// exec ib-ask --book ID "QUESTION" (the question record is already printed).
    static func forwardToAsk(_ record: JSON, _ out: OutputStream) throws {
        guard record["type"]?.stringValue == "question" else {
            throw IBError.usage(Messages.text("ask_not_question", record["type"]?.stringValue ?? "?"))
        }
        out.flush()
        var argv = ["ib-ask"]
        if let id = record["book_id"]?.stringValue { argv += ["--book", id] }
        argv.append(record["text"]?.stringValue ?? "")
        var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cargs.append(nil)
        execvp("ib-ask", &cargs)
        throw IBError(Messages.text("ask_failed", String(cString: strerror(errno))), code: .failure)
    }
}
