// A spoken capture line: what a reader says to `ib-capture --audio` (as
// Whisper writes it down, with or without its punctuation and digits).
// Speech has no colons, quotation marks or '#': a quote ends with "end
// quote", a book is named after "for" or "from", a tag is "hashtag X",
// numbers are words. This file reads the line as words:
//   - a keyword line (quote, note, question) becomes a Capture directly: its
//     header (page, chapter, book) is read word by word, and the book's name is
//     the longest run of words that is a title or author in the library, so
//     "note for moby dick the whale ..." splits after "dick". Two names that
//     would split the line differently are two readings: refused with both.
//     A name after "for"/"from" that is no book in the library is refused,
//     never stored as text of the current book;
//   - any other line (progress, time, plans, books) has its spoken numbers and
//     times written in digits where they count pages, chapters or time, and is
//     read by the written grammar, which keeps its strictness.
import IBCore

/// A word as said, and the same word lower-cased without edge punctuation.
struct SpokenWord: Equatable {
    var raw: String
    var word: String
}

/// The names a spoken line may use for a book: titles (with and without a
/// leading article), authors and their surnames, normalized.
public struct SpokenNames: Sendable {
    /// Each name as heard (normalized) -> as the library writes it.
    let shown: [String: String]
    var names: Set<String> { Set(shown.keys) }
    let longest: Int
    /// The titles as the library writes them: only these are matched by sound.
    let titles: Set<String>

    public init(titles: [String], authors: [String]) {
        var all: [String: String] = [:]
        func add(_ heard: String, _ written: String) { if all[heard] == nil { all[heard] = written } }
        for t in titles {
            let n = TitleMatcher.normalize(t)
            guard !n.isEmpty else { continue }
            add(n, t)
            for article in ["the ", "a ", "an "] where n.hasPrefix(article) { add(String(n.dropFirst(article.count)), t) }
        }
        for a in authors {
            let n = TitleMatcher.normalize(a)
            guard !n.isEmpty else { continue }
            add(n, a)
            // A surname names the author (ib-capture's author rule then picks or asks).
            if let last = n.split(separator: " ").last, last.count >= 3 {
                add(String(last), a.split(separator: " ").last.map(String.init) ?? String(last))
            }
        }
        // "MobyDick": the name without its spaces.
        for (n, written) in all where n.contains(" ") {
            let squeezed = n.filter { $0 != " " }
            if squeezed.count >= 6 { add(squeezed, written) }
        }
        shown = all
        self.titles = Set(titles.filter { !TitleMatcher.normalize($0).isEmpty })
        longest = all.keys.map { $0.split(separator: " ").count }.max() ?? 0
    }

    public static let none = SpokenNames(titles: [], authors: [])

    /// Whether a name of the library is among `words` (a misheard header left it there).
    func mentioned(in words: ArraySlice<SpokenWord>) -> Bool {
        let ws = Array(words)
        // Two words or more, or one long word: "idiot" or "emma" in a quote is no sign of a book.
        for i in ws.indices {
            for k in matches(ws, i) {
                let name = TitleMatcher.normalize(ws[i..<(i + k)].map(\.raw).joined(separator: " "))
                if name.split(separator: " ").count >= 2 || name.count >= 8 { return true }
            }
        }
        return false
    }

    /// The word counts k (longest first) for which words[i..<i+k] is a name.
    func matches(_ words: [SpokenWord], _ i: Int) -> [Int] {
        var out: [Int] = []
        var k = min(longest, words.count - i)
        while k >= 1 {
            let phrase = TitleMatcher.normalize(words[i..<(i + k)].map(\.raw).joined(separator: " "))
            if shown[phrase] != nil { out.append(k) }
            // A name ends where Whisper put a comma or full stop: no longer run goes past it.
            k -= 1
        }
        return out.filter { k in !words[i..<(i + k - 1)].contains(where: { SpokenLine.endsClause($0.raw) }) }
    }
}

extension CaptureParser {
    /// Reads a spoken line (see SpokenLine.swift): `names` are the library's titles and authors.
    public func parseSpoken(_ said: String, names: SpokenNames) -> Capture {
        var words = SpokenLine.words(said)
        var tags: [String] = []
        words = SpokenLine.takeTags(words, into: &tags)
        words = SpokenLine.dropFillers(words)
        if words.isEmpty { return unknown("empty", "en") }
        if let (intent, width) = SpokenLine.keyword(words) {
            var c = SpokenLine(names: names).keywordCapture(intent, Array(words[width...]))
            if c.intent != .unknown { c.tags = tags }
            // A quote may be only an ellipsis; a note or question needs words.
            if c.intent != .unknown, let t = c.text, t.isEmpty || (c.intent != .quote && !t.contains(where: { $0.isLetter || $0.isNumber })) {
                return unknown("empty_text:" + c.intent.rawValue, "en")
            }
            return c
        }
        // "Not for Moby Dick. Chapter 40. ...": Whisper's "note", when a header follows it.
        if words.count > 2, SpokenLexicon.noteSoundAlikes.contains(words[0].word) {
            var c = SpokenLine(names: names).keywordCapture(.note, Array(words[1...]))
            if c.intent == .note, c.page != nil || c.chapter != nil || c.book != nil, let t = c.text, t.contains(where: \.isLetter) {
                c.tags = tags
                return c
            }
        }
        var line = SpokenLine.rewriteCounts(words)
        for t in tags { line += " #" + t }
        return parse(line)
    }
}

struct SpokenLine {
    let names: SpokenNames

    // MARK: words

    static let clausePunctuation: Set<Character> = [",", ".", ";", ":", "!", "?", "…"]
    static let edge: Set<Character> = [",", ".", ";", ":", "!", "?", "…", "\"", "“", "”", "'", "‘", "’", "(", ")", "-", "—", "–"]

    static func words(_ s: String) -> [SpokenWord] {
        Text.words(s).compactMap { raw in
            let w = Text.strip(raw.lowercased(), edge)
            return raw.isEmpty ? nil : SpokenWord(raw: raw, word: w)
        }
    }

    static func endsClause(_ raw: String) -> Bool { raw.last.map { clausePunctuation.contains($0) } ?? false }

    /// "hashtag fate" and "#fate" become tags, wherever they are.
    static func takeTags(_ words: [SpokenWord], into tags: inout [String]) -> [SpokenWord] {
        var out: [SpokenWord] = []
        var i = 0
        while i < words.count {
            let w = words[i]
            var tag: String? = nil
            if SpokenLexicon.tagWords.contains(w.word), i + 1 < words.count, words[i + 1].word.first?.isLetter == true {
                tag = words[i + 1].word; i += 2
            } else if w.raw.hasPrefix("#"), w.word.count > 1 || (w.word.first?.isLetter ?? false) {
                tag = String(w.word.drop(while: { $0 == "#" })); i += 1
            } else {
                out.append(w); i += 1
            }
            if let t = tag, !t.isEmpty, !tags.contains(t) { tags.append(t) }
        }
        return out
    }

    /// Hesitations anywhere ("um"), and fillers before the first word that counts ("okay so").
    static func dropFillers(_ words: [SpokenWord]) -> [SpokenWord] {
        var out = words.filter { !SpokenLexicon.hesitations.contains($0.word) }
        while let first = out.first {
            if let pair = SpokenLexicon.fillerPairs.first(where: { p in out.count > p.count && zip(out, p).allSatisfy { $0.word == $1 } }) {
                out.removeFirst(pair.count); continue
            }
            guard SpokenLexicon.openingFillers.contains(first.word), first.word != "all", out.count > 1 else { break }
            // "now" and "so" may be part of what is said ("now at page 40"): only a filler when followed by more.
            out.removeFirst()
        }
        return out
    }

    static func starts(_ words: [SpokenWord], _ i: Int, _ phrase: [String]) -> Bool {
        guard i + phrase.count <= words.count else { return false }
        return zip(words[i..<(i + phrase.count)], phrase).allSatisfy { $0.word == $1 }
    }

    /// The keyword opening the line and how many words it takes.
    static func keyword(_ words: [SpokenWord]) -> (Capture.Intent, Int)? {
        for (phrase, intent) in SpokenLexicon.keywords where starts(words, 0, phrase) {
            // "quote" alone, or a keyword glued to the next word by Whisper's comma, is still the keyword.
            return (intent, phrase.count)
        }
        if let first = words.first?.word, first.count >= 4, !SpokenLexicon.notKeywords.contains(first),
           let (_, intent) = SpokenLexicon.fuzzyKeywords.first(where: { Fuzzy.isKeyword(first, [$0.0]) }) {
            return (intent, 1)
        }
        return nil
    }

    // MARK: keyword lines

    /// What the header said so far.
    struct Header {
        var page: Int? = nil
        var pageEnd: Int? = nil
        var chapter: String? = nil
        var book: String? = nil
        var failure: String? = nil
        /// Two books the name heard sounds like: the line reads both ways.
        var readings: [String] = []
    }

    func keywordCapture(_ intent: Capture.Intent, _ words: [SpokenWord], splitAt forced: [Int: Int] = [:]) -> Capture {
        var header = Header()
        var i = readHeader(words, 0, &header, forced: forced)
        if let f = header.failure { return refusal(f, words, intent, readings: header.readings) }
        // Two names that split the header differently: two readings, nothing stored.
        if let readings = twoReadings(intent, words, forced) { return readings }
        // The words said, up to an end marker; after it, more header (and nothing else).
        var end = words.count
        var j = i
        while j < words.count {
            let strong = SpokenLexicon.endMarkers.first(where: { SpokenLine.starts(words, j, $0) })
            if let m = strong ?? SpokenLexicon.weakEndMarkers.first(where: { SpokenLine.starts(words, j, $0) }) {
                var trailing = header
                let k = readHeader(words, j + m.count, &trailing, forced: forced)
                if let f = trailing.failure { return refusal(f, words, intent, readings: trailing.readings) }
                if k == words.count { end = j; header = trailing; break }
                // "... end quote" and words that are no header: not understood; "and quote" inside the words: words.
                if strong != nil { var c = Capture(intent: .unknown); c.reason = "not_understood"; return c }
            }
            j += 1
        }
        if end < i { i = end }
        // "quote page for the ...": a page was said but no number heard; never stored without it.
        if header.page == nil, i < end, SpokenLexicon.pageWords.contains(words[i].word) || SpokenLexicon.pageRangeWords.contains(words[i].word) {
            return refusal("spoken_page_unheard", words, intent)
        }
        if header.book == nil, names.mentioned(in: words[i..<min(end, i + SpokenLexicon.wordsSearchedForNames)]) {
            return refusal("spoken_book_in_words", words, intent)
        }
        // "Quot. Flamaste in page 12. ...": a page among the first words, none in the header: the header
        // (and the book it named) was misheard; never stored on the current book.
        if header.page == nil, SpokenLine.pageSaid(words, i, min(end, i + SpokenLexicon.wordsSearchedForNames)) {
            return refusal("spoken_page_in_words", words, intent)
        }
        var c = Capture(intent: intent)
        c.page = header.page; c.pageEnd = header.pageEnd; c.chapter = header.chapter; c.book = header.book
        c.text = SpokenLine.text(words[i..<end], intent)
        return c
    }

    /// Whether "page N" (or "pages N") stands among words[from..<to].
    static func pageSaid(_ words: [SpokenWord], _ from: Int, _ to: Int) -> Bool {
        guard from < to else { return false }
        let w = words.map(\.word)
        return (from..<to).contains { j in
            (SpokenLexicon.pageWords.contains(w[j]) || SpokenLexicon.pageRangeWords.contains(w[j])) && SpokenNumbers.number(w, j + 1) != nil
        }
    }

    /// Reads page, chapter and book phrases from `i` on; returns where the rest starts.
    func readHeader(_ words: [SpokenWord], _ start: Int, _ h: inout Header, forced: [Int: Int]) -> Int {
        var i = start
        var afterPage = false
        while i < words.count {
            if let n = readPage(words, i, &h) { i = n; afterPage = true; continue }
            if let n = readChapter(words, i, &h) { i = n; afterPage = false; continue }
            let w = words[i].word
            let leads = afterPage ? SpokenLexicon.bookLeads : SpokenLexicon.bookLeadsThatName.union(["of"])
            let soundsLikeFor = forSoundAlike(words, i)
            // "Question for" and nothing after: the name was not heard (a cut-off line), never the text "for".
            if h.book == nil, SpokenLexicon.bookLeadsThatName.contains(w), i + 1 == words.count {
                h.failure = "spoken_unknown_book"; return i
            }
            if h.book == nil, leads.contains(w) || soundsLikeFor, i + 1 < words.count {
                let found = forced[i + 1].map { [$0] } ?? names.matches(words, i + 1)
                if let k = found.first {
                    let heard = words[(i + 1)..<(i + 1 + k)].map { Text.strip($0.raw, SpokenLine.edge) }.joined(separator: " ")
                    // The name as the library writes it ("MobyDick" -> "Moby Dick"); without a library, as heard.
                    h.book = names.shown[TitleMatcher.normalize(heard)] ?? heard
                    i += 1 + k; afterPage = false; continue
                }
                // "for"/"from", or "of" after a page, said before a name that is no book: refused.
                if SpokenLexicon.bookLeadsThatName.contains(w) || (afterPage && SpokenLexicon.bookLeadsAfterPage.contains(w)) {
                    // No name as heard: one that sounds like it, when it is a clear single winner (SoundAlikeNames.swift).
                    switch names.soundsLike(words, i + 1) {
                    case .name(let name, let k): h.book = name; i += 1 + k; afterPage = false; continue
                    case .two(let a, let b): h.failure = "two_readings"; h.readings = ["book=" + a, "book=" + b]; return i
                    case .none: h.failure = "spoken_unknown_book"; return i
                    }
                }
            }
            break
        }
        return i
    }

    /// "page forty seven", "on page 47", "pages forty to forty one", "the seventy third page".
    func readPage(_ words: [SpokenWord], _ i: Int, _ h: inout Header) -> Int? {
        guard h.page == nil else { return nil }
        var j = i
        if j < words.count, SpokenLexicon.pageLeads.contains(words[j].word) { j += 1 }
        if j < words.count, SpokenLexicon.pageWords.contains(words[j].word) || SpokenLexicon.pageRangeWords.contains(words[j].word),
           let n = SpokenNumbers.number(words.map(\.word), j + 1) {
            h.page = n.value
            var k = j + 1 + n.count
            if SpokenLexicon.pageRangeWords.contains(words[j].word), k < words.count, SpokenLexicon.rangeLinks.contains(words[k].word),
               let e = SpokenNumbers.number(words.map(\.word), k + 1), e.value > n.value {
                h.pageEnd = e.value; k += 1 + e.count
            }
            return k
        }
        // "the seventy third page"
        if j < words.count, words[j].word == SpokenLexicon.the,
           let n = SpokenNumbers.ordinal(words.map(\.word), j + 1, before: SpokenLexicon.pageWords) {
            h.page = n.value
            return j + 2 + n.count
        }
        return nil
    }

    /// "chapter three", "in chapter forty two", "the third chapter".
    func readChapter(_ words: [SpokenWord], _ i: Int, _ h: inout Header) -> Int? {
        guard h.chapter == nil else { return nil }
        var j = i
        if j < words.count, SpokenLexicon.chapterLeads.contains(words[j].word) { j += 1 }
        if j < words.count, SpokenLexicon.chapterWords.contains(words[j].word) {
            if let n = SpokenNumbers.number(words.map(\.word), j + 1) { h.chapter = String(n.value); return j + 1 + n.count }
            if j + 1 < words.count, let r = CalendarWords.roman(words[j + 1].word) { h.chapter = String(r); return j + 2 }
        }
        if j < words.count, words[j].word == SpokenLexicon.the,
           let n = SpokenNumbers.ordinal(words.map(\.word), j + 1, before: SpokenLexicon.chapterWords) {
            h.chapter = String(n.value)
            return j + 2 + n.count
        }
        return nil
    }

    /// "4" or "four" heard for "for": only right before a name of the library, as written.
    func forSoundAlike(_ words: [SpokenWord], _ i: Int) -> Bool {
        SpokenLexicon.forSoundAlikes.contains(words[i].word) && i + 1 < words.count && !names.matches(words, i + 1).isEmpty
    }

    /// When a book name could end at two places (titles "Dune" and "Dune Messiah"),
    /// the line reads two ways; both readings are returned in an unknown capture.
    func twoReadings(_ intent: Capture.Intent, _ words: [SpokenWord], _ forced: [Int: Int]) -> Capture? {
        guard forced.isEmpty else { return nil }
        var i = 0
        while i < words.count - 1 {
            if SpokenLexicon.bookLeads.contains(words[i].word) || forSoundAlike(words, i) {
                let ks = names.matches(words, i + 1)
                if ks.count >= 2 {
                    let a = keywordCapture(intent, words, splitAt: [i + 1: ks[0]])
                    let b = keywordCapture(intent, words, splitAt: [i + 1: ks[ks.count - 1]])
                    if a.intent != .unknown, b.intent != .unknown, a.book != b.book {
                        var c = Capture(intent: .unknown)
                        c.reason = "two_readings"
                        c.readings = [a.summary, b.summary]
                        return c
                    }
                }
                return nil
            }
            i += 1
        }
        return nil
    }

    func refusal(_ key: String, _ words: [SpokenWord], _ intent: Capture.Intent, readings: [String] = []) -> Capture {
        var c = Capture(intent: .unknown)
        c.reason = key
        c.readings = readings
        return c
    }

    /// The words of a quote, note or question as said, without the marks Whisper
    /// puts around them (a leading comma, quotation marks, a comma before "end quote").
    static func text(_ words: ArraySlice<SpokenWord>, _ intent: Capture.Intent) -> String {
        var t = words.map(\.raw).joined(separator: " ")
        t = TextClasses.trim(t) { TextClasses.isSpace($0) || ",;:-—–".contains($0) }
        if let q = CaptureParser.quoted(t), TextClasses.trim(q.before).isEmpty,
           TextClasses.trim(q.after).allSatisfy({ ",.;:!? ".contains($0) }) {
            t = TextClasses.trim(q.inside) + (intent == .question && q.after.contains("?") ? "?" : "")
        }
        while let last = t.last, ",;:-".contains(last) { t.removeLast(); t = TextClasses.trim(t) }
        return t
    }

    // MARK: other lines

    /// Writes in digits the numbers that count something ("page two hundred and twelve",
    /// "twenty five pages", "the ninety first page", "forty percent") and the times of
    /// an audiobook ("two hours fifteen minutes" -> 2:15:00); the rest stays as said,
    /// less a full stop at the end.
    static func rewriteCounts(_ words: [SpokenWord]) -> String {
        let w = words.map(\.word)
        var out: [String] = []
        var i = 0
        while i < words.count {
            // "the ninety first page" -> "page 91"
            if w[i] == SpokenLexicon.the,
               let n = SpokenNumbers.ordinal(w, i + 1, before: SpokenLexicon.pageWords.union(SpokenLexicon.chapterWords)) {
                out.append(w[i + 1 + n.count]); out.append(String(n.value) + trailing(words[i + 1 + n.count].raw))
                i += 2 + n.count; continue
            }
            if let t = SpokenNumbers.time(w, i), t.count > 1 || SpokenNumbers.clock(w[i]) != nil {
                out.append(SpokenNumbers.clockText(t.seconds) + trailing(words[i + t.count - 1].raw))
                i += t.count; continue
            }
            if let n = SpokenNumbers.number(w, i), Text.int(w[i]) == nil || n.count > 1 {
                let before = out.last.map { Text.strip($0.lowercased(), edge) }
                let after = i + n.count < w.count ? w[i + n.count] : ""
                let counted = before.map { SpokenLexicon.countedAfter.contains($0) } ?? false
                if counted || SpokenLexicon.countedBefore.contains(after) {
                    if after == "percent" {
                        out.append(String(n.value) + "%" + trailing(words[i + n.count].raw)); i += n.count + 1; continue
                    }
                    out.append(String(n.value) + trailing(words[i + n.count - 1].raw)); i += n.count; continue
                }
            }
            out.append(words[i].raw)
            i += 1
        }
        var line = out.joined(separator: " ")
        while let last = line.last, last == "." || last == "," { line.removeLast() }
        return line
    }

    /// The punctuation a word ended with ("47." -> ".").
    static func trailing(_ raw: String) -> String {
        String(raw.reversed().prefix(while: { clausePunctuation.contains($0) }).reversed())
    }
}
