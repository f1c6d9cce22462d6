// Estimated pages: about `target` characters (Unicode scalars) each, always
// cut at a word boundary. A paragraph break near the target is preferred,
// then a line break, then a space; a word is never cut (text without spaces,
// such as Chinese or Japanese, is cut between ideographs). The white space at
// a cut is dropped: the pages joined by "\n" give back the text's words.
import IBCore

public enum Pagination {
    public static let defaultTarget = 2000

    /// Text that belongs to one section (a chapter, a spine document, the part under a heading).
    public struct Section: Sendable {
        public var index: Int?
        public var title: String?
        public var text: [UInt8]
        /// Units starting in this section, at byte offsets into `text`.
        var marks: [PlacedMark] = []
        public init(index: Int?, title: String?, text: [UInt8]) { self.index = index; self.title = title; self.text = text }
        init(index: Int?, title: String?, text: [UInt8], marks: [PlacedMark]) {
            self.init(index: index, title: title, text: text)
            self.marks = marks
        }
    }

    /// Pages for sections: a section always starts a new page.
    public static func pages(sections: [Section], target: Int = defaultTarget) -> [ParsedPage] {
        var pages: [ParsedPage] = []
        for section in sections {
            let ranges = split(section.text, target: target)
            let marks = assign(section.marks, text: section.text, ranges: ranges)
            for (i, range) in ranges.enumerated() {
                var page = ParsedPage(sectionIndex: section.index, sectionTitle: section.title,
                                      text: String(decoding: section.text[range], as: UTF8.self))
                page.structure = marks[i]
                pages.append(page)
            }
        }
        return pages
    }

    /// The marks of each page range, their offsets turned into scalar offsets
    /// into the page's text. A mark in the white space between two pages starts
    /// the next one; a mark past the last page starts at that page's end.
    static func assign(_ marks: [PlacedMark], text: [UInt8], ranges: [Range<Int>]) -> [[StructureMark]] {
        var out = [[StructureMark]](repeating: [], count: ranges.count)
        guard !marks.isEmpty, !ranges.isEmpty else { return out }
        var r = 0
        for placed in marks.sorted(by: { $0.offset < $1.offset }) {
            while r + 1 < ranges.count && placed.offset >= ranges[r].upperBound { r += 1 }
            let range = ranges[r]
            let offset = min(max(placed.offset, range.lowerBound), range.upperBound)
            var mark = placed.mark
            mark.at = text[range.lowerBound..<offset].reduce(0) { $0 + ($1 & 0xC0 != 0x80 ? 1 : 0) }
            out[r].append(mark)
        }
        return out
    }

    @inline(__always) static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D || b == 0x0C || b == 0x0B
    }

    /// The byte ranges of the pages of UTF-8 `text`, white space at the cuts removed.
    public static func split(_ text: [UInt8], target: Int = defaultTarget) -> [Range<Int>] {
        let target = max(target, 16)
        return text.withUnsafeBufferPointer { b -> [Range<Int>] in
            let n = b.count
            var ranges: [Range<Int>] = []
            var s = 0
            func advance(_ from: Int, _ scalars: Int) -> Int {
                var i = from, count = 0
                while i < n {
                    if b[i] & 0xC0 != 0x80 {
                        if count == scalars { return i }
                        count += 1
                    }
                    i += 1
                }
                return n
            }
            func trimEnd(_ start: Int, _ end: Int) -> Int {
                var e = end
                while e > start && isSpace(b[e - 1]) { e -= 1 }
                return e
            }
            while true {
                while s < n && isSpace(b[s]) { s += 1 }
                if s >= n { break }
                let lo = advance(s, target * 6 / 10)
                let pTarget = advance(lo, target - target * 6 / 10)
                let pMax = advance(pTarget, target / 4)
                if pMax >= n {
                    ranges.append(s..<trimEnd(s, n))
                    break
                }
                var bestPara = -1, bestLine = -1, bestSpace = -1
                var i = lo
                while i < pMax {
                    let c = b[i]
                    if c == 0x0A {
                        var j = i - 1
                        while j > s && (b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0D) { j -= 1 }
                        if b[j] == 0x0A {
                            if bestPara < 0 || abs(i - pTarget) < abs(bestPara - pTarget) { bestPara = i }
                        } else if bestLine < 0 || abs(i - pTarget) < abs(bestLine - pTarget) { bestLine = i }
                    } else if isSpace(c) {
                        if bestSpace < 0 || abs(i - pTarget) < abs(bestSpace - pTarget) { bestSpace = i }
                    }
                    i += 1
                }
                var cut: Int
                if bestPara >= 0 {
                    cut = bestPara
                } else if bestLine >= 0 && abs(bestLine - pTarget) <= target / 5 {
                    cut = bestLine
                } else if bestSpace >= 0 {
                    cut = bestSpace
                } else if bestLine >= 0 {
                    cut = bestLine
                } else if let ideographic = ideographicBreak(b, lo, pMax, pTarget) {
                    // No white space near the target: cut between ideographs.
                    ranges.append(s..<ideographic)
                    s = ideographic
                    continue
                } else {
                    // One very long word: the page runs to its end.
                    cut = pMax
                    while cut < n && !isSpace(b[cut]) { cut += 1 }
                }
                ranges.append(s..<trimEnd(s, cut))
                s = cut
            }
            return ranges
        }
    }

    /// A boundary between two scalars where either side is an ideograph or CJK
    /// punctuation, nearest to `goal`.
    static func ideographicBreak(_ b: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int, _ goal: Int) -> Int? {
        var best: Int? = nil
        var previousWide = false
        var i = lo
        while i < hi {
            let lead = b[i]
            var length = 1
            var value = UInt32(lead)
            if lead >= 0xF0 { length = 4; value = UInt32(lead & 0x07) }
            else if lead >= 0xE0 { length = 3; value = UInt32(lead & 0x0F) }
            else if lead >= 0xC0 { length = 2; value = UInt32(lead & 0x1F) }
            else if lead >= 0x80 { i += 1; continue }
            if length > 1 {
                for k in 1..<length where i + k < b.count { value = value << 6 | UInt32(b[i + k] & 0x3F) }
            }
            let wide = TextClasses.isWide(value)
            if i > lo && (wide || previousWide) {
                if best == nil || abs(i - goal) < abs(best! - goal) { best = i }
            }
            previousWide = wide
            i += length
        }
        return best
    }

}
