// The structure marks of one document's text, at byte offsets: its table of
// contents entries (the whole nav hierarchy), headings the table of contents
// does not list (Hamlet's scenes when the nav stops at acts), and the dated
// and addressed units of the markup (MarkupUnitCollector). Pagination then
// places each mark on its page (Pagination.assign).
import IBCore

/// A mark whose `at` is still a byte offset into its document's text.
struct PlacedMark {
    var offset: Int
    var mark: StructureMark
}

struct DocumentStructure {
    /// A table of contents entry that points into the document.
    struct Entry { var offset: Int; var depth: Int; var title: String }
    struct Heading { var offset: Int; var level: Int; var title: String }

    /// Headings closer than this after a listed entry's start are its own title (or hgroup subtitle).
    static let titleReach = 160

    static func mark(title: String, depth: Int, offset: Int) -> PlacedMark {
        let (kind, number) = StructureTitles.kindAndNumber(title)
        var mark = StructureMark(at: offset, depth: depth, kind: kind, number: number, title: title)
        if let date = StructureDates.parse(title) { mark.date = date.from; mark.dateTo = date.to }
        return PlacedMark(offset: offset, mark: mark)
    }

    /// Marks from the table of contents and the headings it does not list.
    static func outline(entries: [Entry], headings: [Heading], baseDepth: Int) -> [PlacedMark] {
        var marks = entries.map { mark(title: $0.title, depth: $0.depth, offset: $0.offset) }
        // An entry's own title is the first heading at its start; a heading right after it
        // is a subtitle (an hgroup's) unless it names a unit of its own ("Scene I").
        var listed = Set<Int>()
        for entry in entries {
            let near = headings.indices.filter { headings[$0].offset >= entry.offset && headings[$0].offset - entry.offset < titleReach }
            for (n, i) in near.enumerated() where n == 0 || StructureTitles.kindAndNumber(headings[i].title).kind == nil {
                listed.insert(i)
            }
        }
        let unlisted = headings.indices.filter { !listed.contains($0) }.map { headings[$0] }
        // A document's own single heading is its title, not a unit inside it.
        guard entries.isEmpty ? unlisted.count >= 2 : !unlisted.isEmpty else { return marks }
        let top = unlisted.map(\.level).min() ?? 1
        let sortedEntries = marks.sorted { $0.offset < $1.offset }
        for h in unlisted {
            let enclosing = sortedEntries.last { $0.offset <= h.offset }
            let depth = (enclosing.map { $0.mark.depth + 1 } ?? baseDepth) + (h.level - top)
            marks.append(mark(title: h.title, depth: depth, offset: h.offset))
        }
        return marks.sorted { $0.offset < $1.offset }
    }

    /// A front or back matter document's outermost units take its kind
    /// (DocumentMatter: "introduction", "preface"), unless their titles name one.
    static func mark(_ outline: inout [PlacedMark], asMatter kind: String) {
        guard let top = outline.map(\.mark.depth).min() else { return }
        for i in outline.indices where outline[i].mark.depth == top && outline[i].mark.kind == nil { outline[i].mark.kind = kind }
    }

    /// Marks for the diaries, entries, letters and datelines of the markup, nested below `outline`.
    static func units(_ units: [MarkupUnitCollector.Unit], text: [UInt8], outline: [PlacedMark], baseDepth: Int,
                      carried: inout [Int: String]) -> [PlacedMark] {
        func string(_ range: Range<Int>?) -> String? {
            guard let range, range.lowerBound < range.upperBound, range.upperBound <= text.count else { return nil }
            let s = String(decoding: text[range], as: UTF8.self).collapsedWhitespace
            return s.isEmpty ? nil : s
        }
        var marks: [PlacedMark] = []
        var open: [(end: Int, depth: Int?, voice: String?)] = []  // enclosing units; depth nil when unmarked
        var closed: [(start: Int, end: Int, depth: Int)] = []     // the units marked, where their elements end
        for unit in units.sorted(by: { $0.start < $1.start }) {
            while let last = open.last, last.end <= unit.start { open.removeLast() }
            let outer = outline.last { $0.offset <= unit.start }
            let enclosingDepth = open.last { $0.depth != nil }?.depth ?? outer.map { $0.mark.depth } ?? (baseDepth - 1)
            let depth = enclosingDepth + 1
            let inheritedVoice = open.last { $0.voice != nil }?.voice
            let header = unit.header.compactMap(string)
            var title: String?
            var voice: String?
            var kind: String
            var date: HeaderDate?
            var dateSource: String?
            var place: String?
            switch unit.kind {
            case .diary:
                voice = header.lazy.compactMap(StructureTitles.diaryVoice).first
                if unit.hasHeading || header.isEmpty {
                    open.append((unit.end, nil, voice ?? inheritedVoice))
                    continue
                }
                title = header.first; kind = "section"
            case .entry:
                title = header.first ?? string(unit.lead) ?? string(unit.dateline)
                kind = "entry"
                dateSource = header.first(where: { StructureDates.parse($0) != nil }) ?? title
                if let log = header.first, let ship = StructureTitles.diaryVoice(log) { voice = ship }
            case .letter:
                title = header.first ?? "Letter"
                kind = "letter"
                voice = title.flatMap { StructureTitles.letterVoice($0) ?? StructureTitles.diaryVoice($0) }
                dateSource = string(unit.dateline) ?? header.first(where: { StructureDates.parse($0) != nil })
            case .document:
                // A quotation without a header is no unit; a cutting's or a memorandum's header names it.
                title = header.first
                kind = "section"
                voice = title.flatMap { StructureTitles.diaryVoice($0) ?? StructureTitles.letterVoice($0) }
                dateSource = header.first(where: { StructureDates.parse($0) != nil })
            case .dateline:
                let line = [string(unit.dateline), string(unit.datelineTo)].compactMap { $0 }.joined(separator: " to ")
                let bold = string(unit.bold)?.trimmingCharacters(in: ",.")
                title = [bold, line].compactMap { $0 }.joined(separator: ", ")
                kind = "entry"
                dateSource = line
                place = bold
            }
            guard let title, !title.isEmpty else {
                open.append((unit.end, nil, voice ?? inheritedVoice))
                continue
            }
            var mark = StructureMark(at: unit.start, depth: depth, kind: kind, title: title.trimmingCharacters(in: "“”\""))
            if let datetime = unit.datetime.flatMap(StructureDates.normalised) {
                mark.date = StructureDates.reconciled(datetime, shown: string(unit.dateline))
                mark.dateTo = unit.datetimeTo.flatMap(StructureDates.normalised)
            } else if let source = dateSource, let parsed = StructureDates.parse(source) {
                date = parsed
                mark.date = parsed.from; mark.dateTo = parsed.to
                if place == nil && unit.kind == .entry && unit.header.isEmpty { place = StructureDates.place(after: parsed, in: source) }
            }
            // A date header carries forward until the next one at the same depth.
            if mark.date != nil {
                carried[depth] = mark.date
                carried = carried.filter { $0.key <= depth }
            } else if kind == "entry" || kind == "letter" {
                mark.date = carried[depth]
            }
            _ = date
            // A letter without a header is someone else's words inside a journal: no voice assumed.
            mark.voice = voice ?? (unit.kind == .letter ? nil : inheritedVoice)
            mark.place = place
            marks.append(PlacedMark(offset: unit.start, mark: mark))
            open.append((unit.end, depth, mark.voice))
            closed.append((unit.start, unit.end, depth))
        }
        return marks + ends(of: closed, units: units, outline: outline, text: text)
    }

    /// The least text (non-space bytes) after a unit's element, before the next unit or
    /// heading, that is its enclosing unit's again.
    static let textAfterUnit = 40

    /// End marks for the units whose element ends before the next unit or heading with text
    /// between: a letter quoted inside a chapter (Bleak House's, Hamlet's) or a scene, whose
    /// close hands the rest back to the chapter, its voice and its date.
    static func ends(of closed: [(start: Int, end: Int, depth: Int)], units: [MarkupUnitCollector.Unit], outline: [PlacedMark],
                     text: [UInt8]) -> [PlacedMark] {
        let starts = (units.map(\.start) + outline.map(\.offset)).sorted()
        var depthAt: [Int: Int] = [:]   // an entry ending with its journal: one mark, the outer one's
        for unit in closed where unit.end > unit.start && unit.end < text.count {
            // The first unit or heading at or after the element's end (a binary search: a diary has thousands).
            var lo = 0, hi = starts.count
            while lo < hi { let mid = (lo + hi) / 2; if starts[mid] < unit.end { lo = mid + 1 } else { hi = mid } }
            let next = lo < starts.count ? starts[lo] : text.count
            var own = 0
            for b in text[unit.end..<min(next, text.count)] where b > 0x20 { own += 1; if own >= textAfterUnit { break } }
            if own >= textAfterUnit { depthAt[unit.end] = min(depthAt[unit.end] ?? unit.depth, unit.depth) }
        }
        return depthAt.sorted { $0.key < $1.key }.map { PlacedMark(offset: $0.key, mark: .end(at: $0.key, depth: $0.value)) }
    }
}
