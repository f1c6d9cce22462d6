// Dates written the Chinese way, in a diary's entry titles ("一九三七年五月四日",
// "5月4日 晴") and in readers' questions ("五月初", "1834年春天", "圣诞节那天"):
// the years, the month-day span (mmdd, as CalendarWords' English dates), and
// whether one day is meant. ib-parse dates a title with them, ib-search a question.

public enum CJKDates {
    public struct Found: Sendable, Equatable {
        /// The year or years named (nil: none).
        public var years: ClosedRange<Int>?
        /// The month-day span as mmdd; nil for a year alone. from > to wraps the year's end.
        public var from: Int?
        public var to: Int?
        /// One day was named.
        public var precise: Bool
        /// Where it lies in the text, in characters.
        public var range: Range<Int>
    }

    /// Seasons by their Chinese names: CalendarWords' months for each.
    static let seasons: [Character: (from: Int, to: Int)] = [
        "春": CalendarWords.seasons["spring"]!, "夏": CalendarWords.seasons["summer"]!,
        "秋": CalendarWords.seasons["autumn"]!, "冬": CalendarWords.seasons["winter"]!,
    ]
    /// Feast days on fixed dates (the lunar ones, 春节 and 中秋节, move against the calendar: left out).
    static let feasts: [(name: [Character], from: Int, to: Int)] = [
        ("平安夜", 1224, 1224), ("圣诞夜", 1224, 1224), ("聖誕夜", 1224, 1224), ("圣诞节", 1224, 1226), ("聖誕節", 1224, 1226),
        ("元旦", 101, 101), ("情人节", 214, 214), ("愚人节", 401, 401), ("劳动节", 501, 501), ("国庆节", 1001, 1001),
    ].map { (Array($0.0), $0.1, $0.2) }

    /// Every date in `text`, in order.
    public static func find(_ text: String) -> [Found] {
        // Each form holds a CJK character (年, 月, 日, a season, a feast): a text of none, an
        // English question, holds no date (CJK characters are 3 or 4 bytes in UTF-8, from E0).
        guard text.utf8.contains(where: { $0 >= 0xE0 }) else { return [] }
        let c = Array(text)
        var out: [Found] = []
        var i = 0
        while i < c.count {
            // Every date and feast opens with a figure or a CJK character: an English question costs a pass.
            if c[i].isASCII && !c[i].isNumber { i += 1; continue }
            if let found = date(c, at: i) { out.append(found); i = found.range.upperBound; continue }
            if let feast = feasts.first(where: { matches(c, at: i, $0.name) }) {
                out.append(Found(years: nil, from: feast.from, to: feast.to, precise: feast.from == feast.to,
                                 range: i..<(i + feast.name.count)))
                i += feast.name.count; continue
            }
            i += 1
        }
        return out
    }

    static func matches(_ c: [Character], at i: Int, _ word: [Character]) -> Bool {
        i + word.count <= c.count && c[i..<(i + word.count)].elementsEqual(word)
    }

    /// A numeral of figures or Chinese digits from `i` (at most `limit` characters): its value and end.
    static func numeral(_ c: [Character], at i: Int, limit: Int = 4) -> (value: Int, end: Int)? {
        var j = i
        while j < c.count, j - i < limit, CJKNumerals.isNumeral(c[j]) { j += 1 }
        guard j > i, let v = CJKNumerals.value(String(c[i..<j])) ?? yearDigits(c[i..<j]) else { return nil }
        return (v, j)
    }

    /// A year written digit by digit: "一九三七" is 1937 (not 一千九百三十七).
    static func yearDigits(_ s: ArraySlice<Character>) -> Int? {
        guard s.count == 4 else { return nil }
        var v = 0
        for ch in s { guard let d = CJKNumerals.digits[ch] else { return nil }; v = v * 10 + d }
        return v
    }

    /// A date from `i`: [year 年][month 月[day 日/号 | 初/上旬/中旬/下旬/底/末]] or [year 年][初/早/深/晚/暮][season 天/季].
    static func date(_ c: [Character], at i: Int) -> Found? {
        var j = i
        var years: ClosedRange<Int>? = nil
        if let (y, end) = numeral(c, at: j), end < c.count, c[end] == "年", (1000...2999).contains(y) {
            years = y...y; j = end + 1
        }
        if let (m, end) = numeral(c, at: j, limit: 3), end < c.count, c[end] == "月", (1...12).contains(m) {
            j = end + 1
            if let (d, dayEnd) = numeral(c, at: j, limit: 3), dayEnd < c.count, "日号號".contains(c[dayEnd]),
               d >= 1, d <= CalendarWords.monthLength[m - 1] {
                return Found(years: years, from: m * 100 + d, to: m * 100 + d, precise: true, range: i..<(dayEnd + 1))
            }
            let last = CalendarWords.monthLength[m - 1]
            if j < c.count, c[j] == "初" { return Found(years: years, from: m * 100 + 1, to: m * 100 + 10, precise: false, range: i..<(j + 1)) }
            if j < c.count, c[j] == "底" || c[j] == "末" {
                return Found(years: years, from: m * 100 + 21, to: m * 100 + last, precise: false, range: i..<(j + 1))
            }
            if j + 1 < c.count, c[j + 1] == "旬", let third = "上中下".firstIndex(of: c[j]) {
                let k = "上中下".distance(from: "上中下".startIndex, to: third)
                return Found(years: years, from: m * 100 + 1 + 10 * k, to: m * 100 + (k == 2 ? last : 10 * (k + 1)),
                             precise: false, range: i..<(j + 2))
            }
            return Found(years: years, from: m * 100 + 1, to: m * 100 + last, precise: false, range: i..<j)
        }
        // A season: 春天, 春季, or 初春, 深秋, 晚秋, 暮春, 早春 (a bare 春 is in too many words).
        var third: Int? = nil, k = j
        if k < c.count, "初早".contains(c[k]) { third = 0; k += 1 } else if k < c.count, "深晚暮".contains(c[k]) { third = 2; k += 1 }
        if k < c.count, let season = seasons[c[k]], third != nil || (k + 1 < c.count && "天季".contains(c[k + 1])) {
            let end = k + 1 < c.count && "天季".contains(c[k + 1]) ? k + 2 : k + 1
            var from = season.from, to = season.to
            if let third {
                let month = (season.from - 1 + third) % 12 + 1
                from = month; to = month
            }
            return Found(years: years, from: from * 100 + 1, to: to * 100 + CalendarWords.monthLength[to - 1], precise: false, range: i..<end)
        }
        if let years { return Found(years: years, from: nil, to: nil, precise: false, range: i..<j) }
        return nil
    }
}
