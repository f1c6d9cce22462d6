// A plain text's headings: lines that count a part, with or without its
// title ("第十二章", "第十二章 出海", "第一卷　风起"), as Chinese novels in TXT
// write them, and a diary's days ("五月四日 晴", "1937年5月4日"). They become
// the book's structure (its pages stay as they are), so that "第十二章里" finds
// chapter 12 and "五月四日那天" the day. Two such lines are needed: one alone
// is a line of the text.
import IBCore

enum TextHeadings {
    /// A heading line is short: at most this many characters.
    static let maxCharacters = 40
    /// At most this many headings are kept (a web novel has a few thousand
    /// chapters; a hostile file of heading lines must not grow the marks without end).
    static let maxHeadings = 20_000

    static func marks(_ text: [UInt8]) -> [PlacedMark] {
        var found: [(offset: Int, title: String, kind: String)] = []
        var start = 0
        while start < text.count && found.count < maxHeadings {
            let end = text[start...].firstIndex(of: 0x0A) ?? text.count
            // A line too long to be a heading is not decoded (a character is at most 4 bytes).
            if end - start <= maxCharacters * 4, let heading = heading(text, start..<end) {
                found.append(heading)
            }
            start = end + 1
        }
        guard found.count >= 2 else { return [] }
        // Depth by kind: books (卷) hold parts (部), parts chapters (章, 回), chapters sections (节).
        func level(_ kind: String) -> Int {
            switch kind { case "year": return -1; case "book": return 0; case "part": return 1; case "section", "scene": return 3; case "entry": return 4; default: return 2 }
        }
        let levels = Array(Set(found.map { level($0.kind) })).sorted()
        return found.map { heading in
            var placed = DocumentStructure.mark(title: heading.title, depth: levels.firstIndex(of: level(heading.kind)) ?? 0, offset: heading.offset)
            if heading.kind == "entry" { placed.mark.kind = "entry" }   // a year's line keeps no kind, only its date
            return placed
        }
    }

    /// The line's title and kind when it is a heading: trimmed, short, not a
    /// sentence (no full stop at its end), and opening with a counted part (its
    /// kind), a day (an "entry") or a year alone (a "year", a unit without kind).
    static func heading(_ text: [UInt8], _ line: Range<Int>) -> (offset: Int, title: String, kind: String)? {
        var low = line.lowerBound
        let high = line.upperBound
        while low < high, text[low] == 0x20 || text[low] == 0x09 || text[low] == 0x0D { low += 1 }
        // A full-width space (U+3000, E3 80 80) indents many Chinese texts.
        while low + 2 < high, text[low] == 0xE3, text[low + 1] == 0x80, text[low + 2] == 0x80 { low += 3 }
        // Most lines open with neither a CJK character (3 bytes from E0) nor a figure: not decoded.
        guard low < high, text[low] >= 0xE0 || (text[low] >= 0x30 && text[low] <= 0x39) else { return nil }
        let title = String(decoding: text[low..<high], as: UTF8.self).trimmed
        guard title.count <= maxCharacters, !title.hasSuffix("。"), !title.hasSuffix(".") else { return nil }
        let opening = String(title.prefix(16))
        if let counted = CJKNumerals.countedParts(opening).first, counted.range.lowerBound == 0, counted.number > 0 {
            return (low, title, counted.kind)
        }
        // A diary's day: "五月四日 晴", "1937年5月4日"; its year on a line of its own: "1937年", "一九三七年".
        if let date = CJKDates.find(opening).first, date.range.lowerBound == 0, !title.contains("，") {
            if date.precise { return (low, title, "entry") }
            if date.from == nil, date.range.upperBound == title.count { return (low, title, "year") }
        }
        return nil
    }
}
