// A plain text's headings, which become the book's structure (its pages stay
// as they are), so that "in chapter 12", "in Act 3" or "第十二章里" finds its part.
//
// Chinese novels in TXT put each heading on a line of its own, blank lines or
// not: a counted part with or without its title ("第十二章", "第一卷　风起") or a
// diary's day ("五月四日 晴", "1937年5月4日"; a year alone, "1937年", holds them).
//
// English texts (Project Gutenberg's, and what converters write) set a heading
// off as a paragraph of one line: "CHAPTER I", "CHAPTER 1. Loomings.", "ACT III",
// "SCENE II. A room in the castle.", "BOOK ONE: 1805", "Stave Three", "SONNET
// XVIII", a bare numeral ("XIV", "12.") counting on from the one before, or a
// month ("JANUARY 1659-1660"). A journal's or a letter's header is a unit too
// ("DR. SEWARD'S DIARY.", "_Letter, Mina Murray to Lucy Westenra._"), with its
// voice; the days inside are DayEntries'. A title line right after a bare label
// is its title ("I" then "Jonathan Harker's Journal."; "PART I" then "1805"), as
// is the line right under it ("CHAPTER I." then "Down the Rabbit-Hole").
// Chapters with a title and no number are the lines the contents list names
// (TextContents). That list is also a run of headings with nothing between
// them: a run that counts the same kind twice is dropped. A collection's
// titles on lines of their own, with no list to name them ("A Scandal in
// Bohemia"), are TextTitles'.
//
// Two headings are needed: one alone is a line of the text.
import IBCore

enum TextHeadings {
    /// A Chinese heading line is short: at most this many characters.
    static let maxCharacters = 40
    /// An English heading paragraph is one line of at most this many characters
    /// (a letter's header may take `headerLines` lines, up to `maxHeaderCharacters`).
    static let maxEnglishCharacters = 80
    static let headerLines = 2
    static let maxHeaderCharacters = 160
    /// Headings with less text than this between them (in bytes) are a contents
    /// list, not units: a list has nothing between its lines, a part has its text.
    static let contentsGap = 1
    /// At most this many headings are kept (a web novel has a few thousand
    /// chapters; a hostile file of heading lines must not grow the marks without end).
    static let maxHeadings = 20_000

    struct Heading {
        var offset: Int
        var title: String
        /// book, part, chapter, act, scene, section, letter, entry; "work" (a collection's
        /// story or essay, TextTitles), "year", "dated" (a month),
        /// "titled" (a title the contents list names), "contents" (the list's heading) and
        /// "licence" (Project Gutenberg's, after its end line) are units without kind.
        var kind: String
        var number: Int? = nil
        var voice: String? = nil
        /// A bare numeral ("XIV"): a heading only in a count.
        var bare = false
        /// Bytes of the text's own paragraphs between the heading before and this one.
        var gap = Int.max
    }

    static func marks(_ text: [UInt8]) -> [PlacedMark] {
        var found: [Heading] = []
        var paragraph: [Range<Int>] = []   // the current paragraph's lines, while it is short enough to be a heading
        var paragraphBytes = 0
        var body = 0                       // bytes of the text's paragraphs since the last heading
        var titleFor: Int? = nil           // a bare label's index, waiting for its title line
        var contents = TextContents()      // the contents list, and the titled headings it names
        var endSeen = false                // Project Gutenberg's end line, after which all is its licence
        var loose: [(offset: Int, title: String)] = []   // lines written as titles, perhaps a collection's (TextTitles)

        func endParagraph() {
            defer { paragraph.removeAll(keepingCapacity: true); paragraphBytes = 0 }
            guard paragraphBytes > 0 else { return }
            let waiting = titleFor
            titleFor = nil
            var heading = paragraph.count <= headerLines ? englishHeading(text, paragraph) : nil
            // "CHAPTER I." with its title on the next line, as recent Project Gutenberg texts print it.
            if heading == nil, paragraph.count == 2, var label = englishHeading(text, [paragraph[0]]), label.number != nil,
               isLabelAlone(label.title), let line = title(text, paragraph[1]) {
                label.title = titled(label.title, line)
                heading = label
            }
            let reading = contents.read(text, paragraph, isHeading: heading != nil)
            // The contents list is the publisher's page it is in an EPUB, as is Project Gutenberg's
            // licence after its end line: units of their own, so that search knows them.
            if reading == .listHeading {
                // "Contents" may head its list's lines.
                found.append(Heading(offset: paragraph[0].lowerBound, title: lineText(text, [paragraph[0]]), kind: "contents", gap: body))
                body = 0
                return
            }
            if !endSeen && isGutenbergEnd(text, paragraph) {
                endSeen = true
                found.append(Heading(offset: paragraph[0].lowerBound, title: lineText(text, paragraph), kind: "licence", gap: body))
                body = 0
                return
            }
            // A year right after a label is its title ("PART I", then "1805"), not a diary's year.
            if let i = waiting, let year = heading, year.kind == "year" {
                found[i].title = titled(found[i].title, year.title)
                return
            }
            if var heading {
                heading.gap = body; body = 0
                if heading.number != nil && isLabelAlone(heading.title) { titleFor = found.count }
                found.append(heading)
                return
            }
            if let i = waiting, reading != .listed, paragraph.count == 1, let line = title(text, paragraph[0]) {
                found[i].title = titled(found[i].title, line)
                return
            }
            if reading == .named, let title = title(text, paragraph[0]) {
                found.append(Heading(offset: paragraph[0].lowerBound, title: title.replacing("_", with: ""), kind: "titled", gap: body))
                body = 0
                return
            }
            if reading == .text, paragraph.count == 1, loose.count < maxHeadings, let title = TextTitles.candidate(text, paragraph[0]) {
                loose.append((paragraph[0].lowerBound, title))
            }
            if reading != .listed { body += paragraphBytes }   // the list's lines are not text between its heading and the next
        }

        var start = 0
        // After Project Gutenberg's end line all is its licence ("Section 1. General Terms of Use" is none of the book's).
        while start < text.count && found.count < maxHeadings && !endSeen {
            let end = text[start...].firstIndex(of: 0x0A) ?? text.count
            let line = trimmed(text, start..<end)
            if line.isEmpty {
                endParagraph()
            } else {
                // A Chinese heading is a line whatever is around it.
                if end - start <= maxCharacters * 4, var heading = chineseHeading(text, line) {
                    endParagraph()
                    heading.gap = body; body = 0
                    found.append(heading)
                } else {
                    if paragraph.count <= headerLines || (contents.wantsEveryLine && paragraph.count < TextContents.maxTitles) {
                        paragraph.append(line)
                    }
                    paragraphBytes += line.count
                }
            }
            start = end + 1
        }
        endParagraph()
        var kept = withoutContents(counted(found))
        kept = (kept + TextTitles.collected(loose, headings: kept, textBytes: text.count)).sorted { $0.offset < $1.offset }
        // Two headings of the book's own are needed; the publisher's pages alone are no structure.
        guard kept.filter({ !isPublishers($0.kind) }).count >= 2 else { return [] }
        return nest(kept)
    }

    /// "*** END OF THE PROJECT GUTENBERG EBOOK DRACULA ***", or the older "End of the
    /// Project Gutenberg EBook of Dracula, by Bram Stoker": the book's text is over.
    static func isGutenbergEnd(_ text: [UInt8], _ lines: [Range<Int>]) -> Bool {
        guard lines.count <= 2, let first = lines.first, first.count <= 160,
              text[first.lowerBound] == UInt8(ascii: "*") || text[first.lowerBound] | 0x20 == UInt8(ascii: "e") else { return false }
        let line = lineText(text, lines).lowercased().drop { $0 == "*" || $0 == " " }
        return line.hasPrefix("end of") && line.contains("project gutenberg")
    }

    static func lineText(_ text: [UInt8], _ lines: [Range<Int>]) -> String {
        lines.map { String(decoding: text[$0], as: UTF8.self) }.joined(separator: " ")
    }

    // MARK: Which headings stay

    /// The headings without the contents lists: runs of headings with less than
    /// `contentsGap` bytes of text between them, in which a kind comes twice. Where
    /// the list runs straight into the text, the text starts where the run's first
    /// heading comes again ("CHAPTER I" once more).
    static func withoutContents(_ all: [Heading]) -> [Heading] {
        func distinctKinds(_ run: ArraySlice<Heading>) -> Bool { Set(run.map(\.kind)).count == run.count }
        // A title the list names is found only after the list: never a line of it.
        let headings = all.filter { !isPublishers($0.kind) && $0.kind != "titled" }
        var kept: [Heading] = []
        var i = 0
        while i < headings.count {
            var j = i + 1
            while j < headings.count && headings[j].gap < contentsGap { j += 1 }
            let run = headings[i..<j]
            if distinctKinds(run) {
                kept += run
            } else if let number = run[i].number,
                      let again = run.indices.first(where: { $0 > i && run[$0].kind == run[i].kind && run[$0].number == number }),
                      distinctKinds(run[again...]) {
                kept += run[again...]
            }
            i = j
        }
        // The publisher's units stay, out of the runs; the contents list's heading only where the
        // list runs into the book's first kept heading (its unit would hold a preface otherwise).
        let own = all.filter { !isPublishers($0.kind) }
        let titled = own.filter { $0.kind == "titled" }
        let others = all.filter { heading in
            guard heading.kind == "contents" else { return heading.kind == "licence" || heading.kind == "titled" }
            guard let next = (kept + titled).filter({ $0.offset > heading.offset }).min(by: { $0.offset < $1.offset }) else { return false }
            return !own.contains { $0.offset > heading.offset && $0.offset <= next.offset && $0.gap > 0 }
        }
        return (kept + others).sorted { $0.offset < $1.offset }
    }

    /// The contents list's heading and Project Gutenberg's licence: the publisher's pages, not the book's.
    static func isPublishers(_ kind: String) -> Bool { kind == "contents" || kind == "licence" }

    /// Bare numerals kept only where they count: each one more than the bare one
    /// before it, or the first of a count (1, or followed by its next).
    static func counted(_ headings: [Heading]) -> [Heading] {
        let bare = headings.indices.filter { headings[$0].bare }
        var drop = Set<Int>()
        var last: Int? = nil
        for (k, i) in bare.enumerated() {
            let n = headings[i].number!
            let next = k + 1 < bare.count ? headings[bare[k + 1]].number : nil
            if n == 1 || last.map({ n == $0 + 1 }) == true || next == n + 1 { last = n } else { drop.insert(i) }
        }
        return headings.indices.filter { !drop.contains($0) }.map { headings[$0] }
    }

    // MARK: Nesting

    /// Depth by kind: books hold parts, parts chapters (acts, and months of a
    /// diary), chapters scenes and sections (a journal, a letter), sections entries.
    /// Where volumes ("part") come before the first book, they hold the books.
    static func nest(_ headings: [Heading]) -> [PlacedMark] {
        let partsOutside = (headings.firstIndex { $0.kind == "part" }).map { part in
            headings.firstIndex { $0.kind == "book" }.map { part < $0 } ?? false
        } ?? false
        func level(_ kind: String) -> Int {
            switch kind {
            case "work": return -2
            case "year": return -1
            case "book": return partsOutside ? 1 : 0
            case "part": return partsOutside ? 0 : 1
            case "section", "scene", "letter": return 3
            case "entry": return 4
            default: return 2
            }
        }
        // The publisher's pages (the contents list, a licence) stand at the outermost level: they close every unit.
        let outermost = headings.filter { !isPublishers($0.kind) }.map { level($0.kind) }.min() ?? 0
        func levelOf(_ kind: String) -> Int { isPublishers(kind) ? outermost : level(kind) }
        let levels = Array(Set(headings.map { levelOf($0.kind) })).sorted()
        return headings.map { heading in
            var placed = DocumentStructure.mark(title: heading.title, depth: levels.firstIndex(of: levelOf(heading.kind)) ?? 0,
                                                offset: heading.offset)
            switch heading.kind {
            case "entry", "letter", "section": placed.mark.kind = heading.kind
            case "work", "year", "dated", "titled", "contents", "licence": placed.mark.kind = nil
            default: placed.mark.kind = heading.kind
            }
            if let number = heading.number { placed.mark.number = number }
            placed.mark.voice = heading.voice
            return placed
        }
    }

    // MARK: English headings

    /// A paragraph that is a heading: a numbered part, a bare numeral, a month,
    /// or a journal's or letter's header.
    static func englishHeading(_ text: [UInt8], _ lines: [Range<Int>]) -> Heading? {
        guard let first = lines.first, isASCIIWordStart(text[first.lowerBound]), let shape = shape(text, lines) else { return nil }
        let raw = lines.map { String(decoding: text[$0], as: UTF8.self) }.joined(separator: " ")
        // Gutenberg's italics: "_Letter, Mina Murray to Lucy Westenra._"
        let title = raw.replacing("_", with: "").trimmingCharacters(in: "*")
        guard !title.isEmpty, title.count <= maxHeaderCharacters else { return nil }
        switch shape {
        case .letter:
            // "Letter, Mina Murray to Lucy Westenra."; else a numbered one, "LETTER IV", is a part.
            if let voice = StructureTitles.letterVoice(title) {
                return Heading(offset: first.lowerBound, title: title, kind: "letter", voice: voice)
            }
            guard lines.count == 1 else { return nil }
        case .journal:
            // "DR. SEWARD'S DIARY."
            guard let voice = StructureTitles.diaryVoice(title), isHeaderAlone(title) else { return nil }
            return Heading(offset: first.lowerBound, title: title, kind: "section", voice: voice)
        case .part:
            break
        }
        guard title.count <= maxEnglishCharacters else { return nil }
        let (kind, number) = StructureTitles.kindAndNumber(title)
        if let kind, let number, number > 0 {
            let words = title.split(whereSeparator: { $0 == " " || $0 == "." || $0 == ":" })
            let bare = StructureTitles.isNumeral(title, first: words[0])
            // A bare numeral stands alone or before a title ("XIV. The Masthead"), not a sentence ("4 May.--I found").
            if bare, words.count > 1, CalendarWords.months[words[1].lowercased()] != nil { return nil }   // "9 May." is a day
            if bare, words.count > 1, Self.title(String(title.dropFirst(words[0].count).drop { " .:—-".contains($0) })) == nil { return nil }
            // A bare year ("1660") heads a diary's year.
            if bare, number >= 1000, number <= 2100, StructureDates.parse(title)?.from == String(number) {
                return Heading(offset: first.lowerBound, title: title, kind: "year")
            }
            return Heading(offset: first.lowerBound, title: title, kind: kind, number: number, bare: bare)
        }
        if isMonthHeading(title) { return Heading(offset: first.lowerBound, title: title, kind: "dated") }
        return nil
    }

    /// Words a heading paragraph may open with: a kind ("CHAPTER", "Stave"), a numbered
    /// poem ("SONNET"), an ordinal before a kind ("Second Book"), a month ("JANUARY 1660").
    static let openingWords: Set<String> = Set(StructureTitles.kindWords.keys).union(PartWords.numberedPoems)
        .union(CalendarWords.ordinals.keys).union(CalendarWords.months.keys)
    static let letterWords: Set<String> = ["letter", "telegram", "note"]

    /// What kind of heading a paragraph may be, from a glance at its bytes before any
    /// string is made of it: most paragraphs of a book open with a word no heading opens
    /// with, and only a short one names a journal.
    enum Shape { case part, letter, journal }

    static func shape(_ text: [UInt8], _ lines: [Range<Int>]) -> Shape? {
        let line = lines[0]
        var i = line.lowerBound
        if text[i] == 0x5F { i += 1 }   // "_Letter, ..."
        let start = i
        while i < line.upperBound, i - start <= 12, (0x30...0x39).contains(text[i]) || (0x41...0x5A).contains(text[i] & 0xDF) { i += 1 }
        let word = text[start..<i]
        if !word.isEmpty && word.count <= 12 {
            let lower = String(decoding: word, as: UTF8.self).lowercased()
            if lines.count <= 2, letterWords.contains(lower) { return .letter }
            if lines.count == 1 && line.count <= maxEnglishCharacters * 4 {
                // A bare numeral ends its line or has a stop after it ("XIV", "XIV. The Masthead"), where
                // a sentence goes on after a space ("I think so", "12 men").
                let numeralEnds = i == line.upperBound || text[i] != 0x20
                if numeralEnds, word.allSatisfy({ (0x30...0x39).contains($0) }) { return .part }
                if openingWords.contains(lower) { return .part }
                if numeralEnds, word.allSatisfy({ "ivxlcdm".utf8.contains($0 | 0x20) }), CalendarWords.roman(lower) != nil { return .part }
            }
        }
        // A journal's header: one short line with a possessive before its word ("DR. SEWARD'S DIARY.").
        guard lines.count == 1, line.count <= 60 * 4 else { return nil }
        var k = line.lowerBound
        while k + 3 < line.upperBound {
            if text[k + 1] | 0x20 == 0x73, text[k + 2] == 0x20, text[k] == 0x27 || text[k] == 0x99,   // 's or ’s
               journalWords.contains(where: { startsWithWord(text, at: k + 3, $0) }) {
                return .journal
            }
            k += 1
        }
        return nil
    }

    /// What a journal's header calls it (StructureTitles.diaryVoice reads the same words).
    static let journalWords = StructureTitles.journalWords.map { Array($0.utf8) }

    static func startsWithWord(_ text: [UInt8], at i: Int, _ word: [UInt8]) -> Bool {
        guard i + word.count <= text.count else { return false }
        for (n, b) in word.enumerated() where text[i + n] | 0x20 != b { return false }
        return true
    }

    /// "JANUARY 1659-1660", "May, 1660.": a month and its year, and nothing else.
    static func isMonthHeading(_ title: String) -> Bool {
        guard let date = StructureDates.parse(title), date.from.count == 7, !date.from.hasPrefix("-") else { return false }
        let words = title.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        return words.count <= 3 && words.allSatisfy { CalendarWords.months[$0.lowercased()] != nil || $0.allSatisfy(\.isNumber) }
    }

    /// Whether a journal's header says nothing after naming the journal ("MINA MURRAY'S
    /// JOURNAL." or "Dr. Seward's Diary—continued"), unlike a sentence that names one.
    static func isHeaderAlone(_ title: String) -> Bool {
        guard title.count <= 60 else { return false }
        let lower = title.lowercased()
        guard let keyword = StructureTitles.journalWords
            .compactMap({ lower.firstRange(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) else { return false }
        let rest = lower[keyword.upperBound...].split(whereSeparator: { !$0.isLetter })
        return rest.count <= 3 && !rest.contains { ["was", "is", "had", "has", "and", "which", "that"].contains($0) }
    }

    /// A label with its title: "I: Loomings", "CHAPTER I. Down the Rabbit-Hole" (a stop is kept as the label has it).
    static func titled(_ label: String, _ title: String) -> String {
        label.hasSuffix(".") || label.hasSuffix(":") ? label + " " + title : label + ": " + title
    }

    /// "CHAPTER I", "I", "Act 3.": a part's label with no title of its own.
    static func isLabelAlone(_ title: String) -> Bool {
        let words = title.split(whereSeparator: { $0 == " " || $0 == "." || $0 == ":" })
        return words.count == 1 || (words.count == 2 && StructureTitles.kindWords[words[0].lowercased()] != nil)
    }

    /// A line that titles the label before it: short, and written as a title is,
    /// all in capitals or each longer word with its capital ("Jonathan Harker's Journal.").
    static func title(_ text: [UInt8], _ line: Range<Int>) -> String? {
        guard line.count <= 60 * 4, isASCIIWordStart(text[line.lowerBound]), text[line.lowerBound] >= 0x41 else { return nil }
        return title(String(decoding: text[line], as: UTF8.self).trimmingCharacters(in: "_*"))
    }

    static func title(_ s: String) -> String? {
        let words = s.split(separator: " ")
        guard s.count <= 60, let first = s.first, first.isUppercase, words.count <= 8 else { return nil }
        let letters = s.filter(\.isLetter)
        if letters.allSatisfy(\.isUppercase) { return s }
        let long = words.filter { $0.filter(\.isLetter).count >= 4 && !smallWords.contains($0.lowercased()) }
        return long.allSatisfy { $0.first?.isUppercase == true } ? s : nil
    }

    /// Longer words a title leaves in lower case ("The Man with the Twisted Lip").
    static let smallWords: Set<String> = [
        "with", "from", "into", "onto", "upon", "unto", "over", "till", "near", "down", "past", "than",
        "under", "along", "among", "after", "about", "above", "below", "across", "against", "around",
        "before", "behind", "beyond", "during", "through", "toward", "towards", "within", "without",
    ]

    static func isASCIIWordStart(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
    }

    /// The line without its surrounding spaces, tabs, CRs and full-width spaces.
    static func trimmed(_ text: [UInt8], _ line: Range<Int>) -> Range<Int> {
        var low = line.lowerBound, high = line.upperBound
        while true {
            if low < high, text[low] == 0x20 || text[low] == 0x09 || text[low] == 0x0D { low += 1; continue }
            // A full-width space (U+3000, E3 80 80) indents many Chinese texts.
            if low + 2 < high, text[low] == 0xE3, text[low + 1] == 0x80, text[low + 2] == 0x80 { low += 3; continue }
            break
        }
        while high > low, text[high - 1] == 0x20 || text[high - 1] == 0x09 || text[high - 1] == 0x0D { high -= 1 }
        return low..<high
    }

    // MARK: Chinese headings

    /// The line as a heading when it is one: not a sentence (no full stop at its
    /// end), opening with a counted part (its kind), a day (an "entry") or a year
    /// alone (a "year", a unit without kind).
    static func chineseHeading(_ text: [UInt8], _ line: Range<Int>) -> Heading? {
        // Most lines open with neither a CJK character (3 bytes, lead byte E3 to E9: U+3000 to
        // U+9FFF; not E2, punctuation such as an English text's opening quote) nor a figure: not decoded.
        guard !line.isEmpty, (0xE3...0xE9).contains(text[line.lowerBound]) || (text[line.lowerBound] >= 0x30 && text[line.lowerBound] <= 0x39) else {
            return nil
        }
        let title = String(decoding: text[line], as: UTF8.self).trimmed
        guard title.count <= maxCharacters, !title.hasSuffix("。"), !title.hasSuffix(".") else { return nil }
        let opening = String(title.prefix(16))
        if let counted = CJKNumerals.countedParts(opening).first, counted.range.lowerBound == 0, counted.number > 0 {
            return Heading(offset: line.lowerBound, title: title, kind: counted.kind)
        }
        // A diary's day: "五月四日 晴", "1937年5月4日"; its year on a line of its own: "1937年", "一九三七年".
        if let date = CJKDates.find(opening).first, date.range.lowerBound == 0, !title.contains("，") {
            if date.precise { return Heading(offset: line.lowerBound, title: title, kind: "entry") }
            if date.from == nil, date.range.upperBound == title.count { return Heading(offset: line.lowerBound, title: title, kind: "year") }
        }
        return nil
    }
}
