// A book's structure as page records carry it: marks, each starting a unit
// (book, part, chapter, act, scene, dated entry, letter) at a position of a
// page's text, and the outline they make: units in book order with their
// parents, paths of titles, dates and voices. ib-parse writes the marks;
// ib-chunk and ib-index read them back into an outline.

/// One page record's "structure" entry: a unit starting at `at` (a Unicode
/// scalar offset into the page's text). A mark at depth d closes every open
/// unit at depth >= d. An end mark (`end`) closes them and starts none: the text
/// after a letter set inside a chapter is the chapter's again.
public struct StructureMark: Sendable, Equatable {
    public var at: Int
    public var depth: Int
    public var kind: String?
    public var number: Int?
    public var title: String
    /// 'YYYY-MM-DD', 'YYYY-MM', 'YYYY' or '--MM-DD' (no year given).
    public var date: String?
    public var dateTo: String?
    /// Whose journal or letter it is.
    public var voice: String?
    public var place: String?
    /// Closes the open units at `depth` or deeper without starting one (its title is empty).
    public var end = false

    public init(at: Int, depth: Int, kind: String? = nil, number: Int? = nil, title: String,
                date: String? = nil, dateTo: String? = nil, voice: String? = nil, place: String? = nil) {
        self.at = at; self.depth = depth; self.kind = kind; self.number = number; self.title = title
        self.date = date; self.dateTo = dateTo; self.voice = voice; self.place = place
    }

    /// An end mark: the units open at `depth` or deeper end at `at`.
    public static func end(at: Int, depth: Int) -> StructureMark {
        var mark = StructureMark(at: at, depth: depth, title: "")
        mark.end = true
        return mark
    }

    public var json: JSON {
        if end { return .object(JSONObject([("at", JSON(at)), ("depth", JSON(depth)), ("end", .bool(true))])) }
        var o = JSONObject([("at", JSON(at)), ("depth", JSON(depth)), ("kind", JSON(kind)), ("number", JSON(number)),
                            ("title", .string(title))])
        if let date { o["date"] = .string(date) }
        if let dateTo { o["date_to"] = .string(dateTo) }
        if let voice { o["voice"] = .string(voice) }
        if let place { o["place"] = .string(place) }
        return .object(o)
    }

    public init(json: JSON) throws(RecordError) {
        guard let o = json.objectValue, let at = o["at"]?.intValue, at >= 0, let depth = o["depth"]?.intValue, depth >= 0 else {
            throw RecordError("page record: each 'structure' mark needs 'at' and 'depth' (whole numbers, 0 or more) and a 'title'")
        }
        if o["end"]?.boolValue == true {
            self = StructureMark.end(at: at, depth: depth)
            return
        }
        guard let title = o["title"]?.stringValue else {
            throw RecordError("page record: each 'structure' mark needs 'at' and 'depth' (whole numbers, 0 or more) and a 'title'")
        }
        func text(_ key: String) -> String? { o[key]?.stringValue }
        self.init(at: at, depth: depth, kind: text("kind"), number: o["number"]?.intValue, title: title,
                  date: text("date"), dateTo: text("date_to"), voice: text("voice"), place: text("place"))
    }

    /// The marks of a page record's "structure" field, in order; [] when absent.
    public static func marks(of page: PageRecord) throws(RecordError) -> [StructureMark] {
        guard let value = page.extra["structure"], !value.isNull else { return [] }
        guard let items = value.arrayValue else { throw RecordError("page record: 'structure' must be an array of marks") }
        var marks: [StructureMark] = []
        for item in items { marks.append(try StructureMark(json: item)) }
        return marks.sorted { $0.at < $1.at }
    }
}

/// A unit of the outline: a mark placed in the book, with its parent and path.
public struct StructureUnit: Sendable, Equatable {
    public var ord: Int
    public var parent: Int?
    public var depth: Int
    public var kind: String?
    public var number: Int?
    public var title: String
    /// Titles from the outermost unit down to this one.
    public var path: [String]
    public var dateFrom: String?
    public var dateTo: String?
    /// The unit's own voice, else its nearest ancestor's.
    public var voice: String?
    public var place: String?
    public var startPage: Int
    public var startOffset: Int
    /// Where an end mark closed it; nil when the next unit's start does.
    public var end: (page: Int, offset: Int)?

    public static func == (a: StructureUnit, b: StructureUnit) -> Bool {
        a.ord == b.ord && a.parent == b.parent && a.depth == b.depth && a.kind == b.kind && a.number == b.number
            && a.title == b.title && a.path == b.path && a.dateFrom == b.dateFrom && a.dateTo == b.dateTo
            && a.voice == b.voice && a.place == b.place && a.startPage == b.startPage && a.startOffset == b.startOffset
            && a.end?.page == b.end?.page && a.end?.offset == b.end?.offset
    }
}

/// A book's units in order, built from its pages' marks.
public struct BookOutline: Sendable {
    public private(set) var units: [StructureUnit] = []

    /// `pages`: each page number with its marks, pages in book order.
    public init(pages: [(page: Int, marks: [StructureMark])]) {
        var open: [Int] = []  // ords of the open units, outermost first
        for (page, marks) in pages {
            for mark in marks {
                while let last = open.last, units[last].depth >= mark.depth {
                    if mark.end { units[last].end = (page, mark.at) }
                    open.removeLast()
                }
                if mark.end { continue }
                let parent = open.last
                let ord = units.count
                units.append(StructureUnit(ord: ord, parent: parent, depth: mark.depth, kind: mark.kind, number: mark.number,
                                           title: mark.title, path: (parent.map { units[$0].path } ?? []) + [mark.title],
                                           dateFrom: mark.date, dateTo: mark.dateTo ?? mark.date,
                                           voice: mark.voice ?? parent.flatMap { units[$0].voice }, place: mark.place,
                                           startPage: page, startOffset: mark.at))
                open.append(ord)
            }
        }
    }

    public var isEmpty: Bool { units.isEmpty }

    /// The innermost unit holding position (page, offset): the last unit
    /// starting at or before it, or the unit around that one where an end mark
    /// closed it before the position; nil before the first unit.
    public func unit(page: Int, offset: Int) -> Int? {
        var current = lastStarting(page: page, offset: offset)
        while let u = current, let end = units[u].end, end <= (page, offset) { current = units[u].parent }
        return current
    }

    /// The last unit starting at or before (page, offset), closed or not.
    public func lastStarting(page: Int, offset: Int) -> Int? {
        var lo = 0, hi = units.count  // first unit starting after the position
        while lo < hi {
            let mid = (lo + hi) / 2
            let u = units[mid]
            if (u.startPage, u.startOffset) <= (page, offset) { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : lo - 1
    }

    /// The dates of a unit: its own, else its nearest dated ancestor's; a day written
    /// without its year takes the year of the dated unit around it (see withYear).
    public func dates(of ord: Int) -> (from: String, to: String)? {
        guard let dated = nearestDated(ord), let from = units[dated].dateFrom else { return nil }
        let to = units[dated].dateTo ?? from
        let around = units[dated].parent.flatMap(nearestDated).flatMap { u in units[u].dateFrom.map { (from: $0, to: units[u].dateTo ?? $0) } }
        return (BookOutline.withYear(from, around: around), BookOutline.withYear(to, around: around, end: true))
    }

    /// The unit itself when it has a date, else its nearest dated ancestor.
    func nearestDated(_ ord: Int) -> Int? {
        var current: Int? = ord
        while let c = current, units[c].dateFrom == nil { current = units[c].parent }
        return current
    }

    /// `date` with the year of `around` when it has none: a diary's "September 2nd." ('--09-02')
    /// inside its month "SEPTEMBER 1666" ('1666-09') is 1666-09-02, not the 2nd of every
    /// September; a day of an earlier month than a dated month around it is the next year's
    /// (a "December 1666" that ends on "January 1st"). Inside an Old Style double year
    /// ("JANUARY 1659-1660") the day is in either year: its start (`end` false) takes the
    /// first, its end the second (1659-01-01 to 1660-01-01, the same day in two years; see
    /// StructureFocus.matches). A span of years around it says nothing.
    public static func withYear(_ date: String, around: (from: String, to: String)?, end: Bool = false) -> String {
        guard let around, date.utf8.count == 7, date.utf8.starts(with: [0x2D, 0x2D]),   // '--MM-DD'
              let first = leadingYear(around.from), let last = leadingYear(around.to) else { return date }
        if last == first + 1 { return String(end ? last : first) + date.dropFirst(1) }
        guard last == first else { return date }
        // '1666-09': the month around; a day of an earlier month is the next year's.
        let later = twoDigits(date, at: 2).flatMap { month in twoDigits(around.from, at: 5).map { month < $0 } } ?? false
        return String(later ? first + 1 : first) + date.dropFirst(1)
    }

    /// The number written by the two digits at byte `at` of `text`, if they are digits.
    static func twoDigits(_ text: String, at: Int) -> Int? {
        let u = text.utf8
        guard u.count >= at + 2 else { return nil }
        let a = u[u.index(u.startIndex, offsetBy: at)], b = u[u.index(u.startIndex, offsetBy: at + 1)]
        guard a >= 0x30 && a <= 0x39 && b >= 0x30 && b <= 0x39 else { return nil }
        return Int(a - 0x30) * 10 + Int(b - 0x30)
    }

    /// The year a date starts with ('1666', '1666-09', '1666-09-02'); nil for '--09-02'.
    static func leadingYear(_ date: String) -> Int? {
        var y = 0, n = 0
        for c in date.utf8 {
            guard c >= 0x30 && c <= 0x39 else { break }
            y = y * 10 + Int(c - 0x30); n += 1
        }
        return n == 4 ? y : nil
    }
}
