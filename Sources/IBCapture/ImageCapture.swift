// ib-capture --image: a quote from a photographed page. The photo is read by
// ib-parse (which holds the OCR; ib-capture itself never loads it), the page
// number is taken from a running header or footer when the photo shows one,
// and the quote is the span of the recognised text that best matches the
// words given with --text (word-level local alignment that tolerates OCR
// errors), or else the whole passage. A low-confidence read is not stored
// without --yes: the candidates are listed instead.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

public enum ImageCapture {
    /// What ib-parse read from the image.
    public struct Reading: Sendable {
        public var text: String
        public var confidence: Int
    }

    /// Below this mean confidence (tesseract's, 0-100) a read is not stored without --yes.
    public static let minConfidence = 70
    /// --text may hold at most this many words (the alignment costs words x page words).
    public static let maxQueryWords = 1000
    /// Below this share of the --text words found in the span, the match is not stored without --yes.
    public static let minMatch = 0.6

    /// Runs ib-parse (beside this executable, else on PATH) on `path`; its error line on failure.
    public static func read(_ path: String) throws -> Reading {
        let program = Installation.toolCandidates("ib-parse").first { $0 != "ib-parse" && access($0, X_OK) == 0 } ?? "ib-parse"
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        guard pipe(&out) == 0, pipe(&err) == 0 else { throw IBError(Messages.text("image_failed", path, "pipe")) }
        let words: [String] = [program, "--format", "image", path]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        argv.append(nil)
        defer { for a in argv { free(a) } }
        let pid = fork()
        if pid == 0 {
            dup2(out[1], 1); dup2(err[1], 2)
            close(out[0]); close(err[0]); close(out[1]); close(err[1])
            execvp(program, &argv)
            _exit(127)
        }
        close(out[1]); close(err[1])
        if pid < 0 { close(out[0]); close(err[0]); throw IBError(Messages.text("image_failed", path, "fork")) }
        // Read both pipes to their ends (stderr is one line; stdout the records).
        var stdout: [UInt8] = [], stderr: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var open = [out[0], err[0]]
        while !open.isEmpty {
            var polls = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&polls, nfds_t(polls.count), -1) < 0 { if errno == EINTR { continue }; break }
            for (k, fd) in open.enumerated().reversed() where polls[k].revents != 0 {
                let got = Glibc.read(fd, &chunk, chunk.count)
                if got > 0 {
                    if fd == out[0] { stdout += chunk[..<got] } else if stderr.count < 1 << 16 { stderr += chunk[..<got] }
                } else if got == 0 || errno != EINTR { open.remove(at: k) }
            }
        }
        close(out[0]); close(err[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = (status & 0x7F) == 0, code = (status >> 8) & 0xFF
        if !exited || code != 0 {
            if code == 127 { throw IBError(Messages.text("image_no_parser", path)) }
            var message = TextClasses.trim(String(decoding: stderr, as: UTF8.self))
            if let newline = message.firstIndex(of: "\n") { message = String(message[..<newline]) }
            if message.hasPrefix("ib-parse: \(path): ") { message = String(message.dropFirst("ib-parse: \(path): ".count)) }
            throw IBError(Messages.text("image_failed", path, message.isEmpty ? "ib-parse exit \(code)" : message))
        }
        var texts: [String] = [], confidences: [Int] = []
        for line in String(decoding: stdout, as: UTF8.self).split(separator: "\n") {
            guard let record = try? JSON.parse(String(line)), record["type"]?.stringValue == "page" else { continue }
            texts.append(record["text"]?.stringValue ?? "")
            confidences.append(record["ocr_confidence"]?.intValue ?? 0)
        }
        let text = texts.joined(separator: "\n\n")
        if TextClasses.trim(text).isEmpty { throw IBError(Messages.text("image_failed", path, "no text found in the image")) }
        return Reading(text: text, confidence: confidences.min() ?? 0)
    }

    // MARK: - the line beside --image

    /// What the words beside --image say: the book ("Meditations", "《沉思录》", "from
    /// Meditations"), a page ("p. 47", "page 47", "第47页") and #tags; nil book: the current one.
    public static func lineParts(_ line: String) -> (book: String?, page: Int?, badPage: String?, tags: [String]) {
        var words: [String] = []
        var tags: [String] = []
        var page: Int? = nil, bad: String? = nil
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        var i = 0
        func setPage(_ s: String) {
            if let n = Int(s), n >= 1, n <= 1_000_000 { page = n } else { bad = s }
        }
        while i < parts.count {
            let w = parts[i]
            let lower = w.lowercased()
            if w.hasPrefix("#") && w.count > 1 { tags.append(String(w.dropFirst())); i += 1; continue }
            if ["p.", "p", "page", "pg.", "pp."].contains(lower), i + 1 < parts.count, Int(parts[i + 1].trimmingSuffix(",")) != nil || parts[i + 1].hasPrefix("-") {
                setPage(parts[i + 1].trimmingSuffix(",")); i += 2; continue
            }
            if lower.hasPrefix("p."), Int(lower.dropFirst(2)) != nil || lower.dropFirst(2).hasPrefix("-") { setPage(String(lower.dropFirst(2))); i += 1; continue }
            words.append(w)
            i += 1
        }
        var book = words.joined(separator: " ")
        // 第47页 anywhere, 《title》, and the words that only introduce the book.
        if let start = book.firstIndex(of: "第"), let end = book[start...].firstIndex(of: "页") {
            let inner = String(book[book.index(after: start)..<end]).filter { $0 != " " }
            if !inner.isEmpty && inner.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") }) {
                setPage(inner); book.removeSubrange(start...end)
            }
        }
        if let open = book.firstIndex(of: "《"), let close = book[open...].firstIndex(of: "》") {
            book = String(book[book.index(after: open)..<close])
        }
        for prefix in ["quote from ", "quote of ", "quote ", "from ", "of ", "in ", "摘录", "摘自", "出自"] {
            if book.lowercased().hasPrefix(prefix) { book = String(book.dropFirst(prefix.count)) }
        }
        book = TextClasses.trim(book).trimmingSuffix(":").trimmingSuffix("：")
        if ["quote", "摘录"].contains(book.lowercased()) { book = "" }
        return (book.isEmpty ? nil : book, page, bad, tags)
    }

    // MARK: - covers and shelves

    /// Whether a reading looks like a cover or a shelf rather than a page: few words.
    public static func looksLikeCover(_ text: String) -> Bool {
        var words = 0
        for w in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            words += w.unicodeScalars.contains { $0.value >= 0x2E80 } ? max(1, w.count / 2) : 1
        }
        return words < 60
    }

    /// The strings on a cover or shelf that may be titles: each line, each two lines together
    /// (a title set on two lines), and a line with the one before and after it.
    public static func titleCandidates(_ text: String) -> [String] {
        let lines = text.split(separator: "\n").map { collapse(String($0)) }
            .filter { $0.filter { $0.isLetter }.count >= 2 }
        var out: [String] = []
        for (i, l) in lines.enumerated() {
            out.append(l)
            if i + 1 < lines.count { out.append(l + " " + lines[i + 1]) }
            if i + 2 < lines.count { out.append(l + " " + lines[i + 1] + " " + lines[i + 2]) }
        }
        return out
    }

    /// The library books a cover or shelf shows: for each, the best-scoring candidate string.
    /// Only unique matches count (an ambiguous string names no book), and a fuzzy one must
    /// score at least `minimum` (an exact title scores 1.5 or more).
    public static func booksShown(_ text: String, matcher: TitleMatcher, minimum: Double = 0.8) -> [(id: String, title: String, score: Double, seen: String)] {
        var best: [String: (id: String, title: String, score: Double, seen: String)] = [:]
        for candidate in titleCandidates(text) {
            guard let m = matcher.match(candidate).unique, m.score >= minimum else { continue }
            if (best[m.id]?.score ?? -1) < m.score { best[m.id] = (m.id, m.title, m.score, candidate) }
        }
        return best.values.sorted { $0.score != $1.score ? $0.score > $1.score : $0.title < $1.title }
    }

    /// Whether the photo shows `title`: some candidate string matches it as the only entry.
    public static func shows(_ text: String, title: String) -> Bool {
        let one = TitleMatcher([TitleMatcher.Entry(id: "x", title: title)])
        return titleCandidates(text).contains { (one.match($0).unique?.score ?? 0) >= 0.8 }
    }

    // MARK: - the page number

    /// The page number printed in a running header or footer (the first two or last two
    /// lines: "47", "- 47 -", "Page 47", "第47页", "48 THE ADVENTURES OF SHERLOCK HOLMES",
    /// "A SCANDAL IN BOHEMIA 49"), and the text without that line.
    public static func pageNumber(_ text: String) -> (page: Int?, body: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let filled = lines.indices.filter { !TextClasses.trim(lines[$0]).isEmpty }
        guard !filled.isEmpty else { return (nil, text) }
        let ends = Array(filled.prefix(2)) + Array(filled.suffix(2)).reversed()
        // A bare number wins over a number beside a running title.
        for strict in [true, false] {
            for i in ends {
                if let n = number(in: TextClasses.trim(lines[i]), strict: strict) {
                    lines.remove(at: i)
                    return (n, TextClasses.trim(lines.joined(separator: "\n")))
                }
            }
        }
        return (nil, text)
    }

    static func number(in line: String, strict: Bool) -> Int? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard !words.isEmpty, words.count <= 10 else { return nil }
        func value(_ s: Substring) -> Int? {
            let digits = s.filter { !"-–—|·•.()[]".contains($0) }
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(digits), n >= 1 else { return nil }
            return n
        }
        let bare = words.filter { !$0.allSatisfy { "-–—|·•".contains($0) } }
        if bare.count == 1, let n = value(bare[0]) { return n }
        if bare.count == 2, ["page", "p.", "pg.", "p"].contains(bare[0].lowercased()), let n = value(bare[1]) { return n }
        if line.hasPrefix("第") && line.hasSuffix("页") {
            let inner = line.dropFirst().dropLast().filter { $0 != " " }
            if let n = Int(inner), n >= 1 { return n }
        }
        if strict { return nil }
        // A running header: the number first or last, beside words in capitals (a title).
        let letters = line.filter { $0.isLetter }
        guard letters.count >= 3, letters.allSatisfy({ $0.isUppercase || !$0.isCased }) else { return nil }
        if let n = value(words[0]) { return n }
        if let n = value(words[words.count - 1]) { return n }
        return nil
    }

    // MARK: - the span that matches --text

    struct Token { var key: String; var start: String.Index; var end: String.Index }

    /// Words (letters and digits, lower case) and CJK characters, with where they are in `text`.
    static func tokens(_ text: String) -> [Token] {
        var out: [Token] = []
        var i = text.startIndex
        func cjk(_ c: Character) -> Bool { c.unicodeScalars.first.map { $0.value >= 0x2E80 && $0.properties.isAlphabetic } ?? false }
        while i < text.endIndex {
            let c = text[i]
            if cjk(c) {
                let next = text.index(after: i)
                out.append(Token(key: String(c), start: i, end: next)); i = next; continue
            }
            if c.isLetter || c.isNumber {
                var j = i, key = ""
                while j < text.endIndex, !cjk(text[j]), text[j].isLetter || text[j].isNumber || text[j] == "'" || text[j] == "’" {
                    if text[j].isLetter || text[j].isNumber { key += text[j].lowercased() }
                    j = text.index(after: j)
                }
                out.append(Token(key: key, start: i, end: j)); i = j; continue
            }
            i = text.index(after: i)
        }
        return out
    }

    /// 0...1: how alike two words are (1 - edit distance / longer length).
    static func similarity(_ a: String, _ b: String) -> Double {
        if a == b { return 1 }
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if x.isEmpty || y.isEmpty { return 0 }
        var row = Array(0...y.count)
        for i in 1...x.count {
            var previous = row[0]
            row[0] = i
            for j in 1...y.count {
                let keep = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (x[i - 1] == y[j - 1] ? 0 : 1))
                previous = keep
            }
        }
        return 1 - Double(row[y.count]) / Double(max(x.count, y.count))
    }

    public struct Match: Sendable {
        public var text: String
        /// Share of the query's words found in the span (fuzzily).
        public var share: Double
    }

    /// The span of `text` that best matches `query`, by local alignment of words (a word
    /// counts when it is at least 70% alike), extended over the punctuation that closes it.
    /// Up to `count` matches that do not overlap, best first.
    public static func bestSpans(_ text: String, query: String, count: Int = 1) -> [Match] {
        let t = tokens(text), q = tokens(query)
        guard !t.isEmpty, !q.isEmpty else { return [] }
        let n = t.count, m = q.count
        var used = [Bool](repeating: false, count: n)
        var found: [Match] = []
        for _ in 0..<count {
            // score[i][j]: best alignment ending at text word i and query word j.
            var score = [[Double]](repeating: [Double](repeating: 0, count: m + 1), count: n + 1)
            var start = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
            var matched = [[Double]](repeating: [Double](repeating: 0, count: m + 1), count: n + 1)
            var best = (score: 0.0, i: 0, j: 0)
            for i in 1...n where !used[i - 1] {
                for j in 1...m {
                    let s = similarity(t[i - 1].key, q[j - 1].key)
                    let hit = s >= 0.7
                    var options: [(Double, Int, Double)] = [(0, i - 1, 0)]
                    let diagonal = score[i - 1][j - 1] + (hit ? 2 * s : -1)
                    options.append((diagonal, score[i - 1][j - 1] > 0 ? start[i - 1][j - 1] : i - 1, (score[i - 1][j - 1] > 0 ? matched[i - 1][j - 1] : 0) + (hit ? s : 0)))
                    // A word OCR split in two ("wo man's"), or two the reader's words that OCR ran together.
                    if i >= 2 && !used[i - 2] {
                        let s2 = similarity(t[i - 2].key + t[i - 1].key, q[j - 1].key)
                        if s2 >= 0.7 {
                            let before = score[i - 2][j - 1]
                            options.append((before + 2 * s2, before > 0 ? start[i - 2][j - 1] : i - 2, (before > 0 ? matched[i - 2][j - 1] : 0) + s2))
                        }
                    }
                    if j >= 2 {
                        let s2 = similarity(t[i - 1].key, q[j - 2].key + q[j - 1].key)
                        if s2 >= 0.7 {
                            let before = score[i - 1][j - 2]
                            options.append((before + 4 * s2, before > 0 ? start[i - 1][j - 2] : i - 1, (before > 0 ? matched[i - 1][j - 2] : 0) + 2 * s2))
                        }
                    }
                    options.append((score[i - 1][j] - 1, start[i - 1][j], matched[i - 1][j]))  // an extra word in the text
                    options.append((score[i][j - 1] - 1, start[i][j - 1], matched[i][j - 1]))  // a query word missing
                    let pick = options.max { $0.0 < $1.0 }!
                    score[i][j] = max(0, pick.0)
                    start[i][j] = pick.1
                    matched[i][j] = pick.0 > 0 ? pick.2 : 0
                    if score[i][j] > best.score { best = (score[i][j], i, j) }
                }
            }
            guard best.score > 0 else { break }
            let first = start[best.i][best.j], last = best.i - 1
            guard first <= last else { break }
            for k in first...last { used[k] = true }
            // The span: from its first word to its last, with the closing punctuation and quotes after it.
            var end = t[last].end
            while end < text.endIndex, ".,;:!?”’\"')»」』。，；：！？…".contains(text[end]) { end = text.index(after: end) }
            var begin = t[first].start
            if begin > text.startIndex, "“\"‘«「『(".contains(text[text.index(before: begin)]) { begin = text.index(before: begin) }
            let span = String(text[begin..<end])
            found.append(Match(text: collapse(span), share: min(1, matched[best.i][best.j] / Double(m))))
        }
        return found
    }

    /// A whole passage: paragraphs kept (a blank line between them), lines joined.
    public static func passage(_ s: String) -> String {
        s.split(separator: "\n\n", omittingEmptySubsequences: false).map { collapse(String($0)) }.filter { !$0.isEmpty }.joined(separator: "\n\n")
    }

    /// Line breaks inside a passage become spaces (none between Chinese characters).
    static func collapse(_ s: String) -> String {
        var out = ""
        var pending = false
        for c in s {
            if c == " " || c == "\n" || c == "\t" { pending = !out.isEmpty; continue }
            if pending {
                let cjkBoth = (out.last.map { $0.unicodeScalars.first!.value >= 0x2E80 } ?? false) && c.unicodeScalars.first!.value >= 0x2E80
                if !cjkBoth { out.append(" ") }
                pending = false
            }
            out.append(c)
        }
        return out
    }
}
