// Every message ib-capture shows a person, in English and Simplified Chinese,
// chosen by LC_ALL, LC_MESSAGES or LANG (the first one set). Placeholders are
// {0}, {1}...; a test checks that both languages have every message and the
// same placeholders.
import IBCore

public enum Language: String, Sendable { case en, zh }

public enum Messages {
    /// The language from the environment: zh for zh_CN, zh_SG, zh_TW, zh...; English otherwise.
    public static func language() -> Language {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = Config.environment(name) {
                return value.lowercased().hasPrefix("zh") ? .zh : .en
            }
        }
        return .en
    }

    nonisolated(unsafe) public static var current: Language = language()

    /// key: (English, Chinese)
    public static let catalogue: [String: (en: String, zh: String)] = [
        "empty": ("nothing to capture: the line is empty", "没有可记录的内容：这一行是空的"),
        "empty_text": ("nothing to save: the {0} has no text", "没有可保存的内容：{0}没有文字"),
        "not_understood": ("could not understand “{0}”. Start it with Quote:, Note:, Question:, Plan:, “Reading …” or “page N” (see ib-capture --help)", "无法理解“{0}”。请以 摘录：、笔记：、问题：、计划：、正在读《…》或 读到第N页 开头（见 ib-capture --help）"),
        "ambiguous": ("“{0}” matches {1} books; nothing was saved. Say which one (a longer title, or the id):", "“{0}”匹配到 {1} 本书，未保存任何内容。请说明是哪一本（更完整的书名或编号）："),
        "unknown_book": ("no book in the library matches “{0}”: add it first (ib-capture 'Reading {0}') or repeat with --create", "书库中没有与“{0}”匹配的书：请先添加（ib-capture '正在读《{0}》'），或加上 --create 重试"),
        "settle_hint": ("(the next line may be just the title, or the candidate's number)", "（下一行可以只写书名，或候选的序号）"),
        "bad_now": ("--now needs an ISO-8601 time, not '{0}'", "--now 需要 ISO-8601 时间，而不是“{0}”"),
        "bad_today": ("--today needs YYYY-MM-DD, not '{0}'", "--today 需要 YYYY-MM-DD 格式的日期，而不是“{0}”"),
        "import_usage": ("import takes one CSV file", "import 需要且只需要一个 CSV 文件"),
        "format_usage": ("--private goes with status or suggest; a captured line takes only --format text|json", "--private 只能与 status 或 suggest 一起使用；记录一行时 --format 只能是 text 或 json"),
        "ask_usage": ("--ask needs the question on the command line", "--ask 需要在命令行上给出问题"),
        "no_line": ("give a line to capture, or pipe lines on standard input (see --help)", "请给出要记录的一行文字，或通过标准输入传入多行（见 --help）"),
        "did_you_mean": ("did you mean: {0}", "你是不是想找：{0}"),
        "no_current_book": ("which book? None is being read yet: say “Reading TITLE” first, or name the book in the line", "是哪本书？目前没有在读的书：请先说“正在读《书名》”，或在这一行写明书名"),
        "nul_in_text": ("the line holds a NUL character (byte 0), which text cannot hold; nothing was saved", "这一行含有 NUL 字符（字节 0），文字中不能有它；未保存任何内容"),
        "page_unreadable": ("“{0}” is not a page number (write pages as 1, 2, 3 …); nothing was saved", "“{0}”不是页码（页码请写作 1、2、3 …）；未保存任何内容"),
        "page_range_reversed": ("the page range {0} runs backwards; nothing was saved", "页码范围 {0} 是倒着的；未保存任何内容"),
        "page_count_below_one": ("{0} pages is no page count: a book has 1 page or more; nothing was saved", "{0} 页不是有效的总页数：一本书至少有 1 页；未保存任何内容"),
        "pages_read_negative": ("{0} pages is no number of pages read; nothing was saved", "{0} 页不是有效的阅读页数；未保存任何内容"),
        "finish_needs_book": ("which book is finished? Name it (finished TITLE), or repeat with --yes to finish the current book", "读完了哪本书？请写明书名（读完了《书名》），或加上 --yes 重试以读完当前在读的书"),
        "spoken_unknown_book": ("“{0}”: the words after “for” or “from” name no book in the library; nothing was saved. Say the title as the library has it (ib-capture status lists them), or add the book first", "“{0}”：“for”或“from”后面的词不是书库中的书名；未保存任何内容。请说出书库中的书名（ib-capture status 可列出），或先添加这本书"),
        "spoken_book_in_words": ("“{0}”: a book of the library is named in the words, but not after “for” or “from”; nothing was saved. Say “note for TITLE …”, or repeat the line", "“{0}”：话中提到了书库中的一本书，但不在“for”或“from”之后；未保存任何内容。请说“note for 书名 …”，或再说一遍"),
        "spoken_page_in_words": ("“{0}”: a page is named in the words, not after the keyword (the start was probably misheard); nothing was saved. Say “quote page N …”, or repeat the line", "“{0}”：页码出现在内容中而不在关键词之后（开头可能没有听清）；未保存任何内容。请说“quote page N …”，或再说一遍"),
        "spoken_page_unheard": ("“{0}”: a page was said but its number was not heard; nothing was saved. Say it again", "“{0}”：说了页码但没有听清数字；未保存任何内容。请再说一遍"),
        "spoken_two_readings": ("“{0}” reads two ways: {1} | {2}; nothing was saved. Say the title in full, or pause after it", "“{0}”有两种理解：{1} | {2}；未保存任何内容。请说出完整书名，或在书名后停顿"),
        "audio_usage": ("--audio FILE takes no LINE, --image or --ask; --model goes with --audio", "--audio 文件 不能与一行文字、--image 或 --ask 同用；--model 需要与 --audio 一起使用"),
        "audio_unavailable": ("this ib-capture was built without speech recognition (--audio)", "此 ib-capture 构建时未包含语音识别（--audio）"),
        "audio_heard": ("{0}: heard (avg log prob {1}, no speech {2}): {3}", "{0}：听到（平均对数概率 {1}，无语音概率 {2}）：{3}"),
        "audio_nothing_heard": ("{0}: no speech heard; nothing was saved", "{0}：没有听到语音；未保存任何内容"),
        "audio_low": ("{0}: {1}; nothing was saved. Say it again, or repeat with --yes to save what was heard", "{0}：{1}；未保存任何内容。请再说一遍，或加上 --yes 保存听到的内容"),
        "audio_low_logprob": ("the transcript is unsure (average log probability {0}, below {1})", "识别结果不可靠（平均对数概率 {0}，低于 {1}）"),
        "audio_no_speech": ("the audio is probably not speech (no-speech probability {0}, above {1})", "音频可能不是语音（无语音概率 {0}，高于 {1}）"),
        "audio_too_long": ("{0}: {1} s of audio; a capture is one spoken line of at most {2} s", "{0}：音频长 {1} 秒；一次记录只能是一句话，最长 {2} 秒"),
        "audio_no_model": ("no Whisper model at {0}: run scripts/fetch-model whisper, or give --model DIR (or $IB_WHISPER_DIR)", "{0} 没有 Whisper 模型：请运行 scripts/fetch-model whisper，或用 --model 目录（或 $IB_WHISPER_DIR）指定"),
        "two_readings": ("“{0}” reads two ways: {1} | {2}; nothing was saved. Write it in one language (Quote p. 3: \"...\", Note: ..., read 20 pages; 摘录 第3页：「…」, 读了20页)", "“{0}”有两种理解：{1} | {2}；未保存任何内容。请只用一种语言写（摘录 第3页：「…」、读了20页；Quote p. 3: \"...\"、read 20 pages）"),
        "page_past_end": ("“{0}” has {1} pages; page {2} is past its end", "《{0}》共 {1} 页，第 {2} 页超出了范围"),
        "page_below_one": ("there is no page {0}: pages are numbered from 1; nothing was saved", "没有第 {0} 页：页码从 1 开始，未保存任何内容"),
        "page_too_large": ("page {0} is too large to be a page; nothing was saved", "第 {0} 页太大，不是有效的页码，未保存任何内容"),
        "ambiguous_author": ("“{0}” is the author of {1} books in the library; nothing was saved. Say which one (the title, or the id):", "书库中有 {1} 本“{0}”的书，未保存任何内容。请说明是哪一本（书名或编号）："),
        "author_current": ("“{0}” is the author of {1} books in the library; using the current one, “{2}”", "书库中有 {1} 本“{0}”的书；使用当前在读的《{2}》"),
        "no_page_count": ("“{0}” has no page count yet: say “page N of TOTAL” once to set it", "《{0}》还没有总页数：请说一次“读到第N页，共M页”来设置"),
        "plan_no_date": ("a plan needs a date: “Plan: finish TITLE by 2027-01-31” (or a daily goal: “Plan: 30 pages a day”)", "计划需要日期：“计划：2027年1月31日前读完《书名》”（或每日目标：“计划：每天读30页”）"),
        "plan_too_many": ("the plan names {0} books; a plan holds at most {1}; nothing was saved", "计划中有 {0} 本书，一个计划最多 {1} 本；未保存任何内容"),
        "plan_no_books": ("the plan names no book", "计划中没有书名"),
        "plan_past_due": ("the plan's date {0} is already past", "计划日期 {0} 已经过去了"),
        "ask_failed": ("could not run ib-ask: {0}", "无法运行 ib-ask：{0}"),
        "ask_not_question": ("--ask only forwards questions; this line is a {0}", "--ask 只转发问题；这一行是{0}"),
        "saved": ("saved {0}", "已保存{0}"),
        "image_failed": ("cannot read the image {0}: {1}", "无法读取图片 {0}：{1}"),
        "image_no_parser": ("reading {0} needs ib-parse (installed beside ib-capture, or on PATH)", "读取 {0} 需要 ib-parse（与 ib-capture 放在同一目录，或在 PATH 中）"),
        "image_low": ("{0}: {1}; nothing was saved. Candidates:", "{0}：{1}，未保存任何内容。候选："),
        "image_low_confidence": ("the text was read with low confidence ({0}/100)", "文字识别的置信度较低（{0}/100）"),
        "image_weak_match": ("only {0}% of the --text words were found in the photo", "照片中只找到了 --text 中 {0}% 的词"),
        "image_no_match": ("{0}: none of the --text words are in the photo; nothing was saved", "{0}：照片中没有 --text 中的任何词，未保存任何内容"),
        "image_yes_hint": ("(repeat with --yes to save the first, or give --text with more of the passage)", "（加上 --yes 重试以保存第一个，或在 --text 中给出更多原文）"),
        "image_text_long": ("--text is too long: at most {0} words", "--text 太长：最多 {0} 个词"),
        "image_usage": ("--text goes with --image FILE", "--text 需要与 --image 文件 一起使用"),
        "cover_low": ("{0}: the titles were read with low confidence ({1}/100); nothing was saved. Read:", "{0}：书名识别的置信度较低（{1}/100），未保存任何内容。识别出："),
        "cover_not_shown": ("{0}: “{1}” is not on the photo; nothing was saved (repeat with --yes to save it anyway). Read:", "{0}：照片上没有《{1}》，未保存任何内容（加上 --yes 仍然保存）。识别出："),
        "cover_unknown": ("{0}: no book in the library matches “{1}”; nothing was saved (repeat with --create to add it). Read:", "{0}：书库中没有与“{1}”匹配的书，未保存任何内容（加上 --create 添加）。识别出："),
        "cover_several": ("{0}: the photo shows {1} books of the library; nothing was saved. Name the one you mean:", "{0}：照片上有书库中的 {1} 本书，未保存任何内容。请写明是哪一本："),
        "cover_none": ("{0}: no book of the library is on the photo; nothing was saved (name it, or repeat with --create to add the first title). Read:", "{0}：照片上没有书库中的书，未保存任何内容（请写明书名，或加上 --create 添加第一个书名）。识别出："),
        "created_book": ("added “{0}” to the library", "已将《{0}》加入书库"),
        "imported": ("imported {0} highlights, skipped {1} already there", "已导入 {0} 条摘录，跳过 {1} 条已有的"),
        "csv_bad_header": ("{0}: not a Readwise CSV (needs a Highlight and a Title column)", "{0}：不是 Readwise CSV 文件（需要 Highlight 和 Title 列）"),
        "export_format": ("--format must be markdown, json or csv", "--format 只能是 markdown、json 或 csv"),
        "export_default": ("exporting as markdown (the default on a terminal; JSON Lines in a pipe; --format markdown|json|csv|cards says which)", "以 markdown 导出（终端上的默认格式；管道中为 JSON Lines；用 --format markdown|json|csv|cards 指定）"),
        "lines_failed": ("{0} of {1} lines were not saved", "{1} 行中有 {0} 行未保存"),
        // status
        "status_reading": ("Reading {0}: page {1} of {2} ({3}%)", "正在读《{0}》：第 {1} / {2} 页（{3}%）"),
        "status_reading_nopages": ("Reading {0}: page {1}", "正在读《{0}》：第 {1} 页"),
        "status_no_book": ("No book being read", "目前没有在读的书"),
        "status_today": ("{0} pages today", "今天读了 {0} 页"),
        "status_streak": ("Streak: {0} days", "连续阅读 {0} 天"),
        "status_streak_one": ("Streak: {0} day", "连续阅读 {0} 天"),
        "status_quote": ("Quote of the day: “{0}” — {1}", "今日摘录：「{0}」——《{1}》"),
        "status_quote_hidden": ("Quote of the day: (hidden)", "今日摘录：（已隐藏）"),
        "status_plan": ("Plan: {0} by {1}: {2} pages/day needed, {3}", "计划：{1} 前读完 {0}：每天需读 {2} 页，{3}"),
        "status_plan_daily": ("Goal: {0} pages a day, {1}", "目标：每天 {0} 页，{1}"),
        "on_track": ("on track", "进度正常"),
        "behind": ("behind", "进度落后"),
        "kind_quote": ("quote", "摘录"),
        "kind_note": ("note", "笔记"),
        "kind_question": ("question", "问题"),
        "kind_progress": ("progress", "进度"),
        "kind_plan": ("plan", "计划"),
        "kind_book": ("book", "书"),
        "finished_book": ("finished “{0}” — well done!", "读完了《{0}》，真棒！"),
    ]

    /// The message for `key` in the current language, with {0}, {1}... filled in.
    public static func text(_ key: String, _ arguments: CustomStringConvertible...) -> String {
        text(key, arguments: arguments.map(\.description), language: current)
    }

    public static func text(_ key: String, arguments: [String], language: Language) -> String {
        guard let entry = catalogue[key] else { return key }
        var s = language == .zh ? entry.zh : entry.en
        for (i, a) in arguments.enumerated() { s = s.replacingAll("{\(i)}", a) }
        return s
    }
}
