// Fuzzy book-title matching shared by ib-capture, ib-index's BOOK lookup and
// ib-search --book. Pure Swift, no Foundation.
//
// It tolerates case, accents, typos, leading articles ("The", "Le", "Der"...),
// partial titles, 《》 and other brackets, subtitles and mixed-language titles
// ("人类简史 Sapiens"). Its one hard rule: never return a wrong book. An exact
// (normalized) title wins outright, so "Meditations" picks Meditations over
// "Meditations on First Philosophy"; when two books match about equally the
// result is `.ambiguous` with the candidates, and the caller must ask for more.

public struct TitleMatcher: Sendable {
    /// One book the matcher can choose.
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var title: String
        public var authors: [String]
        public init(id: String, title: String, authors: [String] = []) {
            self.id = id; self.title = title; self.authors = authors
        }
    }

    /// A scored candidate. `score` is in 0...1 for fuzzy matches, 1.5 for an exact main-title
    /// (or alternative-title) match, 2 for an exact full-title match.
    public struct Match: Sendable, Equatable {
        public var entry: Entry
        public var score: Double
        /// How much of the query it covers (0...1), and whether the whole title was
        /// matched word for word (no prefix-only words).
        var queryCoverage = 1.0
        var complete = true
        public var id: String { entry.id }
        public var title: String { entry.title }
    }

    public enum Result: Sendable, Equatable {
        /// Exactly one book fits.
        case unique(Match)
        /// Several books fit about equally; best first. Nothing should be written.
        case ambiguous([Match])
        /// No book fits; `suggestions` holds weak near-misses (maybe empty), best first.
        case none(suggestions: [Match])

        public var unique: Match? { if case .unique(let m) = self { return m }; return nil }
        public var candidates: [Match] {
            switch self {
            case .unique(let m): return [m]
            case .ambiguous(let ms): return ms
            case .none(let ms): return ms
            }
        }
    }

    /// Fuzzy scores closer than this to the best are "about equal": ambiguous.
    public var ambiguityMargin = 0.12
    /// A fuzzy match needs at least this score.
    public var minimumScore = 0.45

    private struct Prepared: Sendable {
        var entry: Entry
        var full: [Token]          // all title tokens, article dropped
        var variants: [[Token]]    // main title, alternative titles, per-script parts
        var content: [Token]       // non-stopword title tokens (for coverage)
        var authorTokens: [Token]
        var compacts: [(text: [Unicode.Scalar], whole: Bool)]  // titles and their first words without spaces ("mobydick")
    }

    private let prepared: [Prepared]
    /// The entries by their whole title's tokens: an exact title is found without
    /// scoring every book (a plan of 400 titles resolves in linear time).
    private let byFullTitle: [String: [Int]]

    static func key(_ tokens: [Token]) -> String {
        tokens.map { String(String.UnicodeScalarView($0.text)) }.joined(separator: "\u{1F}")
    }

    public init(_ entries: [Entry]) {
        let prepared: [Prepared] = entries.map { entry in
            let full = TitleMatcher.tokens(entry.title)
            var variants: [[Token]] = []
            for part in TitleMatcher.alternativeTitles(entry.title) {
                let t = TitleMatcher.tokens(part)
                if !t.isEmpty && t != full && !variants.contains(t) { variants.append(t) }
            }
            var content = full.filter { !$0.isStopword }
            if content.isEmpty { content = full }
            let authors = entry.authors.flatMap { TitleMatcher.tokens($0, dropArticle: false) }.filter { !$0.isStopword }
            let compacts = ([full] + variants).flatMap { title in
                (min(2, title.count)...max(title.count, 1)).map { (TitleMatcher.compact(Array(title.prefix($0))), $0 == title.count) }
            }.filter { $0.0.count >= 6 }
            return Prepared(entry: entry, full: full, variants: variants, content: content, authorTokens: authors, compacts: compacts)
        }
        var byFullTitle: [String: [Int]] = [:]
        for (i, p) in prepared.enumerated() where !p.full.isEmpty { byFullTitle[Self.key(p.full), default: []].append(i) }
        self.prepared = prepared
        self.byFullTitle = byFullTitle
    }

    public init(titles: [(id: String, title: String)]) {
        self.init(titles.map { Entry(id: $0.id, title: $0.title) })
    }

    /// All candidates that fit at all, best first.
    public func scored(_ query: String) -> [Match] {
        let q = TitleMatcher.tokens(query)
        guard !q.isEmpty else { return [] }
        var qContent = q.filter { !$0.isStopword }
        if qContent.isEmpty { qContent = q }
        var out: [Match] = []
        for p in prepared {
            if let s = score(q, qContent, p) { out.append(Match(entry: p.entry, score: s.0, queryCoverage: s.1, complete: s.2)) }
        }
        out.sort { $0.score != $1.score ? $0.score > $1.score : $0.entry.title.count < $1.entry.title.count }
        return out
    }

    /// The books whose authors' names hold every word of `query` ("melville",
    /// "herman melville"), a small typo allowed; for BOOK on a command line
    /// when no title fits (the titles' own matching never picks by author alone).
    public func byAuthor(_ query: String) -> [Entry] {
        let words = TitleMatcher.tokens(query, dropArticle: false).filter { !$0.isStopword && !$0.isCJK }
        guard !words.isEmpty else { return [] }
        return prepared.filter { p in
            words.allSatisfy { w in p.authorTokens.contains { TitleMatcher.similar(w, $0) >= 0.85 } }
        }.map(\.entry)
    }

    /// Resolves `query` to one book, several (ambiguous) or none. `author`, when
    /// given, breaks ties between equally good titles.
    public func match(_ query: String, author: String? = nil) -> Result {
        // One book whose whole title is the query: the exact tier (2.0) has no rival.
        if let hits = byFullTitle[Self.key(TitleMatcher.tokens(query))], hits.count == 1, prepared[hits[0]].full == TitleMatcher.tokens(query) {
            return .unique(Match(entry: prepared[hits[0]].entry, score: 2.0))
        }
        let all = scored(query)
        var fits = all.filter { $0.score >= minimumScore }
        guard let best = fits.first else {
            return .none(suggestions: Array(all.prefix(5)))
        }
        if best.score >= 1.5 {
            // Exact matches beat every fuzzy one; only another exact match of the same tier competes.
            fits = fits.filter { $0.score == best.score }
        } else {
            // A partial query (a prefix, or only some of the title's words) does not prefer
            // the shorter title: every book it covers as well is a candidate.
            fits = fits.filter { best.score - $0.score < ambiguityMargin || (!best.complete && $0.queryCoverage >= best.queryCoverage - 0.05) }
        }
        if fits.count > 1, let author, !author.isEmpty {
            let a = TitleMatcher.tokens(author, dropArticle: false).filter { !$0.isStopword }
            let byAuthor = fits.filter { m in
                let p = prepared.first { $0.entry == m.entry }!
                return !a.isEmpty && a.allSatisfy { t in p.authorTokens.contains { TitleMatcher.similar(t, $0) > 0 } }
            }
            if byAuthor.count >= 1 { fits = byAuthor }
        }
        return fits.count == 1 ? .unique(fits[0]) : .ambiguous(fits)
    }

    // MARK: scoring

    private func score(_ q: [Token], _ qContent: [Token], _ p: Prepared) -> (Double, Double, Bool)? {
        if q == p.full { return (2.0, 1, true) }
        for v in p.variants where q == v { return (1.5, 1, true) }
        return wordScore(q, qContent, p) ?? compactScore(q, p)
    }

    /// Word by word: every content word of the query must find a title (or author) word.
    private func wordScore(_ q: [Token], _ qContent: [Token], _ p: Prepared) -> (Double, Double, Bool)? {
        var prefixOnly = false
        // Fuzzy: every content token of the query must find a title (or author) token.
        var used = [Bool](repeating: false, count: p.content.count)
        var usedAuthor = [Bool](repeating: false, count: p.authorTokens.count)
        var quality = 0.0
        var unmatched = 0
        var cjkQuery = 0
        for t in qContent {
            if t.isCJK { cjkQuery += 1 }
            var bestIndex = -1, bestQ = 0.0
            for (i, c) in p.content.enumerated() where !used[i] {
                let s = TitleMatcher.similar(t, c)
                if s > bestQ { bestQ = s; bestIndex = i; if s == 1 { break } }
            }
            if bestIndex >= 0 {
                used[bestIndex] = true
                if bestQ < 0.8 { prefixOnly = true }
                quality += bestQ
                continue
            }
            var authorIndex = -1
            for (i, c) in p.authorTokens.enumerated() where !usedAuthor[i] {
                let s = TitleMatcher.similar(t, c)
                if s > bestQ { bestQ = s; authorIndex = i; if s == 1 { break } }
            }
            if authorIndex >= 0 {
                usedAuthor[authorIndex] = true
                quality += bestQ * 0.9
            } else {
                unmatched += 1
            }
        }
        // A typo that breaks a whole word is forgiven only in long queries; a wrong
        // CJK character only when the query has 4 or more of them.
        let allowed = (qContent.count - cjkQuery >= 5 ? 1 : 0) + (cjkQuery >= 4 ? 1 : 0)
        if unmatched > min(allowed, 1) { return nil }
        let titleMatched = used.filter { $0 }.count
        if titleMatched == 0 { return nil }   // authors alone never pick a book
        let qCov = quality / Double(qContent.count)
        let tCov = Double(titleMatched) / Double(p.content.count)
        // Main-title coverage helps "Sapiens" find "Sapiens: A Brief History of Humankind".
        var vCov = 0.0
        for v in p.variants {
            let vc = v.filter { !$0.isStopword }
            guard !vc.isEmpty else { continue }
            var hits = 0
            for c in vc where qContent.contains(where: { TitleMatcher.similar($0, c) > 0 }) { hits += 1 }
            vCov = max(vCov, Double(hits) / Double(vc.count))
        }
        let complete = !prefixOnly && unmatched == 0 && (tCov >= 0.999 || vCov >= 0.999)
        return (0.55 * qCov + 0.45 * max(tCov, vCov * 0.9), qCov, complete)
    }

    /// "mobydick" and "moby dik" for "Moby Dick": the query's letters run
    /// together against the title's, a typo or two allowed in 8+ letters
    /// (one in 6 or 7). Only for Latin titles, and only when the words differ.
    private func compactScore(_ q: [Token], _ p: Prepared) -> (Double, Double, Bool)? {
        guard !q.contains(where: \.isCJK) else { return nil }
        let query = TitleMatcher.compact(q)
        var best: (Double, Double, Bool)? = nil
        for (title, whole) in p.compacts {
            var score = 0.0
            if query == title {
                score = whole ? 0.95 : 0.85
            } else {
                let allowed = min(query.count, title.count) >= 8 ? 2 : 1
                if query.count >= 6, abs(query.count - title.count) <= allowed, query.first == title.first,
                   TitleMatcher.editDistance(query, title, limit: allowed) <= allowed {
                    score = whole ? 0.9 : 0.8
                }
            }
            if score > (best?.0 ?? 0) { best = (score, 1, whole) }
        }
        return best
    }

    static func compact(_ tokens: [Token]) -> [Unicode.Scalar] { tokens.flatMap(\.text) }

    // MARK: tokens

    struct Token: Sendable, Equatable {
        var text: [Unicode.Scalar]
        var isCJK: Bool
        var isNumber: Bool
        var isStopword: Bool
        init(text: [Unicode.Scalar], isCJK: Bool, isNumber: Bool) {
            self.text = text; self.isCJK = isCJK; self.isNumber = isNumber
            isStopword = !isCJK && text.count <= 4 && TitleMatcher.stopwordScalars.contains(text)
        }
        static func == (a: Token, b: Token) -> Bool { a.text == b.text }
    }

    /// 1 for the same token, 0.85 for a small typo, 0.7 for a prefix, 0 for different.
    static func similar(_ a: Token, _ b: Token) -> Double {
        if a.text == b.text { return 1 }
        if a.isCJK || b.isCJK || a.isNumber || b.isNumber { return 0 }
        let la = a.text.count, lb = b.text.count
        if la >= 3 && la < lb {
            var isPrefix = true
            for i in 0..<la where a.text[i] != b.text[i] { isPrefix = false; break }
            if isPrefix { return 0.7 }
        }
        let shorter = min(la, lb)
        let allowed = shorter >= 8 ? 2 : (shorter >= 4 ? 1 : 0)
        if allowed == 0 || abs(la - lb) > allowed { return 0 }
        // A typo at the very first letter is rare enough to keep short words apart.
        if shorter < 6 && a.text[0] != b.text[0] { return 0 }
        return editDistance(a.text, b.text, limit: allowed) <= allowed ? 0.85 : 0
    }

    /// Damerau-Levenshtein (optimal string alignment), stopping early past `limit`.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        let n = a.count, m = b.count
        if n == 0 { return m }
        if m == 0 { return n }
        var prev2 = [Int](repeating: 0, count: m + 1)
        var prev = Array(0...m)
        var cur = [Int](repeating: 0, count: m + 1)
        for i in 1...n {
            cur[0] = i
            var rowMin = cur[0]
            for j in 1...m {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] { v = min(v, prev2[j - 2] + 1) }
                cur[j] = v
                rowMin = min(rowMin, v)
            }
            if rowMin > limit { return limit + 1 }
            (prev2, prev, cur) = (prev, cur, prev2)
        }
        return prev[m]
    }

    static let articleScalars: Set<[Unicode.Scalar]> = Set(articles.map { Array($0.unicodeScalars) })
    static let articles: Set<String> = [
        "the", "a", "an", "le", "la", "les", "l", "un", "une", "der", "die", "das", "ein", "eine",
        "el", "los", "las", "il", "lo", "gli", "uno", "una", "o", "os", "as", "het", "de",
    ]
    static let stopwordScalars: Set<[Unicode.Scalar]> = Set(stopwords.map { Array($0.unicodeScalars) })
    static let stopwords: Set<String> = [
        "the", "a", "an", "of", "and", "on", "in", "to", "for", "with", "at", "by", "from", "or", "s",
        "le", "la", "les", "l", "un", "une", "de", "du", "des", "et", "d", "der", "die", "das", "und",
        "von", "zu", "ein", "eine", "el", "los", "las", "y", "il", "lo", "di", "e",
    ]

    /// Splits a title into normalized tokens: lower case, no accents, no
    /// punctuation, each CJK character its own token, leading article dropped.
    static func tokens(_ text: String, dropArticle: Bool = true) -> [Token] {
        var out: [Token] = []
        var current: [Unicode.Scalar] = []
        var digits = true
        func flush() {
            if !current.isEmpty { out.append(Token(text: current, isCJK: false, isNumber: digits)) }
            current.removeAll(keepingCapacity: true)
            digits = true
        }
        // ASCII titles (most of them) take a path without Unicode property lookups.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            let bytes = Array(text.utf8)
            for (index, b) in bytes.enumerated() {
                if b >= 0x61 && b <= 0x7A || b >= 0x30 && b <= 0x39 {
                    if b > 0x39 { digits = false }
                    current.append(Unicode.Scalar(b))
                } else if b >= 0x41 && b <= 0x5A {
                    digits = false
                    current.append(Unicode.Scalar(b + 0x20))
                } else if b == 0x27, !current.isEmpty, index + 1 < bytes.count, bytes[index + 1] | 0x20 == 0x73,
                          index + 2 == bytes.count || !(bytes[index + 2] | 0x20 >= 0x61 && bytes[index + 2] | 0x20 <= 0x7A) {
                    continue  // "Man's" -> "mans"
                } else {
                    flush()
                }
            }
            flush()
            if dropArticle, out.count > 1, articleScalars.contains(out[0].text) { out.removeFirst() }
            return out
        }
        let all = Array(text.unicodeScalars)
        for (index, raw) in all.enumerated() {
            // "Man's" -> "mans", but "L'Étranger" -> "l", "etranger".
            if raw == "'" || raw == "\u{2019}", !current.isEmpty, index + 1 < all.count, all[index + 1] == "s" || all[index + 1] == "S",
               index + 2 == all.count || !all[index + 2].properties.isAlphabetic {
                continue
            }
            for s in fold(raw) {
                if s.value < 0x80 {
                    let v = s.value
                    if v >= 0x61 && v <= 0x7A || v >= 0x30 && v <= 0x39 {
                        if v > 0x39 { digits = false }
                        current.append(s)
                    } else {
                        flush()
                    }
                } else if isCJK(s) {
                    flush()
                    out.append(Token(text: [s], isCJK: true, isNumber: false))
                } else if s.properties.isAlphabetic || s.properties.numericType != nil {
                    if !(s.value >= 0x30 && s.value <= 0x39) { digits = false }
                    current.append(s)
                } else if s.properties.generalCategory == .nonspacingMark {
                    continue
                } else {
                    flush()
                }
            }
        }
        flush()
        if dropArticle, out.count > 1, !out[0].isCJK, articleScalars.contains(out[0].text) {
            out.removeFirst()
        }
        return out
    }

    /// The normalized form of a title, for display and keys: tokens joined by spaces.
    public static func normalize(_ text: String) -> String {
        var s = ""
        var lastCJK = false
        for (i, t) in tokens(text).enumerated() {
            if i > 0 && !(t.isCJK && lastCJK) { s += " " }
            s.unicodeScalars.append(contentsOf: t.text)
            lastCJK = t.isCJK
        }
        return s
    }

    static func isCJK(_ s: Unicode.Scalar) -> Bool { TextClasses.isCJK(s.value) }

    /// Lower case, accents removed, full-width forms made ASCII.
    static func fold(_ s: Unicode.Scalar) -> [Unicode.Scalar] {
        let v = s.value
        if v < 0x80 {
            if v >= 0x41 && v <= 0x5A { return [Unicode.Scalar(v + 0x20)!] }
            return [s]
        }
        if v >= 0xFF01 && v <= 0xFF5E { return fold(Unicode.Scalar(v - 0xFEE0)!) }
        if v >= 0x0300 && v <= 0x036F { return [] }
        if let base = accentTable[v] { return Array(base.unicodeScalars) }
        let lower = s.properties.lowercaseMapping
        if lower.unicodeScalars.count == 1, let l = lower.unicodeScalars.first, l != s {
            if let base = accentTable[l.value] { return Array(base.unicodeScalars) }
            return [l]
        }
        return [s]
    }

    static let accentTable: [UInt32: String] = {
        var t: [UInt32: String] = [:]
        let groups: [(String, String)] = [
            ("a", "àáâãäåāăąǎÀÁÂÃÄÅĀĂĄǍ"), ("c", "çćĉċčÇĆĈĊČ"), ("d", "ďđÐðĎĐ"),
            ("e", "èéêëēĕėęěÈÉÊËĒĔĖĘĚ"), ("g", "ĝğġģĜĞĠĢ"), ("h", "ĥħĤĦ"),
            ("i", "ìíîïĩīĭįıÌÍÎÏĨĪĬĮİ"), ("j", "ĵĴ"), ("k", "ķĶ"), ("l", "ĺļľŀłĹĻĽĿŁ"),
            ("n", "ñńņňÑŃŅŇ"), ("o", "òóôõöøōŏőǒÒÓÔÕÖØŌŎŐǑ"), ("r", "ŕŗřŔŖŘ"),
            ("s", "śŝşšșŚŜŞŠȘ"), ("t", "ţťŧțŢŤŦȚ"), ("u", "ùúûüũūŭůűųǔÙÚÛÜŨŪŬŮŰŲǓ"),
            ("w", "ŵŴ"), ("y", "ýÿŷÝŸŶ"), ("z", "źżžŹŻŽ"),
            ("ss", "ß"), ("ae", "æÆ"), ("oe", "œŒ"), ("th", "þÞ"),
        ]
        for (base, chars) in groups { for c in chars.unicodeScalars { t[c.value] = base } }
        return t
    }()

    /// Other names a title goes by: the main title before a subtitle, a name in
    /// brackets or parentheses, and each script's part of a mixed-language title.
    static func alternativeTitles(_ title: String) -> [String] {
        var out: [String] = []
        // Most titles have none of the marks below: nothing to do.
        if title.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x3A && $0 != 0x28 && $0 != 0x5B && $0 != 0x7C && $0 != 0x2D }) { return out }
        let scalars = Array(title.unicodeScalars)
        // Main title: up to ':', '：', ' - ', ' — ', '(' or '（'.
        var main: [Unicode.Scalar] = []
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == ":" || c == "：" || c == "(" || c == "（" || c == "[" || c == "—" || c == "–" || c == "|" { break }
            if c == "-" && i > 0 && scalars[i - 1] == " " && i + 1 < scalars.count && scalars[i + 1] == " " { break }
            main.append(c)
            i += 1
        }
        if !main.isEmpty && main.count < scalars.count { out.append(String(String.UnicodeScalarView(main))) }
        // Bracketed parts: (…), （…）, 《…》, [...]
        let pairs: [(Unicode.Scalar, Unicode.Scalar)] = [("(", ")"), ("（", "）"), ("《", "》"), ("[", "]"), ("「", "」")]
        for (open, close) in pairs {
            var inside: [Unicode.Scalar]? = nil
            for c in scalars {
                if c == open { inside = [] } else if c == close, let part = inside {
                    if !part.isEmpty { out.append(String(String.UnicodeScalarView(part))) }
                    inside = nil
                } else if inside != nil { inside!.append(c) }
            }
        }
        // Subtitle after a colon, e.g. the Chinese title in "Sapiens: 人类简史".
        if let colon = scalars.firstIndex(where: { $0 == ":" || $0 == "：" }) {
            let rest = String(String.UnicodeScalarView(scalars[(colon + 1)...]))
            let hasCJK = rest.unicodeScalars.contains(where: isCJK)
            let mainHasCJK = main.contains(where: isCJK)
            if hasCJK != mainHasCJK { out.append(rest) }
        }
        // Mixed scripts: "人类简史 Sapiens" -> "人类简史", "Sapiens".
        var cjkPart: [Unicode.Scalar] = [], latinPart: [Unicode.Scalar] = []
        if !scalars.contains(where: isCJK) { return out }
        for c in scalars {
            if isCJK(c) { cjkPart.append(c) } else if c.properties.isAlphabetic || c == " " || c.properties.numericType != nil { latinPart.append(c) } else { latinPart.append(" ") }
        }
        let latinText = String(String.UnicodeScalarView(latinPart))
        if !cjkPart.isEmpty && !tokens(latinText).isEmpty {
            out.append(String(String.UnicodeScalarView(cjkPart)))
            out.append(latinText)
        }
        return out
    }
}
