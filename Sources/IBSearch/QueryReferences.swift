// What a question says about WHEN and WHERE in a book its moment lies, read
// from its words: dates ("on the 4th of May", "in the spring of 1834",
// "Christmas Eve", "February 1714-15"), numbered parts ("chapter 12", "the
// third chapter", "Act 3, scene 2", "in 3.3", "Book Two"), a place in the book ("near
// the end", "at the start") and words quoted exactly ("To be, or not to be").
//
// Readers who know a book name its moments this way far more than they echo
// its words; the structure focus (StructureFocus) matches these references
// against the book's sections, and the search ranks what lies inside them
// higher. A misread reference only narrows where the search looks harder,
// never what it may return.
import IBCore

/// A span of the calendar a question names.
public struct DateReference: Sendable, Equatable {
    /// The years it allows (nil: any year).
    public var years: ClosedRange<Int>?
    /// Month-day span as mmdd (101...1231); from > to wraps the year's end
    /// (winter, New Year). nil: the whole year (a year alone).
    public var from: Int?
    public var to: Int?
    /// A day of the month with no month ("on the 17th").
    public var day: Int?
    /// A single day was named: a precise reference.
    public var precise: Bool
    /// A year counted in the book ("the second year", "his last year"): the
    /// n-th (1-based; -1 the last) of the years its dated sections carry, which
    /// the focus reads per book (StructureFocus.resolved); nil: none.
    public var yearOfBook: Int? = nil
}

/// One step of a numbered-part reference: "Act 3" is (act, 3); `number` -1 is "the last".
public struct PartStep: Sendable, Equatable {
    public var kind: String
    public var number: Int
}

public struct QueryReferences: Sendable, Equatable {
    public var dates: [DateReference] = []
    /// Paths of numbered parts, outermost first ("Act 3, scene 2" is one path of two steps).
    public var parts: [[PartStep]] = []
    /// Where in the book (or in the named part) as fractions of it, when the question says.
    public var position: ClosedRange<Double>? = nil
    /// Runs of words the question quotes exactly, in double quotation marks.
    public var phrases: [String] = []
    /// Quoted runs that may be a section's title ("In 'The Candles'", "in
    /// \u{201C}Economy\u{201D}"): in single or double quotation marks, one to eight words.
    public var quotedTitles: [String] = []

    public var isEmpty: Bool { dates.isEmpty && parts.isEmpty && position == nil && phrases.isEmpty && quotedTitles.isEmpty }

    /// The words that name a kind of part, and the kind each names; a collection's
    /// numbered poems are its chapters ("Sonnet 18", "the third poem", "Psalm XXIII").
    static let partKinds: [String: String] = [
        "chapter": "chapter", "chapters": "chapter", "chap": "chapter", "ch": "chapter",
        "act": "act", "scene": "scene", "book": "book", "part": "part", "volume": "volume", "vol": "volume",
        "canto": "canto", "stave": "stave", "letter": "letter", "section": "section", "essay": "chapter",
    ].merging(PartWords.numberedPoems.map { ($0, "chapter") }) { a, _ in a }
    /// Words before a month that make a month of an ambiguous word ("in May", "of March").
    static let monthContext: Set<String> = [
        "in", "of", "early", "late", "mid", "during", "since", "until", "till", "throughout", "through", "from", "between",
        "end", "beginning", "start", "middle", "by", "last", "next", "that", "this", "whole",
    ]
    /// Words after which "fall" is the season, not the verb.
    static let fallContext: Set<String> = ["the", "that", "this", "last", "next", "in", "of", "early", "late"]
    /// Kinds of whole work a position may refer to ("near the end of the book").
    static let workWords: Set<String> = ["book", "novel", "story", "play", "journal", "diary", "text", "volume", "work", "voyage"]

    /// Reads `text`'s references.
    public static func parse(_ text: String) -> QueryReferences {
        var out = QueryReferences()
        out.phrases = quotedPhrases(text)
        out.quotedTitles = quotedRuns(text, maxWords: 8)
        let cased = casedTokens(text)
        let words = cased.map(\.word)
        var i = 0
        var path: [PartStep] = []
        while i < words.count {
            if let (date, next) = date(words, at: i) {
                let (range, after) = monthRange(date, words, at: i, next: next) ?? (date, next)
                out.dates.append(range); i = after; continue
            }
            if let (step, next) = part(words, at: i) ?? titledPart(cased, at: i) {
                if path.contains(where: { $0.kind == step.kind }) { out.parts.append(path); path = [] }
                // Outermost first, however it was said: "the last scene of the second act".
                let at = path.firstIndex(where: { depth($0.kind) > depth(step.kind) }) ?? path.count
                path.insert(step, at: at); i = next; continue
            }
            if out.position == nil, let (range, next) = position(words, at: i) {
                out.position = range; i = next; continue
            }
            i += 1
        }
        if !path.isEmpty { out.parts.append(path) }
        out.parts += actScenes(text)
        out.parts += countedParts(text)
        // Dates written the Chinese way: "5月4日", "五月初", "1834年春天", "圣诞节".
        for d in CJKDates.find(text) {
            out.dates.append(DateReference(years: d.years, from: d.from, to: d.to, day: nil, precise: d.precise))
        }
        return out
    }

    /// A Chinese question's counted parts ("第十二章里", "第三幕第二场", "最后一章"):
    /// parts side by side (or one character apart) are one path, outermost first.
    static func countedParts(_ text: String) -> [[PartStep]] {
        var paths: [[PartStep]] = []
        var path: [PartStep] = []
        var end = 0
        for part in CJKNumerals.countedParts(text) {
            let step = PartStep(kind: part.kind, number: part.number)
            if !path.isEmpty && (part.range.lowerBound > end + 1 || path.contains { $0.kind == step.kind }) {
                paths.append(path); path = []
            }
            path.insert(step, at: path.firstIndex(where: { depth($0.kind) > depth(step.kind) }) ?? path.count)
            end = part.range.upperBound
        }
        if !path.isEmpty { paths.append(path) }
        return paths
    }

    /// How deep a kind of part sits: a volume holds books, a book parts, a part
    /// chapters or acts, an act scenes.
    static func depth(_ kind: String) -> Int {
        switch kind {
        case "volume": return 0
        case "book": return 1
        case "part": return 2
        case "act", "chapter", "canto", "stave", "letter": return 3
        default: return 4
        }
    }

    /// A play's act and scene in the dotted form readers and editions use: "in
    /// 3.3", "(III.ii)", "at 1.5.82" (the line is dropped). Both numbers at most
    /// 20, so a decimal of a play read this way names a scene no book has, and a
    /// reference that matches nothing changes nothing.
    static func actScenes(_ text: String) -> [[PartStep]] {
        var out: [[PartStep]] = []
        let edges: Set<Character> = [",", ";", ":", "?", "!", "(", ")", "[", "]", "\"", "'", "\u{201C}", "\u{201D}", "\u{2018}", "\u{2019}"]
        for piece in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
            var trimmed = piece[...]
            while let c = trimmed.first, edges.contains(c) { trimmed = trimmed.dropFirst() }
            while let c = trimmed.last, edges.contains(c) { trimmed = trimmed.dropLast() }
            if trimmed.last == "." { trimmed = trimmed.dropLast() }   // the sentence's full stop
            let numbers = trimmed.split(separator: ".", omittingEmptySubsequences: false)
            // A third number is a line ("1.5.82").
            guard numbers.count == 2 || numbers.count == 3 && !numbers[2].isEmpty && numbers[2].allSatisfy(\.isNumber) else { continue }
            guard let act = actOrScene(numbers[0]), let scene = actOrScene(numbers[1]) else { continue }
            out.append([PartStep(kind: "act", number: act), PartStep(kind: "scene", number: scene)])
        }
        return out
    }

    /// An act or scene number: 1 to 20, in digits or roman numerals.
    static func actOrScene(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 5 else { return nil }
        let n = text.allSatisfy(\.isNumber) ? Int(text) : CalendarWords.roman(String(text).lowercased())
        guard let n, (1...20).contains(n) else { return nil }
        return n
    }

    // MARK: words

    /// Lowercased words with apostrophes and hyphens kept inside them ("year's",
    /// "twenty-first", "1714-15"; curly apostrophes folded), each with whether it
    /// was written with a capital ("Book the Second" is a part; "the book the
    /// second time" is not). A qualifier or a month joined by a hyphen reads as
    /// two words: "mid-June", "late-1665", "May-day".
    static func casedTokens(_ text: String) -> [(word: String, capital: Bool)] {
        var out: [(word: String, capital: Bool)] = []
        var current = ""
        var capital = false
        func flush() {
            guard !current.isEmpty else { return }
            for (k, piece) in splitJoined(current.lowercased()).enumerated() { out.append((piece, capital && k == 0)) }
            current = ""
        }
        let scalars = Array(text.unicodeScalars)
        for (i, s) in scalars.enumerated() {
            let joiner = s == "'" || s == "\u{2019}" || s == "-" || s == "\u{2013}"
            if TextClasses.isWordScalar(s) {
                if current.isEmpty { capital = s.properties.isUppercase }
                current.unicodeScalars.append(s)
            } else if joiner, !current.isEmpty, i + 1 < scalars.count,
                      TextClasses.isWordScalar(scalars[i + 1]) {
                current.unicodeScalars.append(s == "\u{2019}" ? "'" : (s == "\u{2013}" ? "-" : s))
            } else {
                flush()
            }
        }
        flush()
        return out
    }

    /// "mid-june" -> "mid", "june"; "may-day" -> "may", "day"; other words whole.
    static func splitJoined(_ word: String) -> [String] {
        guard let dash = word.firstIndex(of: "-") else { return [word] }
        let head = String(word[..<dash]), tail = String(word[word.index(after: dash)...])
        if qualifiers.contains(head), CalendarWords.months[tail] != nil || CalendarWords.seasons[tail] != nil || year(tail) != nil {
            return [head, tail]
        }
        if CalendarWords.months[head] != nil, tail == "day" { return [head, tail] }
        // "May-July" (an en dash folded): a range of months, read as "May to July".
        if CalendarWords.months[head] != nil, CalendarWords.months[tail] != nil { return [head, "to", tail] }
        return [word]
    }

    /// Words that name a third of a month or season written before it ("mid-June", "early May").
    static let qualifiers: Set<String> = ["early", "mid", "late"]

    /// Words between the two months of a range ("from June to August", "between May and July").
    static let rangeWords: Set<String> = ["to", "and", "till", "until", "through", "thru"]

    /// "from June to August 1665", "between May and July", "May-July 1665": one span
    /// from the first month (`first`, read at word `i`, ending before `next`) to the
    /// second; the year given once counts for both. A range across a year's end
    /// ("from November to February 1666") reaches back into the year before. Nil
    /// when `first` is not a month that opens such a range.
    static func monthRange(_ first: DateReference, _ w: [String], at i: Int, next: Int) -> (DateReference, Int)? {
        // "from early June to late August": a third before either month.
        let openingAt = qualifiers.contains(word(w, i - 1)) ? i - 2 : i - 1
        let secondAt = qualifiers.contains(word(w, next + 1)) ? next + 2 : next + 1
        guard let from = first.from, first.day == nil, !first.precise, first.yearOfBook == nil,
              rangeWords.contains(word(w, next)), CalendarWords.months[word(w, secondAt)] != nil,
              ["from", "between"].contains(word(w, openingAt)) || (word(w, next) == "to" && first.years == nil) else { return nil }
        guard let (second, after) = monthDate(w, at: secondAt, inRange: true), !second.precise,
              let to = second.to, second.yearOfBook == nil else { return nil }
        var years = first.years ?? second.years
        if let a = first.years, let b = second.years { years = min(a.lowerBound, b.lowerBound)...max(a.upperBound, b.upperBound) }
        else if from > to, let y = years {
            years = first.years != nil ? y.lowerBound...(y.upperBound + 1) : (y.lowerBound - 1)...y.upperBound
        }
        return (DateReference(years: years, from: from, to: to, day: nil, precise: false), after)
    }

    /// Text between quotation marks, single or double, straight or curly, of one
    /// to `maxWords` words. A quote opens after a space, an opening bracket or the
    /// start, and closes before a space, punctuation or the end, so the
    /// apostrophes of "Hamlet's" and "don't" open and close nothing.
    static func quotedRuns(_ text: String, maxWords: Int) -> [String] {
        let opening: Set<Character> = ["\"", "'", "\u{201C}", "\u{2018}"]
        let closing: [Character: Set<Character>] = ["\"": ["\""], "'": ["'"], "\u{201C}": ["\u{201D}", "\""], "\u{2018}": ["\u{2019}", "'"]]
        let chars = Array(text)
        var out: [String] = []
        var i = 0
        while i < chars.count {
            let c = chars[i]
            let opens = opening.contains(c) && (i == 0 || chars[i - 1] == " " || chars[i - 1] == "(" || chars[i - 1] == "[")
            guard opens, let ends = closing[c] else { i += 1; continue }
            var j = i + 1
            while j < chars.count {
                if ends.contains(chars[j]), j + 1 == chars.count || !(chars[j + 1].isLetter || chars[j + 1].isNumber) { break }
                j += 1
            }
            guard j < chars.count else { break }
            let run = TextClasses.trim(String(chars[(i + 1)..<j]))
            let count = run.split(whereSeparator: { $0 == " " }).count
            if count >= 1 && count <= maxWords { out.append(run) }
            i = j + 1
        }
        return out
    }

    /// Text between double quotation marks ("..." or curly), at least two words each.
    static func quotedPhrases(_ text: String) -> [String] {
        var out: [String] = []
        var inside: String? = nil
        for c in text {
            if c == "\"" || c == "\u{201C}" || c == "\u{201D}" {
                if let run = inside {
                    if run.split(whereSeparator: { $0 == " " }).count >= 2 { out.append(TextClasses.trim(run)) }
                    inside = nil
                } else {
                    inside = ""
                }
            } else if inside != nil {
                inside!.append(c)
            }
        }
        return out
    }

    static func word(_ words: [String], _ i: Int) -> String { i >= 0 && i < words.count ? words[i] : "" }

    /// A day of the month: "4", "4th", "fourth", "twenty-first" (1...31).
    static func dayNumber(_ word: String) -> Int? {
        guard let n = CalendarWords.number(word, romanAllowed: false), (1...31).contains(n) else { return nil }
        return n
    }

    /// A year as books print it: 1000...2099, or an Old Style double year "1714-15" (both years).
    static func year(_ word: String) -> ClosedRange<Int>? {
        let parts = word.split(separator: "-")
        guard let first = parts.first, first.count == 4, let y = Int(first), (1000...2099).contains(y) else { return nil }
        if parts.count == 1 { return y...y }
        // "1662-3", "1714-15", "1699-00", "1659-1660".
        guard parts.count == 2, let second = CalendarWords.yearEnding(in: parts[1], from: y), second <= y + 1 else { return nil }
        return y...second
    }

    // MARK: dates

    /// A date starting at word `i`: (the date, the index after it).
    static func date(_ w: [String], at i: Int) -> (DateReference, Int)? {
        if let (n, next) = yearOfBook(w, at: i) {
            return (DateReference(years: nil, from: nil, to: nil, day: nil, precise: false, yearOfBook: n), next)
        }
        if let found = isoDay(w[i]) { return (found, i + 1) }
        if let found = namedDay(w, at: i) { return found }
        if let found = season(w, at: i) { return found }
        if let found = monthDate(w, at: i) { return found }
        if let found = dayBeforeMonth(w, at: i) { return found }
        // A year on its own ("in 1835"), not a page or chapter number.
        if let years = year(w[i]), !["page", "p", "pp", "chapter", "no", "number"].contains(word(w, i - 1)) {
            // "the end of the year 1661" reads as "the end of 1661".
            let k = word(w, i - 1) != "year" ? i : (word(w, i - 2) == "the" ? i - 2 : i - 1)
            if let (from, to) = yearDays(w, before: k) {
                return (DateReference(years: years, from: from, to: to, day: nil, precise: from == to), i + 1)
            }
            let third = yearThird(w, before: k)
            return (DateReference(years: years, from: third?.from, to: third?.to, day: nil, precise: false), i + 1)
        }
        // A decade: "in the 1660s", "the 1830's".
        if let years = decade(w[i]) {
            return (DateReference(years: years, from: nil, to: nil, day: nil, precise: false), i + 1)
        }
        // "on the 17th": a day with no month.
        if word(w, i) == "the", ["on", "of"].contains(word(w, i - 1)), Int(word(w, i + 1)) == nil,
           word(w, i + 1).first?.isNumber == true, let day = dayNumber(word(w, i + 1)),
           CalendarWords.months[word(w, i + 2)] == nil, word(w, i + 2) != "of", partKinds[word(w, i + 2)] == nil {
            return (DateReference(years: nil, from: nil, to: nil, day: day, precise: false), i + 2)
        }
        return nil
    }

    /// "1665-06-03": a day written the ISO way.
    static func isoDay(_ word: String) -> DateReference? {
        guard word.utf8.count == 10, word.utf8.first.map({ $0 >= 0x30 && $0 <= 0x39 }) == true else { return nil }
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), d >= 1, d <= CalendarWords.monthLength[m - 1] else { return nil }
        return DateReference(years: y...y, from: m * 100 + d, to: m * 100 + d, day: nil, precise: true)
    }

    /// Which third of a span the words before word `i` name: "early May", "early
    /// in 1663", "the beginning of"; "mid-June", "the middle of"; "late", "the end
    /// of", "the close of". A month's thirds are its days 1-10, 11-20, 21-end; a
    /// year's, January-April, May-August, September-December.
    enum Third { case early, middle, late }
    static func third(_ w: [String], before i: Int) -> Third? {
        var before = word(w, i - 1), before2 = word(w, i - 2)
        // "early in August", "late in 1664": the qualifier before the "in".
        if before == "in", ["early", "late"].contains(before2) { before = before2; before2 = "" }
        if before == "early" || (before == "of" && ["beginning", "start"].contains(before2)) { return .early }
        if before == "mid" || (before == "of" && before2 == "middle") { return .middle }
        if before == "late" || (before == "of" && ["end", "close"].contains(before2)) { return .late }
        return nil
    }

    /// "the last day of 1662", "the first week of 1663", "the second half of
    /// 1665": the days of the year the words before word `i` name, as mmdd
    /// (a diary's reckoning of the year falls on its last day).
    static func yearDays(_ w: [String], before i: Int) -> (from: Int, to: Int)? {
        guard word(w, i - 1) == "of" else { return nil }
        let what = word(w, i - 2), which = word(w, i - 3)
        let first = which == "first" || which == "opening", last = ["last", "final", "closing"].contains(which)
        switch what {
        case "day": return first ? (101, 101) : last ? (1231, 1231) : nil
        case "week": return first ? (101, 107) : last ? (1225, 1231) : nil
        case "month": return first ? (101, 131) : last ? (1201, 1231) : nil
        case "half": return first ? (101, 630) : last || which == "second" ? (701, 1231) : nil
        default: return nil
        }
    }

    /// A year's third as a month-day span (nil: the whole year).
    static func yearThird(_ w: [String], before i: Int) -> (from: Int, to: Int)? {
        switch third(w, before: i) {
        case .early: return (101, 430)
        case .middle: return (501, 831)
        case .late: return (901, 1231)
        case nil: return nil
        }
    }

    /// "1660s" or "1830's": the ten years from the one named.
    static func decade(_ word: String) -> ClosedRange<Int>? {
        let digits = word.hasSuffix("'s") ? word.dropLast(2) : (word.hasSuffix("s") ? word.dropLast() : word[...])
        guard digits.count == 4, digits.count < word.count, digits.last == "0", let y = Int(digits), (1000...2090).contains(y) else { return nil }
        return y...(y + 9)
    }

    /// The year that may follow a month or season: "May 1893", "spring of 1834", "May, 1893".
    static func trailingYear(_ w: [String], after i: Int) -> (ClosedRange<Int>, Int)? {
        var j = i
        while j < min(w.count, i + 3), ["of", "the", "year", "in"].contains(w[j]) { j += 1 }
        if j < w.count, let y = year(w[j]) { return (y, j + 1) }
        return nil
    }

    /// Words before an ordinal that make "the second year" a year of the book's.
    static let yearOwners: Set<String> = ["the", "his", "her", "their", "our", "my", "its"]

    /// A year counted in the book starting at word `i`: "the second year", "his
    /// last year", "the 3rd year" (ordinals 1 to 20; -1 the last): (n, the index after it).
    static func yearOfBook(_ w: [String], at i: Int) -> (Int, Int)? {
        guard yearOwners.contains(word(w, i)), word(w, i + 2) == "year" else { return nil }
        let ordinal = word(w, i + 1)
        if ["last", "final"].contains(ordinal) { return (-1, i + 3) }
        let digits = ordinal.dropLast(2)
        guard let n = CalendarWords.ordinals[ordinal] ?? (["st", "nd", "rd", "th"].contains(String(ordinal.suffix(2))) ? Int(digits) : nil),
              (1...20).contains(n) else { return nil }
        return (n, i + 3)
    }

    /// A month's or season's year: printed ("spring of 1834") or counted in the
    /// book ("the spring of the second year"), as (years, year of the book, the index after it).
    static func yearAfter(_ w: [String], after i: Int) -> (years: ClosedRange<Int>?, ofBook: Int?, next: Int)? {
        if let (years, next) = trailingYear(w, after: i) { return (years, nil, next) }
        var j = i
        if ["of", "in"].contains(word(w, j)) { j += 1 }
        if let (n, next) = yearOfBook(w, at: j) { return (nil, n, next) }
        return nil
    }

    static func namedDay(_ w: [String], at i: Int) -> (DateReference, Int)? {
        for named in CalendarWords.namedDays where i + named.words.count <= w.count {
            // "St." is tokenized as "st", and "saint" spelled out is read as it.
            guard named.words.indices.allSatisfy({ k in (w[i + k] == "saint" ? "st" : w[i + k]) == named.words[k] }) else { continue }
            var date = DateReference(years: nil, from: named.from, to: named.to, day: nil, precise: named.from == named.to)
            var next = i + named.words.count
            if CalendarWords.namedDayTails.contains(word(w, next)), year(word(w, next + 1)) != nil
                || (word(w, next + 1) == "of" && year(word(w, next + 2)) != nil) { next += 1 }
            if let (years, after) = trailingYear(w, after: next) { date.years = years; next = after }
            return (date, next)
        }
        return nil
    }

    static func season(_ w: [String], at i: Int) -> (DateReference, Int)? {
        guard let months = CalendarWords.seasons[w[i]] else { return nil }
        if w[i] == "fall" && !fallContext.contains(word(w, i - 1)) { return nil }
        // "early spring" is its first month, "late autumn" its last.
        let qualifier = word(w, i - 1)
        let first = qualifier == "late" ? months.to : months.from, last = qualifier == "early" ? months.from : months.to
        let from = first * 100 + 1, to = last * 100 + CalendarWords.monthLength[last - 1]
        var date = DateReference(years: nil, from: from, to: to, day: nil, precise: false)
        var next = i + 1
        if let (years, ofBook, after) = yearAfter(w, after: next) { date.years = years; date.yearOfBook = ofBook; next = after }
        return (date, next)
    }

    /// A month, with a day after it ("May 4", "May 4th", "May the 4th") or a
    /// qualifier before it ("early May", "the end of May"), and a year after.
    static func monthDate(_ w: [String], at i: Int, inRange: Bool = false) -> (DateReference, Int)? {
        let name = w[i].hasSuffix(".") ? String(w[i].dropLast()) : w[i]
        guard let month = CalendarWords.months[name] else { return nil }
        var next = i + 1
        var day: Int? = nil
        if let d = dayNumber(word(w, next)), year(word(w, next)) == nil { day = d; next += 1 }
        else if word(w, next) == "the", let d = dayNumber(word(w, next + 1)) { day = d; next += 2 }
        let trailing = yearAfter(w, after: next)
        if CalendarWords.ambiguousMonths.contains(name) && day == nil && trailing == nil
            && !monthContext.contains(word(w, i - 1)) && !inRange
            && !(rangeWords.contains(word(w, i + 1)) && CalendarWords.months[word(w, i + 2)] != nil) {
            return nil
        }
        var date = DateReference(years: trailing?.years, from: month * 100 + 1,
                                 to: month * 100 + CalendarWords.monthLength[month - 1], day: nil, precise: false,
                                 yearOfBook: trailing?.ofBook)
        if let day, day <= CalendarWords.monthLength[month - 1] {
            date.from = month * 100 + day; date.to = date.from; date.precise = true
        } else {
            switch third(w, before: i) {
            case .early: date.to = month * 100 + 10
            case .middle: date.from = month * 100 + 11; date.to = month * 100 + 20
            case .late: date.from = month * 100 + 21
            case nil:
                if word(w, i - 1) == "of", let (first, last) = halfOrWeek(word(w, i - 2), word(w, i - 3), days: CalendarWords.monthLength[month - 1]) {
                    date.from = month * 100 + first; date.to = month * 100 + last
                }
            }
        }
        if let trailing { next = trailing.next }
        return (date, next)
    }

    /// "the second half of May", "the first week of September": the days of the
    /// month that `what` ("half", "week") and `which` ("first", "last") name.
    static func halfOrWeek(_ what: String, _ which: String, days: Int) -> (Int, Int)? {
        let last = ["last", "final", "latter"].contains(which)
        switch what {
        case "half":
            if which == "first" { return (1, 15) }
            return which == "second" || last ? (16, days) : nil
        case "week":
            if last { return (days - 6, days) }
            guard let n = CalendarWords.ordinals[which], (1...4).contains(n) else { return nil }
            return (n * 7 - 6, n * 7)
        default: return nil
        }
    }

    /// A day before its month: "4 May", "the 4th of May", "the fourth of May".
    static func dayBeforeMonth(_ w: [String], at i: Int) -> (DateReference, Int)? {
        guard let day = dayNumber(w[i]), year(w[i]) == nil else { return nil }
        var j = i + 1
        if word(w, j) == "of" { j += 1 }
        guard let month = CalendarWords.months[word(w, j)], day <= CalendarWords.monthLength[month - 1] else { return nil }
        var date = DateReference(years: nil, from: month * 100 + day, to: month * 100 + day, day: nil, precise: true)
        var next = j + 1
        if let (years, after) = trailingYear(w, after: next) { date.years = years; next = after }
        return (date, next)
    }

    // MARK: numbered parts

    /// "chapter 12", "Act III", "Book Two", "the third chapter", "the last act".
    static func part(_ w: [String], at i: Int) -> (PartStep, Int)? {
        if let kind = partKinds[w[i]] {
            // A possessive is the part itself: "Book XI's history of the theatre".
            let next = withoutPossessive(word(w, i + 1))
            if let n = CalendarWords.number(next, romanAllowed: true), n > 0, n < 10_000, year(next) == nil {
                // "book one" yes; "a letter i wrote" no: a lone "i" after letter is the pronoun.
                // "the poem i love" too; "Sonnet I" and "Psalm I" are numbers.
                let pronoun = !["act", "scene", "chapter", "book", "part", "volume", "canto", "stave"].contains(kind)
                    || PartWords.numberedPoems.contains(w[i]) && !PartWords.romanOneAfter.contains(w[i])
                if next == "i" && pronoun { return nil }
                return (PartStep(kind: kind, number: n), i + 2)
            }
            return nil
        }
        // An ordinal before the kind: "the third chapter", "the last act", "the opening chapter".
        let n: Int?
        switch w[i] {
        case "last", "final", "closing": n = -1
        case "penultimate", "second-to-last", "next-to-last", "second-last": n = -2
        case "opening": n = 1
        default: n = CalendarWords.ordinals[w[i]] ?? (w[i].hasSuffix("th") || w[i].hasSuffix("st") || w[i].hasSuffix("nd") || w[i].hasSuffix("rd") ? CalendarWords.number(w[i], romanAllowed: false) : nil)
        }
        // A possessive is the part itself: "the eighteenth sonnet's couplet".
        let named = withoutPossessive(word(w, i + 1))
        guard let n, n != 0, let kind = partKinds[named], kind != "letter" || n > 0 else { return nil }
        // A plural ("the first chapters") is a position, not one part.
        guard !named.hasSuffix("s") || kind == "chapter" && named == "chapter" else { return nil }
        return (PartStep(kind: kind, number: n), i + 2)
    }

    /// "xi's" -> "xi": a word without the possessive it ends in (apostrophes are folded).
    static func withoutPossessive(_ word: String) -> String { word.hasSuffix("'s") ? String(word.dropLast(2)) : word }

    /// The old printers' way: "Book the Second", "Chapter the Twentieth". The
    /// ordinal must be written with a capital, as titles are, so that "the book
    /// the second time" names no part.
    static func titledPart(_ w: [(word: String, capital: Bool)], at i: Int) -> (PartStep, Int)? {
        guard i + 2 < w.count, let kind = partKinds[w[i].word], kind != "letter", w[i + 1].word == "the",
              w[i + 2].capital, let n = CalendarWords.ordinals[w[i + 2].word] else { return nil }
        return (PartStep(kind: kind, number: n), i + 3)
    }

    // MARK: position

    /// "at the start", "near the end", "towards the end of the book", "in the middle",
    /// "the very end"; not "the end of May" (a date) nor "in the end" (an idiom).
    static func position(_ w: [String], at i: Int) -> (ClosedRange<Double>, Int)? {
        if let found = wayThrough(w, at: i) { return found }
        if let found = extremeUnits(w, at: i) { return found }
        let lead = w[i]
        guard ["at", "near", "towards", "toward", "by", "in", "during", "early", "late", "halfway", "midway"].contains(lead) else { return nil }
        if lead == "early" || lead == "late" {
            // "early on", "early in the book", "late in the novel".
            if word(w, i + 1) == "on" && lead == "early" { return (0...0.15, i + 2) }
            if word(w, i + 1) == "in", word(w, i + 2) == "the", workWords.contains(word(w, i + 3)) {
                return (lead == "early" ? 0...0.2 : 0.8...1, i + 4)
            }
            // "early in Book II", "late in Act 3": within that part (the part itself is read next).
            if word(w, i + 1) == "in", part(w, at: i + 2) != nil { return (lead == "early" ? 0...0.2 : 0.8...1, i + 2) }
            return nil
        }
        if lead == "halfway" || lead == "midway" {
            return word(w, i + 1) == "through" ? (0.35...0.65, i + 2) : nil
        }
        guard word(w, i + 1) == "the" else { return nil }
        var j = i + 2
        let very = word(w, j) == "very"
        if very { j += 1 }
        var range: ClosedRange<Double>
        switch word(w, j) {
        case "start", "beginning", "opening": range = very ? 0...0.05 : 0...0.15
        case "end", "close", "finish": range = very ? 0.95...1 : 0.85...1
        case "middle": range = 0.35...0.65
        default:
            if !very, let (found, last) = fewParts(w, at: j) { range = found; j = last; break }
            guard !very, let share = share(w, at: j) else { return nil }
            range = share; j += 1
        }
        if lead == "in" && word(w, j) == "end" { return nil }  // "in the end": an idiom
        if lead == "by" && word(w, j) != "end" { return nil }
        j += 1
        if word(w, j) == "of" { return afterOf(w, at: j).map { (range, $0) } }
        return (range, j)
    }

    /// "the first few chapters", "the early chapters", "the closing chapters",
    /// "the final scenes": the book's first or last stretch, as "the start" and
    /// "the end" are (the index of the plural's word). A singular ("the last
    /// chapter") is a part.
    static func fewParts(_ w: [String], at j: Int) -> (ClosedRange<Double>, Int)? {
        let which = word(w, j)
        let k = word(w, j + 1) == "few" ? j + 2 : j + 1
        guard ["chapters", "parts", "scenes", "acts", "books", "sections", "letters", "entries"].contains(word(w, k)) else { return nil }
        if ["first", "early", "earliest"].contains(which) { return (0...0.15, k) }
        if ["last", "final", "closing", "late", "later", "latter"].contains(which) { return (0.85...1, k) }
        return nil
    }

    /// Words for the smallest stretches of a book, which readers count from either end.
    static let stretchWords: Set<String> = ["entry", "entries", "page", "pages", "lines", "paragraph", "paragraphs", "words",
                                             "day", "days", "week", "weeks"]

    /// "in the last entry", "on the final pages", "in the first entry of the
    /// diary", "the last weeks of the journal": the book's first or last
    /// twentieth; not "the last days of May" (a date) nor "the last chapter" (a part).
    static func extremeUnits(_ w: [String], at i: Int) -> (ClosedRange<Double>, Int)? {
        guard ["in", "on", "at", "during", "near"].contains(w[i]), word(w, i + 1) == "the" else { return nil }
        var j = i + 2
        if word(w, j) == "very" { j += 1 }
        let which = word(w, j)
        let range: ClosedRange<Double>
        if ["first", "opening"].contains(which) { range = 0...0.05 }
        else if ["last", "final", "closing"].contains(which) { range = 0.95...1 }
        else { return nil }
        guard stretchWords.contains(word(w, j + 1)) else { return nil }
        // "the last days before the battle" is a time in the story: days and weeks
        // count from the book's end only when the book is named ("of the diary").
        let ofTheWorkOnly = ["day", "days", "week", "weeks"].contains(word(w, j + 1))
        j += 2
        guard word(w, j) == "of" else { return ofTheWorkOnly ? nil : (range, j) }
        return afterOf(w, at: j).map { (range, $0) }
    }

    /// What the "of" at `j` after a place in the book names, and where reading
    /// goes on: the book ("of the book", "of his journal": after it), or a part
    /// ("of Book III", "of the second act", "of chapter 3": at the part, which is
    /// read next, the position being within it). Nil for anything else: "the end
    /// of May" is a date, "the first entry of his ledger" no place in the book.
    static func afterOf(_ w: [String], at j: Int) -> Int? {
        let determined = ["the", "his", "her", "their", "this"].contains(word(w, j + 1))
        let what = word(w, determined ? j + 2 : j + 1)
        if CalendarWords.months[what] != nil || CalendarWords.seasons[what] != nil || year(what) != nil { return nil }
        if part(w, at: j + 1) != nil || (determined && part(w, at: j + 2) != nil) { return j + 1 }
        if workWords.contains(what) { return j + (determined ? 3 : 2) }
        return partKinds[what] != nil ? j + 1 : nil
    }

    /// Words of a share of the book, and how many parts they cut it into.
    static let fractions: [String: Double] = ["half": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4]

    /// "first half", "second half", "last third", "final quarter", "middle third"
    /// at `j` (the word before the fraction): that share of the book or part.
    static func share(_ w: [String], at j: Int) -> ClosedRange<Double>? {
        guard let parts = fractions[word(w, j + 1)] else { return nil }
        switch word(w, j) {
        case "first", "opening": return 0...(1 / parts)
        case "last", "final", "closing", "latter": return (1 - 1 / parts)...1
        case "second" where parts == 2: return 0.5...1
        case "middle" where parts == 3: return (1 / 3)...(2 / 3)
        default: return nil
        }
    }

    /// "two thirds of the way through", "a quarter of the way into the book",
    /// "three-quarters of the way in": a tenth of the book either side of the point.
    static func wayThrough(_ w: [String], at i: Int) -> (ClosedRange<Double>, Int)? {
        var j = i, count = 1.0
        if word(w, j) == "a" || word(w, j) == "one" { j += 1 }
        else if let n = CalendarWords.cardinals[word(w, j)], n < 4 { count = Double(n); j += 1 }
        var fraction = word(w, j)
        if let dash = fraction.firstIndex(of: "-"), let n = CalendarWords.cardinals[String(fraction[..<dash])], n < 4 {
            count = Double(n); fraction = String(fraction[fraction.index(after: dash)...])   // "three-quarters"
        }
        guard let parts = fractions[fraction], parts > 2, count < parts, word(w, j + 1) == "of", word(w, j + 2) == "the", word(w, j + 3) == "way" else { return nil }
        // "of the way up the hill" is somewhere else.
        guard ["through", "in", "into"].contains(word(w, j + 4)) else { return nil }
        let point = count / parts
        return (max(0, point - 0.1)...min(1, point + 0.1), j + 5)
    }
}
