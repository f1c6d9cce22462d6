// Chinese numerals and counted parts: how Chinese books title their parts
// ("第十二章", "第三幕", "第二卷") and how their readers name them ("第12章里",
// "最后一章"). ib-parse reads a title's kind and number from them and ib-search
// a question's; both take them from here.

public enum CJKNumerals {
    static let digits: [Character: Int] = [
        "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
        "六": 6, "七": 7, "八": 8, "九": 9,
    ]
    static let units: [Character: Int] = ["十": 10, "百": 100, "千": 1000]

    /// The counters that name a part, and the kind of part each is in ib's
    /// structure: 章 and 回 (a classic novel's chapter) and 篇 are chapters, 节 a
    /// section, 幕 an act, 场 a scene, 卷 and 册 a book (volume), 部 a part.
    public static let partCounters: [Character: String] = [
        "章": "chapter", "回": "chapter", "篇": "chapter", "节": "section", "節": "section", "幕": "act",
        "场": "scene", "場": "scene", "卷": "book", "册": "book", "冊": "book", "部": "part",
    ]

    /// Whether `c` may be part of a numeral: a Chinese digit or unit, or a figure (ASCII or full width).
    static func isNumeral(_ c: Character) -> Bool {
        digits[c] != nil || units[c] != nil || (c.isASCII && c.isNumber) || ("０"..."９").contains(c)
    }

    /// The value of a numeral written in Chinese characters ("十二" 12, "二十一"
    /// 21, "一百零三" 103) or in figures (ASCII or full width, "12", "１２"); nil
    /// when `text` is none (two digits side by side, "一九", are a year's, not a
    /// numeral), is empty, or is longer than 8 characters.
    public static func value<S: StringProtocol>(_ text: S) -> Int? {
        guard !text.isEmpty, text.count <= 8 else { return nil }
        if text.allSatisfy({ $0.isASCII && $0.isNumber }) { return Int(text) }
        if text.allSatisfy({ ("０"..."９").contains($0) }) {
            return text.reduce(0) { $0 * 10 + Int($1.unicodeScalars.first!.value - 0xFF10) }
        }
        var total = 0, current = 0, lastUnit = Int.max
        var previous: Character? = nil
        for c in text {
            defer { previous = c }
            if let d = digits[c] {
                // Two digits side by side are no numeral ("一九三七" is a year read digit by digit), but after 零.
                if let p = previous, digits[p] != nil, p != "零", p != "〇" { return nil }
                current = d
            } else if let unit = units[c] {
                guard unit < lastUnit else { return nil }   // "十百" is no numeral
                total += (current == 0 ? 1 : current) * unit
                current = 0; lastUnit = unit
            } else {
                return nil
            }
        }
        let n = total + current
        return n > 0 ? n : nil
    }

    /// A part a text counts: "第十二章" is chapter 12, "第3幕" act 3, "最后一章"
    /// the last chapter (number -1). `range`: where it lies, in characters.
    public struct CountedPart: Sendable, Equatable {
        public var kind: String
        public var number: Int
        public var range: Range<Int>
    }

    /// Every counted part in `text`, in order.
    public static func countedParts(_ text: String) -> [CountedPart] {
        guard text.contains("第") || text.contains("最") else { return [] }
        let chars = Array(text)
        var out: [CountedPart] = []
        var i = 0
        while i < chars.count {
            if chars[i] == "第" {
                // The numeral runs up to the counter (value() takes at most 8 characters).
                var j = i + 1
                while j < chars.count, j - i <= 8, isNumeral(chars[j]) { j += 1 }
                if j > i + 1, j < chars.count, let kind = partCounters[chars[j]], let n = value(String(chars[(i + 1)..<j])) {
                    out.append(CountedPart(kind: kind, number: n, range: i..<(j + 1)))
                    i = j + 1; continue
                }
            } else if chars[i] == "最", i + 3 < chars.count, chars[i + 1] == "后" || chars[i + 1] == "後", chars[i + 2] == "一",
                      let kind = partCounters[chars[i + 3]] {
                out.append(CountedPart(kind: kind, number: -1, range: i..<(i + 4)))
                i += 4; continue
            }
            i += 1
        }
        return out
    }
}
