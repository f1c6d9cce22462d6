// A plain diary's entries: editions without entry markup (most of Project
// Gutenberg's) write each day as a paragraph that opens with its date, under a
// heading for the month ("JANUARY 1659-1660", then "Jan. 1st (Lord's day).
// This morning...", "2nd. In the morning..."), or under chapters that give no
// date at all ("April 3.—Tradesmen called", "3 May. Bistritz.—Left Munich").
// Inside a unit dated to a month such a paragraph starts an entry; elsewhere
// (a unit dated to a year, or undated) only one that names its month does. The
// entry is a mark one level below, kind "entry", titled "January 2nd" and dated
// '--MM-DD' (the year comes from the unit around it when the outline is read,
// BookOutline.withYear, as for any yearless day). A day written alone ("18th.--")
// after a day with its month in the same unit continues that month; a weekday may
// open the date ("Sunday, April 3rd.--") and a range is dated by its first day
// ("September 12th to 13th."). Two such paragraphs in a unit
// are needed (one "1st." is a numbered point, not a diary), unless the unit is
// someone's journal (a section in a voice, "DR. SEWARD'S DIARY."), and a unit whose
// entries the markup already marks is left as it is.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

struct DayEntries {
    /// Units open at the end of the text read so far (a book's documents are read in turn).
    private var open: [(depth: Int, context: MonthContext?, kind: String?, id: Int, journal: Bool)] = []
    private var nextID = 0
    /// Units that already have entries found in an earlier document, and units that are
    /// someone's journal ("DR. SEWARD'S DIARY."), where one dated paragraph is an entry.
    private var accepted: Set<Int> = []
    /// The month of the last day found in each unit, which a day written alone ("18th.") continues.
    private var lastMonth: [Int: Int] = [:]

    static let weekdays: Set<String> = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]
    /// How far into a paragraph its opening date may reach, in bytes ("September 22nd (Lord's day)." is 30).
    static let openingReach = 64

    /// `marks` with an entry mark added at each dated paragraph they contain.
    mutating func adding(to marks: [PlacedMark], text: [UInt8]) -> [PlacedMark] {
        let sorted = marks.sorted { $0.offset < $1.offset }
        var found: [(unit: Int, mark: PlacedMark)] = []
        var next = 0
        for start in Self.paragraphStarts(text) {
            var atMark = false
            while next < sorted.count && sorted[next].offset <= start + 1 {
                let mark = sorted[next].mark
                if sorted[next].offset >= start { atMark = true }
                enter(mark)
                next += 1
            }
            // A heading's own paragraph, or a unit the markup starts here, is not an entry;
            // nor is a paragraph that cannot open with a day or a month (most of a book).
            guard !atMark, Self.opensWithDayOrMonth(text, at: start) else { continue }
            let innermost = open.last
            if innermost?.kind == "entry" || innermost?.kind == "letter" { continue }
            let dated = open.last { $0.context != nil }
            let context = dated?.context ?? .undated
            let end = min(text.count, start + Self.openingReach)
            guard let opening = Self.opening(String(decoding: text[start..<end], as: UTF8.self)) else { continue }
            let journal = innermost.flatMap { $0.journal ? $0.id : nil }
            let unit = journal ?? dated?.id ?? innermost?.id ?? -1
            let month: Int
            switch (opening.month, context) {
            case (let named?, .month(let m)) where named == m: month = m
            case (let named?, .year), (let named?, .undated): month = named
            case (nil, .month(let m)): month = m
            // "18th.--" after "October 16th.--" in the same unit: the month carries on, as a journal writes it.
            case (nil, .year), (nil, .undated):
                guard let carried = lastMonth[unit] else { continue }
                month = carried
            default: continue
            }
            guard opening.day <= CalendarWords.monthLength[month - 1] else { continue }
            var title = "\(Self.monthNames[month - 1]) \(opening.dayWord)"
            if let aside = opening.aside { title += " \(aside)" }
            let date = "--\(StructureDates.pad(month))-\(StructureDates.pad(opening.day))"
            let mark = StructureMark(at: start, depth: (innermost?.depth ?? -1) + 1, kind: "entry", title: title, date: date,
                                     place: opening.place)
            if let journal { accepted.insert(journal) }
            lastMonth[unit] = month
            found.append((unit, PlacedMark(offset: start, mark: mark)))
        }
        while next < sorted.count { enter(sorted[next].mark); next += 1 }   // units open for the next document
        var count: [Int: Int] = [:]
        for f in found { count[f.unit, default: 0] += 1 }
        let kept = found.filter { count[$0.unit]! >= 2 || accepted.contains($0.unit) }
        for f in kept { accepted.insert(f.unit) }
        guard !kept.isEmpty else { return sorted }
        return (sorted + kept.map(\.mark)).sorted { $0.offset < $1.offset }
    }

    /// A unit starts: it closes the open units at its depth or deeper (an end mark only closes them).
    private mutating func enter(_ mark: StructureMark) {
        while let last = open.last, last.depth >= mark.depth { open.removeLast() }
        if mark.end { return }
        // A section in someone's voice is a journal: a plain Dracula's "DR. SEWARD'S DIARY." holds
        // one day ("_5 October._--We all rose early") before the next voice's header.
        let journal = mark.kind == "section" && mark.voice != nil
        open.append((mark.depth, mark.date.flatMap(Self.monthContext), mark.kind, nextID, journal)); nextID += 1
    }

    /// What the units around a paragraph leave it to say: the day (a unit dated to a
    /// month), or the month and day (a year, or no date at all).
    enum MonthContext { case month(Int), year, undated }

    /// Whether the first word at `start` is one or two figures (with "st", "nd"...)
    /// or a month's name with its capital: read from the bytes, so the paragraphs of
    /// a book that is no diary cost a glance each.
    static func opensWithDayOrMonth(_ text: [UInt8], at start: Int) -> Bool {
        // A plain text writes the date in italics: "_3 May. Bistritz._--Left Munich".
        let start = start < text.count && text[start] == 0x5F ? start + 1 : start
        var end = start
        while end < text.count, end - start <= 9, (0x30...0x39).contains(text[end]) || (0x41...0x5A).contains(text[end] & 0xDF) {
            end += 1
        }
        guard end > start, end - start <= 9 else { return false }
        let first = text[start]
        if (0x30...0x39).contains(first) {
            let figures = text[start..<end].prefix { (0x30...0x39).contains($0) }.count
            return figures <= 2
        }
        guard (0x41...0x5A).contains(first) else { return false }
        let word = String(decoding: text[start..<end], as: UTF8.self).lowercased()
        return CalendarWords.months[word] != nil || weekdays.contains(word)
    }

    /// What a unit's date leaves a paragraph to say: the day ('YYYY-MM', one month of an
    /// Old Style double year), or the month and day ('YYYY'). A unit dated to a day is an
    /// entry already.
    static func monthContext(_ date: String) -> MonthContext? {
        let parts = date.split(separator: "-")
        guard !date.hasPrefix("-"), let first = parts.first, first.count == 4 else { return nil }
        if parts.count == 1 { return .year }
        if parts.count == 2, let m = Int(parts[1]), (1...12).contains(m) { return .month(m) }
        return nil
    }

    struct Opening: Equatable {
        var month: Int?
        var day: Int
        /// The day as the book writes it: "2nd", "22d", "3".
        var dayWord: String
        /// A parenthesis after the date: "(Lord's day)".
        var aside: String?
        /// A place written as its own short sentence before a dash: "3 May. Bistritz.—Left Munich".
        var place: String? = nil
    }

    /// The date a paragraph opens with, when the date is all its first sentence says:
    /// "2nd.", "Jan. 1st (Lord's day).", "September 2nd:", "3 May." A bare number needs a
    /// month beside it ("3." is a numbered point).
    static func opening(_ raw: String) -> Opening? {
        // Word joiners and zero-width spaces ("4 May.\u{2060}—I found") are not there;
        // a no-break space is a space.
        var scalars = String.UnicodeScalarView()
        // A plain text's italics ("_3 May. Bistritz._--Left Munich") are not there either.
        for u in raw.unicodeScalars where !(u == "\u{2060}" || u == "\u{200B}" || u == "\u{FEFF}" || u == "_") {
            scalars.append(u == "\u{00A0}" ? " " : u)
        }
        // A plain text writes a dash as two hyphens ("_4 May._--I found").
        let s = String(scalars).replacing("--", with: "—")
        var i = s.startIndex
        func skipSpaces() { while i < s.endIndex, s[i] == " " { i = s.index(after: i) } }
        func word() -> Substring? {
            let from = i
            while i < s.endIndex, s[i].isLetter || s[i].isNumber { i = s.index(after: i) }
            return from < i ? s[from..<i] : nil
        }
        func peekWord() -> Substring? { let saved = i; defer { i = saved }; return word() }
        guard var first = word() else { return nil }
        // "Sunday, April 3rd.--After service": the weekday before the date.
        if Self.weekdays.contains(first.lowercased()), first.first!.isUppercase {
            if i < s.endIndex, s[i] == "," { i = s.index(after: i) }
            skipSpaces()
            guard let next = word() else { return nil }
            first = next
        }
        var month: Int? = nil
        var dayWord: Substring
        var stoppedAfterMonth = false   // "3 May." ends on the month's stop
        if let m = CalendarWords.months[first.lowercased()], first.first!.isUppercase {
            month = m
            if i < s.endIndex, s[i] == "." { i = s.index(after: i) }
            skipSpaces()
            guard let d = word(), StructureDates.day(d) != nil else { return nil }
            dayWord = d
        } else if StructureDates.day(first) != nil {
            dayWord = first
            let saved = i
            skipSpaces()
            if let w = peekWord(), let m = CalendarWords.months[w.lowercased()], w.first!.isUppercase {
                _ = word(); month = m
                if i < s.endIndex, s[i] == "." {
                    i = s.index(after: i)
                    stoppedAfterMonth = i == s.endIndex || s[i] == " " || s[i] == "\n"
                }
            } else {
                i = saved
            }
            guard month != nil || dayWord.contains(where: \.isLetter) else { return nil }
        } else {
            return nil
        }
        guard let day = StructureDates.day(dayWord) else { return nil }
        // A range of days is dated by its first: "September 12th to 13th", "April 4th to July 5th, 1832".
        skipSpaces()
        if !stoppedAfterMonth, peekWord() == "to" {
            _ = word(); skipSpaces()
            if let w = peekWord(), CalendarWords.months[w.lowercased()] != nil, w.first!.isUppercase {
                _ = word()
                if i < s.endIndex, s[i] == "." { i = s.index(after: i) }
                skipSpaces()
            }
            guard let last = word(), StructureDates.day(last) != nil else { return nil }
            skipSpaces()
        }
        var aside: String? = nil
        if i < s.endIndex, s[i] == "(" {
            guard let close = s[i...].firstIndex(of: ")"), s.distance(from: i, to: close) <= 40,
                  !s[i..<close].contains("\n") else { return nil }
            aside = String(s[i...close])
            i = s.index(after: close)
            skipSpaces()
        }
        // The date is the sentence: a stop after it, then the entry's words (or nothing).
        let stopped = i < s.endIndex && ".:,;—".contains(s[i])
        if stopped { i = s.index(after: i) }
        if stopped {
            // "April 3.—Tradesmen called": a dash may follow the stop, or be it.
            let dash: Set<Character> = ["—", "–", "-"]
            guard i == s.endIndex || s[i] == " " || s[i] == "\n" || dash.contains(s[i]) || dash.contains(s[s.index(before: i)]) else { return nil }
        } else {
            guard stoppedAfterMonth && aside == nil else { return nil }
        }
        return Opening(month: month, day: day, dayWord: String(dayWord), aside: aside, place: place(s[i...]))
    }

    /// "Bistritz" in " Bistritz.—Left Munich": capitalised, a few words without figures,
    /// a stop and a dash after it (a plain sentence, "All the day at the office.", has none).
    static func place(_ rest: Substring) -> String? {
        let text = rest.drop { $0 == " " }
        guard let stop = text.prefix(32).firstIndex(of: "."), let first = text.first, first.isUppercase else { return nil }
        let after = text[text.index(after: stop)...]
        guard let dash = after.first, dash == "—" || dash == "–" else { return nil }
        let name = text[..<stop]
        guard !name.contains(where: \.isNumber), name.split(separator: " ").count <= 4,
              !StructureDates.isTimeOfDay(String(name)) else { return nil }
        return String(name)
    }

    /// Byte offsets where paragraphs start: the text's first non-space and the first
    /// non-space after each blank line.
    static func paragraphStarts(_ text: [UInt8]) -> [Int] {
        text.withUnsafeBufferPointer { bytes in
            var starts: [Int] = []
            let n = bytes.count
            func nonSpace(from i: Int) -> (at: Int, newlines: Int) {
                var i = i, newlines = 0
                while i < n, Pagination.isSpace(bytes[i]) { if bytes[i] == 0x0A { newlines += 1 }; i += 1 }
                return (i, newlines)
            }
            let first = nonSpace(from: 0).at
            if first < n { starts.append(first) }
            // From one newline to the next (memchr): a paragraph starts after a blank line.
            var i = first
            while i < n, let found = memchr(bytes.baseAddress! + i, 0x0A, n - i) {
                let newline = bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
                let next = nonSpace(from: newline)
                if next.at < n && next.newlines >= 2 { starts.append(next.at) }
                i = max(next.at, newline + 1)
            }
            return starts
        }
    }
}
