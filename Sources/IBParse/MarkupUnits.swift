// Dated and addressed units as EPUB markup marks them (Standard Ebooks and
// the DAISY z3998 vocabulary): diaries (z3998:diary, se:diary), their entries
// (z3998:diary-entry), letters and telegrams (z3998:letter), their headers
// (<header>), and datelines (se:diary.dateline, se:letter.dateline, with
// <time datetime> when given; a <time> that opens an entry's first paragraph,
// as in Pepys's diary, is its dateline too), and a quoted document with a
// header of its own and no type (a <blockquote> with a <header>: Dracula's
// newspaper cuttings, "The Pall Mall Gazette, 18 September."; a proclamation).
// HTMLTextExtractor reports elements here as it reads; the byte offsets are
// into its text.

final class MarkupUnitCollector {
    enum Kind { case diary, entry, letter, dateline, document }

    struct Unit {
        var kind: Kind
        var start: Int
        var end: Int = -1
        /// Byte ranges of the header's paragraphs (or the whole header when it has none).
        var header: [Range<Int>] = []
        /// The dateline's range and its <time datetime>.
        var dateline: Range<Int>?
        var datetime: String?
        /// A second dateline in the same paragraph: the end of a date range.
        var datelineTo: Range<Int>?
        var datetimeTo: String?
        /// The first italic run of the unit's first paragraph: a diary entry's date ("3 May. Bistritz.").
        var lead: Range<Int>?
        /// Bold text before a dateline in its paragraph: the Beagle's places.
        var bold: Range<Int>?
        /// The unit holds a heading: it is a chapter that is also a diary.
        var hasHeading = false
    }

    private(set) var units: [Unit] = []
    /// Whether the document is front or back matter, and which (it sees every epub:type too).
    private(set) var matter = DocumentMatter()
    /// Open elements: name, and the unit it opened (an index into `units`) if any.
    private var stack: [(name: String, unit: Int?)] = []
    private var openUnits: [Int] = []
    private var headerStart: Int?
    private var headerParagraphs: [Range<Int>] = []
    private var paragraphStart: Int?
    private var paragraphsInUnit = 0
    private var italicStart: Int?
    private var boldStart: Int?
    private var lastBold: Range<Int>?
    private var datelineStart: Int?
    private var datelineUnit: Int?
    private var timeAttribute: String?
    /// A <time> opening an entry's first paragraph: where it starts, its datetime, its entry.
    private var openingTime: (start: Int, datetime: String?, unit: Int)?

    static func kind(epubType: String) -> Kind? {
        let words = epubType.split(separator: " ")
        if words.contains("z3998:diary-entry") { return .entry }
        if words.contains("z3998:letter") { return .letter }
        if words.contains("z3998:diary") || words.contains("se:diary") { return .diary }
        if words.contains("se:diary.dateline") || words.contains("se:letter.dateline") { return .dateline }
        return nil
    }

    func start(_ name: String, epubType: String?, datetime: String?, at offset: Int) {
        matter.see(name, epubType: epubType)
        var opened: Int? = nil
        // An untyped blockquote may be a document of its own: a unit if a header opens in it.
        let kind = epubType.flatMap(Self.kind) ?? (name == "blockquote" ? .document : nil)
        if let kind, kind != .dateline {
            units.append(Unit(kind: kind, start: offset))
            opened = units.count - 1
            openUnits.append(units.count - 1)
            // A quotation inside an entry counts among the entry's paragraphs, as it did before
            // blockquotes could be units: only an entry's first paragraph holds its date.
            if kind != .document { paragraphsInUnit = 0 }
        }
        stack.append((name, opened))
        if kind == .dateline && datelineStart == nil {
            datelineStart = offset
            datelineStackIndex = stack.count - 1
            // A dateline outside any entry or letter starts an entry at its paragraph.
            if let u = openUnits.last, units[u].kind != .diary {
                datelineUnit = u
            } else if let u = units.indices.last, units[u].kind == .dateline, units[u].start == (paragraphStart ?? offset) {
                // A second dateline in the same paragraph ("April 4th to July 5th"): the range's end.
                datelineUnit = u
            } else {
                // A marker, not a container: it ends where it starts.
                var unit = Unit(kind: .dateline, start: paragraphStart ?? offset, end: paragraphStart ?? offset)
                if let bold = lastBold, bold.lowerBound >= (paragraphStart ?? offset) { unit.bold = bold }
                units.append(unit)
                datelineUnit = units.count - 1
            }
        }
        if name == "time", datelineStart != nil, let datetime { timeAttribute = datetime }
        if name == "time", datelineStart == nil, openingTime == nil, headerStart == nil, paragraphsInUnit == 1,
           let u = openUnits.last, units[u].kind == .entry, units[u].dateline == nil, units[u].lead == nil,
           let p = paragraphStart, offset - p <= 2 {
            openingTime = (offset, datetime, u)
        }
        switch name {
        case "header" where !openUnits.isEmpty && headerStart == nil:
            headerStart = offset; headerParagraphs = []
        case "p":
            paragraphStart = offset; lastBold = nil
            if headerStart == nil && !openUnits.isEmpty { paragraphsInUnit += 1 }
        case "i", "em":
            if italicStart == nil && headerStart == nil && paragraphsInUnit == 1 { italicStart = offset }
        case "b", "strong": boldStart = offset
        case "h1", "h2", "h3", "h4", "h5", "h6":
            if let u = openUnits.last { units[u].hasHeading = true }
        default: break
        }
    }

    func end(_ name: String, at offset: Int) {
        guard let index = stack.lastIndex(where: { $0.name == name }) else { return }
        for i in stride(from: stack.count - 1, through: index, by: -1) {
            close(stack[i].name, unit: stack[i].unit, index: i, at: offset)
        }
        stack.removeSubrange(index...)
    }

    private func close(_ name: String, unit: Int?, index: Int, at offset: Int) {
        switch name {
        case "header":
            if let start = headerStart, let u = openUnits.last {
                units[u].header = headerParagraphs.isEmpty ? [start..<offset] : headerParagraphs
                headerStart = nil
            }
        case "p":
            if let start = paragraphStart, headerStart != nil { headerParagraphs.append(start..<offset) }
            paragraphStart = nil
        case "i", "em":
            if let start = italicStart, let u = openUnits.last, units[u].lead == nil, units[u].kind == .entry {
                units[u].lead = start..<offset
            }
            italicStart = nil
        case "b", "strong":
            if let start = boldStart { lastBold = start..<offset }
            boldStart = nil
        case "time":
            if let t = openingTime, units[t.unit].dateline == nil {
                units[t.unit].dateline = t.start..<offset
                units[t.unit].datetime = t.datetime
            }
            openingTime = nil
        default: break
        }
        if index == datelineStackIndex, let start = datelineStart, let u = datelineUnit {
            if units[u].dateline == nil {
                units[u].dateline = start..<offset
                units[u].datetime = timeAttribute
            } else if units[u].datelineTo == nil {
                units[u].datelineTo = start..<offset
                units[u].datetimeTo = timeAttribute
            }
            datelineStart = nil; datelineUnit = nil; datelineStackIndex = nil; timeAttribute = nil
        }
        if let unit {
            units[unit].end = offset
            openUnits.removeAll { $0 == unit }
        }
    }

    private var datelineStackIndex: Int?

    /// Units in document order with their nesting closed at `end`.
    func finish(at end: Int) -> [Unit] {
        for u in units.indices where units[u].end < 0 { units[u].end = end }
        return units
    }
}
