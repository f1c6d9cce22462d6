// The natural-language capture parser, English and Simplified Chinese. It
// turns one line into a `Capture` (intent and fields) without touching the
// library: tags come off first, the language is chosen from the reader's own
// words (outside quotes), then that language's grammar reads the line
// (GrammarEnglish.swift, GrammarChinese.swift; their word lists are in
// LexiconEnglish.swift and LexiconChinese.swift).
import IBCore

public struct CaptureParser: Sendable {
    public var today: Day

    public init(today: Day) { self.today = today }

    public func parse(_ line: String) -> Capture {
        let raw = TextClasses.trim(line)
        if raw.isEmpty { return unknown("empty", "en") }
        let (tags, rest) = CaptureParser.extractTags(raw)
        let body = TextClasses.trim(rest)
        let han = TextClasses.containsHan(CaptureParser.outsideQuotes(body))
        let zh = han || body.contains("《")
        var capture: Capture
        if body.isEmpty {
            capture = unknown("empty", zh ? "zh" : "en")
        } else if !han, body.contains("《"), let c = parseEnglish(body), c.intent != .unknown {
            // English words around a 《title》 ("Quote p. 3 of 《sherlock》: ...") are read as English.
            capture = c
        } else if zh, let c = parseChinese(body) {
            capture = c
            // A mixed line both grammars read, as different things: refused with both readings.
            // A line without a Latin letter outside quotes is not mixed: what the English
            // grammar makes of "计划：每天读30页" (a book named "计划：每天读", page 30) is no reading.
            if CaptureParser.outsideQuotes(body).contains(where: { $0.isASCII && $0.isLetter }),
               let e = parseEnglish(body), e.intent != .unknown, c.intent != .unknown, e.intent != c.intent {
                capture = unknown("two_readings", "zh")
                capture.readings = [c.summary, e.summary]
            }
        } else if let c = parseEnglish(body) {
            capture = c
        } else if let c = parseChinese(body) {
            capture = c
        } else {
            capture = unknown("not_understood", zh ? "zh" : "en")
        }
        capture.language = zh ? "zh" : "en"
        if capture.intent == .progress, CaptureParser.saysYesterday(CaptureParser.outsideQuotes(body)) { capture.daysAgo = 1 }
        capture.tags = capture.intent == .unknown ? [] : tags
        // A quote may be only an ellipsis ("..."); a note or question needs words.
        if capture.intent != .unknown, let text = capture.text,
           text.isEmpty || (capture.intent != .quote && !text.contains(where: { $0.isLetter || $0.isNumber })) {
            capture = unknown("empty_text:" + capture.intent.rawValue, capture.language)
        }
        return capture
    }

    /// "read 30 pages yesterday", "last night", "昨天读了30页": the reading was a day ago.
    static func saysYesterday(_ text: String) -> Bool {
        let words = Text.words(text.lowercased()).map { String($0.filter { $0.isLetter }) }
        if words.contains("yesterday") { return true }
        if let i = words.firstIndex(of: "last"), i + 1 < words.count, words[i + 1] == "night" { return true }
        return text.contains("昨天") || text.contains("昨晚")
    }

    func unknown(_ reason: String, _ language: String) -> Capture {
        var c = Capture(intent: .unknown)
        c.reason = reason
        c.language = language
        return c
    }
}
