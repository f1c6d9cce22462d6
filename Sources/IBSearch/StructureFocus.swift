// Where in the books a question points: its references (QueryReferences) and
// its words matched against the books' structure (sections with titles,
// numbers, dates, voices and places), as chunk ranges each with a weight.
//
// A search ranks the chunks inside these ranges higher than others with the
// same evidence (a soft scope) and searches them more deeply, so a passage
// the whole-book lists miss is found where the reader says it is. Each
// reference weighs by how sure its reading is (a numbered act or a day is
// surer than a word of a title) and by how much it narrows: a reference that
// covers half a book says little, one that covers a twentieth says a lot. A
// reference that matches nothing adds nothing.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

/// A date as a book's structure records it: 'YYYY-MM-DD', 'YYYY-MM', 'YYYY' or '--MM-DD'.
public struct BookDate: Sendable, Equatable {
    public var year: Int?
    public var month: Int?
    public var day: Int?

    public init?(_ text: String?) {
        guard let text, !text.isEmpty else { return nil }
        // Numbers between dashes, read from the bytes (a diary has thousands of dates).
        var fields: [Int?] = [nil], digits = 0
        for c in text.utf8 {
            if c == 0x2D { fields.append(nil); digits = 0; continue }
            guard c >= 0x30 && c <= 0x39, digits < 9 else { return nil }
            fields[fields.count - 1] = (fields[fields.count - 1] ?? 0) * 10 + Int(c - 0x30)
            digits += 1
        }
        if text.utf8.starts(with: [0x2D, 0x2D]) {
            guard fields.count == 4, fields[0] == nil, fields[1] == nil, let m = fields[2], let d = fields[3] else { return nil }
            year = nil; month = m; day = d
        } else {
            guard let y = fields[0], fields.count <= 3 else { return nil }
            year = y
            month = fields.count > 1 ? fields[1] : nil
            day = fields.count > 2 ? fields[2] : nil
            if fields.count > 1 && month == nil || fields.count > 2 && day == nil { return nil }
        }
        if let m = month, !(1...12).contains(m) { return nil }
        if let d = day, !(1...31).contains(d) { return nil }
    }
}

/// One unit of a book's structure, as the focus reads it.
public struct SearchSection: Sendable {
    public var bookID: String
    public var ord: Int
    public var parent: Int?
    public var kind: String?
    public var number: Int?
    public var title: String
    public var path: [String]
    public var dateFrom: BookDate?
    public var dateTo: BookDate?
    /// The dates as the library stores them.
    public var dateText: (from: String?, to: String?) = (nil, nil)
    public var voice: String?
    public var place: String?
    /// The chunk indexes it covers (with its descendants).
    public var chunks: ClosedRange<Int>

    public init(bookID: String, ord: Int, parent: Int?, kind: String?, number: Int?, title: String, path: [String],
                dateFrom: BookDate?, dateTo: BookDate?, voice: String?, place: String?, chunks: ClosedRange<Int>) {
        self.bookID = bookID; self.ord = ord; self.parent = parent; self.kind = kind; self.number = number
        self.title = title; self.path = path; self.dateFrom = dateFrom; self.dateTo = dateTo
        self.voice = voice; self.place = place; self.chunks = chunks
    }
}

/// Chunks of one book a question points to, and how strongly.
public struct FocusRange: Sendable, Equatable {
    public var bookID: String
    public var chunks: ClosedRange<Int>
    public var weight: Double
    /// Its reference (a part, a date, a quoted title) matched in this book alone of
    /// the several searched: "Act 5" in a library with one play names the book too.
    public var onlyBook = false
    /// A part or day one off what the reader named (StructureFocus.nearShare):
    /// it raises only chunks among the best hits of either list, and is not
    /// searched on its own.
    public var near = false
}

public enum StructureFocus {
    /// How sure each kind of reference is, before its narrowness counts.
    static let partStrength = 1.0
    static let dayStrength = 1.0
    static let spanStrength = 0.8      // a month, a season, a feast spanning days
    static let yearStrength = 0.6
    static let dayOnlyStrength = 0.5   // "on the 17th"
    /// A word of a title, voice or place, where the question uses it to say where
    /// ("in Economy", "at the Galapagos", "in Mina's journal"). Any word of the
    /// question matched against titles cost the first long set 0.03 on its tuning
    /// part (names recur through a book; the chapter bearing one is one place)
    /// and gained nothing on the readers' tuning part.
    static let titleWordStrength = 0.6
    static let positionStrength = 0.5
    /// A reference covering this share of its books (or less) counts fully.
    static let fullyNarrow = 0.05
    /// A reader's number or day may be one off ("chapter 12" for 13; the night
    /// of 30 September, written up on 1 October): the parts numbered one either
    /// side, and the days either side, weigh this share of the reference. With
    /// every tuning question's day, scene, chapter, book or act moved by one
    /// (195 questions), recall@5 went from 0.32 / 0.30 (one book / library) to
    /// 0.47 / 0.44, where searching without the structure finds 0.49 / 0.44;
    /// the questions as written lost one question of 741 in one book's scope.
    /// A share of 0.4 found less of both, 0.7 lost six as written. Only in a
    /// book where the reference itself is found: one found nowhere names nothing.
    static let nearShare = 0.5
    /// The narrowness of a reference covering 40% of its books (log 0.4 / log 0.05).
    static let minimumNarrowness = 0.3
    /// Words of a title shared by more than this share of a book's units name no place in it.
    static let commonTitleShare = 0.4

    /// The weighted chunk ranges `references` and `words` (the question's
    /// lowercased words; `capitalised`, those it writes with a capital, see
    /// capitalisedWords) point to, over `units` (each searched book's structure)
    /// and `chunkCounts` (each searched book's chunks).
    public static func ranges(_ references: QueryReferences, words: [String], capitalised: Set<String>? = nil, dictionaryWords: Set<String> = [],
                              units: [String: [SearchSection]], chunkCounts: [String: Int]) -> [FocusRange] {
        var out: [FocusRange] = []
        func add(_ matched: [SearchSection], strength: Double, namesBook: Bool = false, near: Bool = false) {
            var found = weighted(matched.map { ($0.bookID, $0.chunks) }, strength: strength, chunkCounts: chunkCounts)
            if namesBook, chunkCounts.count > 1, Set(found.map(\.bookID)).count == 1 {
                for i in found.indices { found[i].onlyBook = true }
            }
            for i in found.indices { found[i].near = near }
            out += found
        }
        var partRanges: [(String, ClosedRange<Int>)] = []
        for path in references.parts {
            let matched = units.values.flatMap { book in
                let order = TitledOrder(book)
                return book.filter { matches(path, $0, in: book, order: order) }
            }
            add(matched, strength: partStrength, namesBook: true)
            partRanges += matched.map { ($0.bookID, $0.chunks) }
            // In the books where the part itself is found: "chapter 1" of a book numbered from 2 names nothing.
            let named = Set(matched.map(\.bookID))
            for near in neighbours(of: path) {
                add(units.values.filter { $0.first.map { named.contains($0.bookID) } ?? false }.flatMap { book in
                    let order = TitledOrder(book)
                    return book.filter { matches(near, $0, in: book, order: order) }
                }, strength: partStrength * nearShare, namesBook: named.count == 1, near: true)
            }
        }
        for date in references.dates {
            // A year counted in the book ("the second year") is each book's own.
            let matched = units.values.flatMap { book in resolved(date, in: book).map { d in book.filter { matches(d, $0) } } ?? [] }
            let strength = date.precise ? dayStrength : date.from != nil ? spanStrength : date.day != nil ? dayOnlyStrength : yearStrength
            // A diary without years matches "July 1836" by its Julys: not enough to name the book.
            let yearsAgree = date.years == nil && date.yearOfBook == nil || matched.allSatisfy { $0.dateFrom?.year != nil }
            add(innermost(matched), strength: strength, namesBook: yearsAgree)
            let near = neighbours(of: date), named = Set(matched.map(\.bookID))
            if !near.isEmpty {
                let nearby = units.values.flatMap { $0.filter { unit in
                    named.contains(unit.bookID) && near.contains { matches($0, unit) } && !matches(date, unit)
                } }
                add(innermost(nearby), strength: strength * nearShare, namesBook: yearsAgree && named.count == 1, near: true)
            }
        }
        for (_, matched) in titleMatches(locatingWords(words, capitalised: capitalised), questionWords: words, units: units) {
            add(innermost(matched), strength: titleWordStrength)
        }
        if !dictionaryWords.isEmpty {
            var seen: [String: Bool] = [:]
            add(innermost(units.values.flatMap { wholeTitles(words, capitalised: capitalised, dictionaryWords: dictionaryWords, in: $0, seen: &seen) }),
                strength: partStrength, namesBook: true)
        }
        for title in references.quotedTitles {
            add(innermost(units.values.flatMap { titled(title, in: $0) }), strength: partStrength, namesBook: true)
        }
        if let position = references.position {
            // Within the parts named ("the end of chapter 3"), else within each book.
            let spans = partRanges.isEmpty ? chunkCounts.filter { $0.value > 0 }.map { ($0.key, 0...($0.value - 1)) } : partRanges
            let pieces = spans.map { book, range -> (String, ClosedRange<Int>) in
                let n = Double(range.count)
                let low = range.lowerBound + Int((position.lowerBound * n).rounded(.down))
                let high = range.lowerBound + max(0, Int((position.upperBound * n).rounded(.up)) - 1)
                return (book, low...max(low, min(high, range.upperBound)))
            }
            out += weighted(pieces, strength: positionStrength, chunkCounts: chunkCounts)
        }
        return out
    }

    /// `pieces` of one reference, weighted by `strength` times how narrow they are
    /// within their book (0 when they cover it whole). Each book on its own: "May
    /// 4th" is one entry of a diary and every part of a novel dated by its year
    /// alone; pooled, the novel's parts made the diary's entry say nothing.
    static func weighted(_ pieces: [(String, ClosedRange<Int>)], strength: Double, chunkCounts: [String: Int]) -> [FocusRange] {
        var byBook: [String: [ClosedRange<Int>]] = [:]
        for (book, range) in pieces { byBook[book, default: []].append(range) }
        var out: [FocusRange] = []
        for (book, ranges) in byBook.sorted(by: { $0.key < $1.key }) {
            let merged = ranges.merged()
            let covered = merged.reduce(0) { $0 + $1.count }, total = chunkCounts[book] ?? 0
            guard total > 0, covered > 0 else { continue }
            let share = min(1, Double(covered) / Double(total))
            let narrowness = min(1, max(0, log(share) / log(fullyNarrow)))
            // Covering more than 40% of its book, a reference locates nothing there (a
            // name in the titles of half a book's chapters: "Esther's Narrative").
            guard narrowness >= minimumNarrowness else { continue }
            out += merged.map { FocusRange(bookID: book, chunks: $0, weight: strength * narrowness) }
        }
        return out
    }

    /// `date` as it reads in `book`: a year counted in the book ("the second
    /// year") becomes the book's n-th year, of the years its dated units carry
    /// (nil: the book has fewer, or none); any other date is itself.
    static func resolved(_ date: DateReference, in book: [SearchSection]) -> DateReference? {
        guard let n = date.yearOfBook else { return date }
        let years = Set(book.flatMap { [$0.dateFrom?.year, $0.dateTo?.year].compactMap { $0 } }).sorted()
        let index = n > 0 ? n - 1 : years.count + n
        guard years.indices.contains(index) else { return nil }
        var out = date
        out.years = years[index]...years[index]
        out.yearOfBook = nil
        return out
    }

    /// The paths one number either side of `path`'s last step (none for "the last").
    static func neighbours(of path: [PartStep]) -> [[PartStep]] {
        guard let last = path.last, last.number > 0 else { return [] }
        return [last.number - 1, last.number + 1].filter { $0 >= 1 }.map { n in
            var near = path
            near[near.count - 1].number = n
            return near
        }
    }

    /// The days either side of a one-day reference (none when it is not one day).
    static func neighbours(of date: DateReference) -> [DateReference] {
        guard date.precise, date.yearOfBook == nil, let day = date.from, date.to == day else { return [] }
        return [-1, 1].map { by in
            var near = date
            var m = day / 100, d = day % 100 + by, years = 0
            if d < 1 { (m, years) = m == 1 ? (12, -1) : (m - 1, 0); d = CalendarWords.monthLength[m - 1] }
            if d > CalendarWords.monthLength[m - 1] { (m, years) = m == 12 ? (1, 1) : (m + 1, 0); d = 1 }
            near.from = m * 100 + d; near.to = near.from
            // The day before 1 January 1666 is in 1665.
            if let y = date.years { near.years = (y.lowerBound + years)...(y.upperBound + years) }
            return near
        }
    }

    /// The matched units that hold no other matched unit: a dated entry, not
    /// also the chapter around it that carries the same date.
    static func innermost(_ matched: [SearchSection]) -> [SearchSection] {
        let parents = Set(matched.compactMap { u in u.parent.map { "\(u.bookID)\u{0}\($0)" } })
        return matched.filter { !parents.contains("\($0.bookID)\u{0}\($0.ord)") }
    }

    // MARK: numbered parts

    /// Kinds a question's word may mean: "chapter 3" also finds an unlabelled or
    /// "section" unit numbered 3, "book 2" a volume. ib-parse stores a unit
    /// titled "Canto IV" or "Stave Three" as a chapter and "Volume II" as a part
    /// (StructureTitles), so "canto" and "stave" find chapters and "volume" parts.
    static func compatible(_ asked: String, _ kind: String?) -> Bool {
        switch asked {
        case "chapter", "section", "canto", "stave": return kind == nil || kind == "chapter" || kind == "section" || kind == asked
        case "book": return kind == "book" || kind == "volume"
        case "volume": return kind == "book" || kind == "volume" || kind == "part"
        default: return kind == asked
        }
    }

    /// Whether `unit` is the last step of `path` and its ancestors match the earlier steps in order.
    /// `order`: the book's titled units counted in order (TitledOrder), made once per book.
    static func matches(_ path: [PartStep], _ unit: SearchSection, in book: [SearchSection], order: TitledOrder) -> Bool {
        guard let last = path.last, compatible(last.kind, unit.kind), numberMatches(last, unit, in: book, order: order) else { return false }
        var remaining = path.dropLast()
        var parent = unit.parent
        while let step = remaining.last {
            guard let ord = parent, let ancestor = book.first(where: { $0.ord == ord }) else { return false }
            if compatible(step.kind, ancestor.kind) && numberMatches(step, ancestor, in: book, order: order) { remaining.removeLast() }
            parent = ancestor.parent
        }
        return true
    }

    static func numberMatches(_ step: PartStep, _ unit: SearchSection, in book: [SearchSection], order: TitledOrder) -> Bool {
        if unit.number == nil, let place = order.place(of: unit, kind: step.kind) {
            return place.index == (step.number > 0 ? step.number - 1 : place.count + step.number)
        }
        if step.number > 0 { return unit.number == step.number }
        // "the last act": the highest number of its kind among its siblings;
        // "the penultimate chapter" (-2): the one below it.
        let numbers = Set(book.filter { $0.parent == unit.parent && compatible(step.kind, $0.kind) }.compactMap(\.number)).sorted(by: >)
        let k = -step.number - 1
        return unit.number != nil && k < numbers.count && unit.number == numbers[k]
    }

    /// Where each unit stands among its siblings of a kind, in a book none of
    /// whose units of that kind has a number: a book of titled chapters
    /// ("Economy", "Sounds") is counted in order, so "the first chapter" of
    /// *Walden* is "Economy" and "the last chapter" its last. Front and back
    /// matter are not counted; a book with numbered chapters is read by its
    /// numbers alone. (No tuning question changes: in the readers' library,
    /// "In the first chapter" of *Walden* now marks "Economy", but War and Peace's
    /// many chapters I still outweigh it.)
    final class TitledOrder {
        let book: [SearchSection]
        private var places: [String: [Int: (index: Int, count: Int)]] = [:]
        init(_ book: [SearchSection]) { self.book = book }

        func place(of unit: SearchSection, kind: String) -> (index: Int, count: Int)? {
            if places[kind] == nil {
                let units = book.filter { StructureFocus.compatible(kind, $0.kind) }
                var found: [Int: (index: Int, count: Int)] = [:]
                if !units.contains(where: { $0.number != nil }) {
                    var siblings: [Int: [Int]] = [:]   // parent's ord (-1: none) -> the ords of its titled units, in order
                    for u in units where !BookMatter.isMatter(section: [u.title]) { siblings[u.parent ?? -1, default: []].append(u.ord) }
                    for ords in siblings.values where ords.count >= 2 {
                        for (i, ord) in ords.enumerated() { found[ord] = (i, ords.count) }
                    }
                }
                places[kind] = found
            }
            return places[kind]?[unit.ord]
        }
    }

    // MARK: dates

    /// Whether a unit's dates overlap the question's.
    static func matches(_ date: DateReference, _ unit: SearchSection) -> Bool {
        guard let from = unit.dateFrom else { return false }
        let to = unit.dateTo ?? from
        // A book that gives no year (a diary of "3 May") matches by month and day alone.
        if let years = date.years, let y0 = from.year ?? to.year {
            let y1 = to.year ?? y0
            if years.upperBound < y0 || years.lowerBound > y1 { return false }
        } else if date.years != nil && date.from == nil && date.day == nil {
            return false   // "in 1835" says nothing of a yearless entry
        }
        if let day = date.day {
            // "on the 17th": a unit dated that day of any month.
            guard let d0 = from.day else { return false }
            let d1 = to.day ?? d0
            return from.month == to.month ? (d0...max(d0, d1)).contains(day) : (day >= d0 || day <= d1)
        }
        guard let qFrom = date.from, let qTo = date.to else { return true }   // a year alone
        // The unit's span as month-days; one crossing a year's end (or years) covers all,
        // but for one day in two years (a day inside an Old Style double year: either year).
        let sameDay = from.month != nil && from.month == to.month && from.day != nil && from.day == to.day
        if let y0 = from.year, let y1 = to.year, y1 > y0, !sameDay { return true }
        guard let m0 = from.month else { return true }
        let m1 = to.month ?? m0
        let u0 = m0 * 100 + (from.day ?? 1)
        let u1 = m1 * 100 + (to.day ?? CalendarWords.monthLength[m1 - 1])
        return overlaps(qFrom, qTo, u0, max(u0, u1))
    }

    /// Whether month-day spans a...b (wrapping the year's end when a > b) and c...d overlap.
    static func overlaps(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Bool {
        if a <= b { return !(b < c || a > d) }
        return overlaps(a, 1231, c, d) || overlaps(101, b, c, d)
    }

    // MARK: words of titles

    /// Words before which a question's next word says where ("in Economy").
    static let locating: Set<String> = ["in", "at", "during", "near", "from", "on"]
    /// Words after which the word before names a part ("the Galapagos chapter", "Mina's journal").
    static let partNouns: Set<String> = ["chapter", "journal", "diary", "letter", "essay", "section", "scene", "memorandum", "log", "poem", "story", "tale", "sonnet", "ode", "song", "speech", "sermon", "soliloquy"]

    /// The question's words that it uses to place the moment: the first content
    /// word after "in", "at", "during"... (skipping "the", "a", a possessive's "s"),
    /// and the word before "chapter", "journal", "diary"... A word after "in" that
    /// the question writes in lower case, when it writes any word with a capital
    /// (`capitalised`), is weak: "in his cabin" is a place in the story more often
    /// than the chapter "The Cabin", where "in Economy" and "at the Galapagos"
    /// name their chapters (see titleMatches).
    static func locatingWords(_ words: [String], capitalised: Set<String>? = nil) -> (strong: [String], weak: [String]) {
        var strong: [String] = [], weak: [String] = []
        for (i, w) in words.enumerated() {
            if locating.contains(w) {
                var j = i + 1
                while j < words.count, ["the", "a", "an", "his", "her", "their"].contains(words[j]) { j += 1 }
                if j < words.count {
                    if capitalised?.contains(words[j]) ?? true { strong.append(words[j]) } else { weak.append(words[j]) }
                }
            }
            if partNouns.contains(w) {
                var j = i - 1
                if j >= 0, words[j] == "s" { j -= 1 }   // "Mina's journal" (words split at the apostrophe)
                if j >= 0 { strong.append(words[j]) }
                // A word between the owner and the part: "Seward's recorded diary", "Mina's own journal".
                if i >= 3, words[i - 2] == "s", words[i - 1] != "s" { strong.append(words[i - 3]) }
            }
        }
        return (strong, weak)
    }

    /// The words `text` writes with a capital letter, lowercased, its first word
    /// aside; nil when there are none: a question typed in lower case says
    /// nothing by its case, and every word it places the moment with is strong.
    static func capitalisedWords(_ text: String) -> Set<String>? {
        let capital = QueryText.words(text).dropFirst().filter { !$0.cjk && $0.text.unicodeScalars.first?.properties.isUppercase == true }
        return capital.isEmpty ? nil : Set(capital.map { $0.text.lowercased() })
    }

    /// The words of `words` that may name a section by its title, stemmed.
    /// Numbers are read as dates and parts (QueryReferences), not as title words,
    /// and so are months and seasons, unless `calendar`: in a book none of whose
    /// sections is dated, "the winter chapter" can only mean a title ("Winter
    /// Animals", "The Pond in Winter").
    static func titleWords(_ words: [String], calendar: Bool = false) -> Set<String> {
        Set(words.filter { $0.count >= 3 && !QueryText.stopwords.contains($0) && !$0.allSatisfy(\.isNumber)
            && QueryReferences.partKinds[$0] == nil
            && (calendar || CalendarWords.months[$0] == nil && CalendarWords.seasons[$0] == nil) }
            .map(QueryText.stem))
    }

    /// Whether no section of `book` carries a date: there a month or a season the
    /// question names can be a word of a title (titleWords).
    static func undated(_ book: [SearchSection]) -> Bool { !book.contains { $0.dateFrom != nil } }

    /// The units whose title holds every word of `quoted` that may name one
    /// (titleWords): a quoted title names its section as surely as its number
    /// ("In 'The Pequod Meets the Virgin'" is chapter LXXXI, where the word after
    /// "in" alone, "Pequod", is in nine chapters' titles). A quoted line of the
    /// text holds words no title has, and matches none.
    static func titled(_ quoted: String, in book: [SearchSection]) -> [SearchSection] {
        let asked = titleWords(QueryText.words(quoted).filter { !$0.cjk }.map { $0.text.lowercased() }, calendar: undated(book))
        guard !asked.isEmpty else { return [] }
        return book.filter { unit in
            let words = Set(QueryText.words(unit.title).filter { !$0.cjk }.map { QueryText.stem($0.text.lowercased()) })
            return asked.isSubset(of: words)
        }
    }

    nonisolated(unsafe) static let romanNumeral = #/m{0,4}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})/#

    /// Whether `word` carries content: not a stop word, a number or a part word ("chapter").
    static func isContentWord(_ word: String) -> Bool {
        word.count >= 2 && !QueryText.stopwords.contains(word) && !word.allSatisfy(\.isNumber) && QueryReferences.partKinds[word] == nil
    }

    /// The content words of `words` (isContentWord), in order.
    static func contentRun(_ words: [String]) -> [String] { words.filter(isContentWord) }

    /// Whether the question writes two or more content words in a row with capitals
    /// (a title it may name without quotation marks: "Beginning the World").
    static func capitalisedRun(_ words: [String], capitalised: Set<String>?) -> Bool {
        guard let capitalised else { return false }
        var run = 0
        // The question's first word may be a title's ("Higher Laws: ..."): its capital says nothing either way.
        for (i, w) in contentRun(words).enumerated() {
            run = capitalised.contains(w) || i == 0 && words.first == w ? run + 1 : 0
            if run >= 2 { return true }
        }
        return false
    }

    /// Whether the question writes a content word with a capital right after
    /// "chapter" ("..., chapter A Discovery"): a one-word title it may name.
    static func capitalisedAfterChapter(_ words: [String], capitalised: Set<String>?) -> Bool {
        guard let capitalised else { return false }
        return words.indices.contains { isContentWord(words[$0]) && capitalised.contains(words[$0]) && afterChapter($0, in: words) }
    }

    /// The units of `book` whose whole title the question writes out without
    /// quotation marks ("in The Whale Watch", "Higher Laws: Thoreau mocks...",
    /// "..., Beginning the World"): the title's content words, two or more (or
    /// one right after "chapter"), in a row among the question's content words,
    /// each written with a capital (the question's first word aside; a question
    /// in lower case names no title this way), and every one a word the dictionary
    /// knows (`dictionaryWords`, the thesaurus's): "Moby Dick", "Lady Dedlock" and
    /// "Bahia Blanca" are titles too, but a question names them as a whale, a woman
    /// and a town. A title counts as a quoted one does, as surely as a numbered
    /// part, where a reader names a section (namesASection), and not with Mr.,
    /// Lady, Captain... (honorifics). Tuning parts, hybrid recall@5 one book /
    /// library: the short readers' set (reader6) 27 / 25 -> 30 / 28 of 52, the six
    /// long sets 572 / 555 -> 573 / 556 of 741 ("First Epilogue, after..."); twelve
    /// ranks up, none down. Without the dictionary, the honorifics and the
    /// position, it lost five there (a whale, a woman, a town, Mr. Bucket and
    /// Tom-all-Alone's). A title of one word counts only right after "chapter"
    /// ("Woodcourt escorts Esther..., chapter A Discovery"; "in Solitude" is a
    /// title word, titleMatches): the seven long sets' tuning parts 603 / 586 ->
    /// 604 / 587 of 793, that question alone moving (99th -> 1st).
    ///
    /// `seen`: what each title gave, for the other books of the same search (copies
    /// and editions repeat their titles).
    static func wholeTitles(_ words: [String], capitalised: Set<String>?, dictionaryWords: Set<String>,
                            in book: [SearchSection], seen: inout [String: Bool]) -> [SearchSection] {
        guard let capitalised else { return [] }
        // The content words with where each stands among all the words.
        let content = words.indices.filter { isContentWord(words[$0]) }
        guard !content.isEmpty else { return [] }
        let asked = content.map { words[$0] }
        // Every word of a title found is one of these, so its text holds one: a title
        // that holds none is not split into words (a library's thousands of titles).
        let eligible = Set(asked).filter { dictionaryWords.contains($0) && (capitalised.contains($0) || $0 == words.first) }
        guard !eligible.isEmpty else { return [] }
        return book.filter { unit in
            if let known = seen[unit.title] { return known }
            let lower = unit.title.lowercased()
            guard eligible.contains(where: { lower.contains($0) }) else {
                seen[unit.title] = false
                return false
            }
            var title = contentRun(QueryText.words(unit.title).filter { !$0.cjk }.map { $0.text.lowercased() })
            // "CXVII: The Whale Watch": the number is the chapter's, not a word of its title.
            if let first = title.first, first.wholeMatch(of: romanNumeral) != nil { title.removeFirst() }
            let found: Bool = {
                // One word names its chapter only right after "chapter" ("chapter A Discovery").
                guard !title.isEmpty, title.count <= asked.count, Set(title).count == title.count, title.allSatisfy({ !honorifics.contains($0) }),
                      title.allSatisfy({ (capitalised.contains($0) || $0 == words.first) && dictionaryWords.contains($0) }) else { return false }
                for p in 0...(asked.count - title.count) where Array(asked[p..<(p + title.count)]) == title {
                    if title.count == 1 ? afterChapter(content[p], in: words)
                        : namesASection(at: content[p], through: content[p + title.count - 1], in: words) { return true }
                }
                return false
            }()
            seen[unit.title] = found
            return found
        }
    }

    /// Whether word `index` of `words` follows "chapter" ("chapter A Discovery": an article between).
    static func afterChapter(_ index: Int, in words: [String]) -> Bool {
        var i = index - 1
        if i >= 0 && ["the", "a", "an"].contains(words[i]) { i -= 1 }
        return i >= 0 && QueryReferences.partKinds[words[i]] == "chapter"
    }

    /// Titles with these name a person ("Mr. Bucket", "Lady Dedlock"), whom a question names for other reasons.
    static let honorifics: Set<String> = ["mr", "mrs", "miss", "ms", "dr", "sir", "lady", "lord", "madame", "monsieur",
                                          "captain", "father", "mother", "uncle", "aunt", "prince", "princess", "count",
                                          "countess", "king", "queen", "st", "saint", "master", "mistress"]

    /// Whether words `first...last` of `words` stand where a reader names a section:
    /// opening or closing the question ("Higher Laws: ...", "..., Beginning the
    /// World"), or after "in", "at", "during"... or "chapter" ("in The Whale
    /// Watch"), "the" or "a" between. "out of Tom-all-Alone's into the sunlight"
    /// is a walk through a place.
    static func namesASection(at first: Int, through last: Int, in words: [String]) -> Bool {
        let before = words[..<first].filter { !["the", "a", "an", "s"].contains($0) }
        let after = words[(last + 1)...].filter { !["s"].contains($0) }
        if before.isEmpty || after.isEmpty { return true }
        let word = before.last!
        return locating.contains(word) || partNouns.contains(word) || QueryReferences.partKinds[word] != nil
            || ["titled", "called", "named"].contains(word)
    }

    /// Whether a question can point anywhere: it names a date, a part or a
    /// position, or places the moment with a word a title may hold. A question
    /// that cannot is never focused, and its books' structure is not read.
    static func mayLocate(_ references: QueryReferences, words: [String]) -> Bool {
        let located = locatingWords(words)
        return !references.dates.isEmpty || !references.parts.isEmpty || references.position != nil
            || !references.quotedTitles.isEmpty || !titleWords(located.strong + located.weak, calendar: true).isEmpty
    }

    /// The question's locating words found in section titles, voices or places,
    /// each with the units holding it; words common to many of a book's units are
    /// left out. A weak word (locatingWords) counts only in a title holding
    /// another of the question's words (`questionWords`): "on the first day of the
    /// chase" names "The Chase—First Day", "in his cabin" names neither "The
    /// Cabin" nor "The Cabin-Table". Tuning parts, hybrid recall@5, one book /
    /// library: first long set 0.694 / 0.701 -> 0.708 / 0.715 (Father Mapple's
    /// "dangling light ... in his cabin" went from 29th to 1st), second readers'
    /// set 0.745 / 0.736 -> 0.755 / 0.745, readers' set unchanged.
    static func titleMatches(_ located: (strong: [String], weak: [String]), questionWords: [String],
                             units: [String: [SearchSection]]) -> [(String, [SearchSection])] {
        // The words as a dated book reads them, and as one without dates does (titleWords).
        let dated = (strong: titleWords(located.strong), weak: titleWords(located.weak), question: titleWords(questionWords))
        let undated = (strong: titleWords(located.strong, calendar: true), weak: titleWords(located.weak, calendar: true),
                       question: titleWords(questionWords, calendar: true))
        guard !undated.strong.isEmpty || !undated.weak.isEmpty else { return [] }
        var found: [String: [SearchSection]] = [:]
        // Each distinct text split and stemmed once: copies and editions of a book repeat their titles.
        var read: [String: Set<String>] = [:]
        for book in units.values {
            let words = Self.undated(book) ? undated : dated
            let strong = words.strong, asked = words.strong.union(words.weak), question = words.question
            guard !asked.isEmpty else { continue }
            var inBook: [String: [SearchSection]] = [:]
            for unit in book {
                // A diary's thousands of entries: no string built, no set made, for a unit that matches nothing.
                let text = unit.voice == nil && unit.place == nil ? unit.title
                    : [unit.title, unit.voice ?? "", unit.place ?? ""].joined(separator: " ")
                let unitWords = read[text] ?? {
                    let words = Set(QueryText.words(text).filter { !$0.cjk }.map { QueryText.stem($0.text.lowercased()) })
                    read[text] = words
                    return words
                }()
                for word in asked where unitWords.contains(word) {
                    guard strong.contains(word) || question.lazy.filter({ unitWords.contains($0) }).count >= 2 else { continue }
                    inBook[word, default: []].append(unit)
                }
            }
            for (word, matched) in inBook where Double(matched.count) <= commonTitleShare * Double(book.count) || book.count < 3 {
                found[word, default: []] += matched
            }
        }
        return found.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
