// Calendar dates without Foundation: civil-date arithmetic, and parsing of the
// relative and absolute dates people write in capture lines, in English and
// Simplified Chinese ("by Friday", "in 2 weeks", "end of month", "Jan 31",
// "2027-01-31", "2027年1月31日", "下周五", "月底"...).
import IBCore

#if canImport(Glibc)
import Glibc
#endif

/// A calendar day (proleptic Gregorian), ordered and countable.
public struct Day: Sendable, Equatable, Comparable, Hashable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public var serial: Int

    public init(serial: Int) { self.serial = serial }

    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1, day <= Day.daysIn(year: year, month: month) else { return nil }
        serial = Day.serial(year, month, day)
    }

    /// Today in local time (TZ), or in UTC when `utc`.
    public static func today(utc: Bool = false) -> Day {
        var t = time_t(0)
        time(&t)
        return Day(seconds: Double(t), utc: utc)
    }

    public init(seconds: Double, utc: Bool = false) {
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        if utc { gmtime_r(&t, &parts) } else { localtime_r(&t, &parts) }
        serial = Day.serial(Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    /// Parses "YYYY-MM-DD" (also the date part of a timestamp).
    public init?(iso: String) {
        let parts = iso.prefix(10).split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    static func serial(_ y: Int, _ m: Int, _ d: Int) -> Int {
        // Howard Hinnant's days_from_civil.
        let y = m <= 2 ? y - 1 : y
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    public var components: (year: Int, month: Int, day: Int) {
        let z = serial + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    public var year: Int { components.year }
    public var month: Int { components.month }
    public var day: Int { components.day }

    /// 1 = Monday ... 7 = Sunday (ISO).
    public var weekday: Int { ((serial % 7) + 7 + 3) % 7 + 1 }

    public static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public func adding(days: Int) -> Day { Day(serial: serial + days) }

    /// Same day of month `n` months later, clamped to the month's end.
    public func adding(months n: Int) -> Day {
        let (y, m, d) = components
        let total = y * 12 + (m - 1) + n
        let ny = total >= 0 ? total / 12 : (total - 11) / 12
        let nm = total - ny * 12 + 1
        return Day(year: ny, month: nm, day: min(d, Day.daysIn(year: ny, month: nm))) ?? Day(year: 9999, month: 12, day: 31)!
    }

    public var endOfMonth: Day {
        let (y, m, _) = components
        return Day(year: y, month: m, day: Day.daysIn(year: y, month: m)) ?? self
    }

    public var description: String {
        let (y, m, d) = components
        func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(y)-\(pad(m))-\(pad(d))"
    }

    public static func < (a: Day, b: Day) -> Bool { a.serial < b.serial }
}

public enum DateParser {
    static let monthNames: [(String, Int)] = [
        ("january", 1), ("february", 2), ("march", 3), ("april", 4), ("may", 5), ("june", 6), ("july", 7),
        ("august", 8), ("september", 9), ("october", 10), ("november", 11), ("december", 12),
        ("jan", 1), ("feb", 2), ("mar", 3), ("apr", 4), ("jun", 6), ("jul", 7), ("aug", 8), ("sep", 9),
        ("sept", 9), ("oct", 10), ("nov", 11), ("dec", 12),
    ]
    static let weekdayNames: [(String, Int)] = [
        ("monday", 1), ("tuesday", 2), ("wednesday", 3), ("thursday", 4), ("friday", 5), ("saturday", 6), ("sunday", 7),
        ("mon", 1), ("tue", 2), ("tues", 2), ("wed", 3), ("thu", 4), ("thur", 4), ("thurs", 4), ("fri", 5), ("sat", 6), ("sun", 7),
    ]
    static let numberWords: [String: Int] = [
        "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "few": 3,
    ]

    /// Parses a whole date expression (nothing else around it), relative to `today`.
    public static func parse(_ text: String, today: Day) -> Day? {
        var s = TextClasses.trim(text)
        if s.isEmpty { return nil }
        if s.unicodeScalars.contains(where: { $0.value >= 0x3000 }) { return parseChinese(s, today: today) }
        s = s.lowercased()
        // Drop a trailing period and ordinal decorations.
        while s.hasSuffix(".") || s.hasSuffix("!") { s.removeLast() }
        var words = s.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
        if words.first == "the" { words.removeFirst() }
        if words.first == "on" { words.removeFirst() }
        if words.first == "the" { words.removeFirst() }
        guard !words.isEmpty else { return nil }
        let joined = words.joined(separator: " ")

        switch joined {
        case "today", "tonight", "this evening": return today
        case "tomorrow", "tmrw", "tmr", "tomorow", "tommorow", "tommorrow": return today.adding(days: 1)
        case "day after tomorrow": return today.adding(days: 2)
        case "next week": return today.adding(days: 7)
        case "next month": return today.adding(months: 1)
        case "next year": return Day(year: today.year + 1, month: today.month, day: min(today.day, 28))
        case "end of month", "end of the month", "month end", "end of this month", "eom", "the end of the month":
            return today.endOfMonth
        case "end of next month", "end of the next month": return today.adding(months: 1).endOfMonth
        case "end of year", "end of the year", "end of this year", "year end", "eoy", "new year", "new year's eve":
            return Day(year: today.year, month: 12, day: 31)
        case "end of week", "end of the week", "end of this week", "this weekend", "weekend", "the weekend":
            return today.adding(days: 7 - today.weekday)
        case "end of next week", "next weekend": return today.adding(days: 7 - today.weekday + 7)
        default: break
        }

        // ISO and numeric dates: 2027-01-31, 2027/1/31, 1/31/2027, 31.01.2027, 1/31
        if words.count == 1, let d = numericDate(words[0], today: today) { return d }

        // in N days/weeks/months/years; N days from now
        var w = words
        if w.first == "in" || w.first == "within" { w.removeFirst() }
        if w.last == "now" && w.count >= 3 && w[w.count - 2] == "from" { w.removeLast(2) }
        if w.last == "later" || w.last == "time" { w.removeLast() }
        if w.count == 2 || w.count == 3 {
            var n: Int? = Int(w[0]) ?? numberWords[w[0]]
            var unitIndex = 1
            if w.count == 3 {
                if w[0] == "a" && w[1] == "couple" { n = 2; unitIndex = 2 }
                else if w[1] == "more" || w[1] == "more," { unitIndex = 2 }
                else { n = nil }
            }
            if let n, n <= 10_000, unitIndex < w.count {
                var unit = w[unitIndex]
                if unit.hasSuffix("s") { unit.removeLast() }
                switch unit {
                case "day": return today.adding(days: n)
                case "week", "wk": return today.adding(days: 7 * n)
                case "month", "mo": return today.adding(months: n)
                case "year", "yr": return today.adding(months: 12 * n)
                case "fortnight": return today.adding(days: 14 * n)
                default: break
                }
            }
        }
        if joined == "a fortnight" || joined == "in a fortnight" { return today.adding(days: 14) }

        // end of <month>
        if words.count >= 3, words[0] == "end", words[1] == "of" {
            let rest = words[2...].filter { $0 != "the" }
            if let m = month(rest.first ?? "") {
                var y = rest.count > 1 ? Int(rest[1]) ?? today.year : today.year
                if rest.count == 1, m < today.month { y += 1 }
                return Day(year: y, month: m, day: Day.daysIn(year: y, month: m))
            }
        }

        // (this|next|coming) weekday
        var modifier: String? = nil
        var rest = words
        if ["this", "next", "coming", "this coming"].contains(rest.first ?? "") { modifier = rest.removeFirst() }
        if rest.first == "coming" { rest.removeFirst() }
        if rest.count == 1, let wd = weekday(rest[0]) {
            var delta = (wd - today.weekday + 7) % 7
            if delta == 0 { delta = 7 }
            if modifier == "next" {
                // "next Friday": the Friday of next week (weeks start on Monday).
                let nextMonday = today.adding(days: 8 - today.weekday)
                return nextMonday.adding(days: wd - 1)
            }
            return today.adding(days: delta)
        }

        // Month-day forms: "jan 31", "january 31st", "31 jan", "31st of january", with an optional year.
        var month: Int? = nil, dayOfMonth: Int? = nil, year: Int? = nil
        for word in words where word != "of" {
            if month == nil, let m = DateParser.month(word) { month = m; continue }
            if let n = ordinal(word) {
                if n > 31 { if year == nil && n >= 1000 { year = n; continue } else { return nil } }
                if dayOfMonth == nil { dayOfMonth = n; continue }
                return nil
            }
            return nil
        }
        if let m = month, let d = dayOfMonth {
            if let y = year { return Day(year: y, month: m, day: d) }
            if let candidate = Day(year: today.year, month: m, day: d) {
                return candidate < today ? Day(year: today.year + 1, month: m, day: d) : candidate
            }
            return Day(year: today.year + 1, month: m, day: d)
        }
        if let m = month, dayOfMonth == nil {
            // "by March": the end of that month.
            let y = year ?? (m < today.month ? today.year + 1 : today.year)
            return Day(year: y, month: m, day: Day.daysIn(year: y, month: m))
        }
        return nil
    }

    static func month(_ word: String) -> Int? {
        var w = word
        if w.hasSuffix(".") { w.removeLast() }
        return monthNames.first { $0.0 == w }?.1
    }

    static func weekday(_ word: String) -> Int? {
        var w = word
        if w.hasSuffix(".") { w.removeLast() }
        if let d = weekdayNames.first(where: { $0.0 == w })?.1 { return d }
        // Small typos in full names: "firday", "wendesday".
        if w.count >= 5 {
            for (name, d) in weekdayNames where name.count > 4 && Fuzzy.distance(w, name) <= 2 && w.first == name.first { return d }
        }
        return nil
    }

    /// "31", "31st", "2nd", "3rd", "4th".
    static func ordinal(_ word: String) -> Int? {
        var w = Substring(word)
        for suffix in ["st", "nd", "rd", "th"] where w.hasSuffix(suffix) { w = w.dropLast(2); break }
        guard !w.isEmpty, w.allSatisfy(\.isASCII), let n = Int(w) else { return nil }
        return n
    }

    static func numericDate(_ word: String, today: Day) -> Day? {
        let separators: Set<Character> = ["-", "/", "."]
        let parts = word.split(whereSeparator: { separators.contains($0) }).map(String.init)
        guard parts.count >= 2, parts.count <= 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }) else { return nil }
        let nums = parts.compactMap { Int($0) }
        guard nums.count == parts.count else { return nil }
        if parts.count == 3 {
            if parts[0].count == 4 { return Day(year: nums[0], month: nums[1], day: nums[2]) }
            if parts[2].count == 4 || parts[2].count == 2 {
                let y = parts[2].count == 2 ? 2000 + nums[2] : nums[2]
                // 31/01/2027 (day first) when unambiguous, else month first (1/31/2027).
                if nums[0] > 12 { return Day(year: y, month: nums[1], day: nums[0]) }
                if word.contains(".") { return Day(year: y, month: nums[1], day: nums[0]) }
                return Day(year: y, month: nums[0], day: nums[1])
            }
            return nil
        }
        // Two parts: month/day (or day/month when the first is > 12).
        var m = nums[0], d = nums[1]
        if m > 12 { swap(&m, &d) }
        guard let candidate = Day(year: today.year, month: m, day: d) else { return nil }
        return candidate < today ? Day(year: today.year + 1, month: m, day: d) : candidate
    }

    // MARK: Chinese

    static let chineseWeekdays: [Character: Int] = ["一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7]

    static func parseChinese(_ text: String, today: Day) -> Day? {
        var s = TextClasses.trim(text)
        for suffix in ["之前", "以前", "前", "为止", "截止", "结束"] where s.hasSuffix(suffix) { s = String(s.dropLast(suffix.count)); break }
        for prefix in ["在", "于", "到", "截至", "截止到", "截止"] where s.hasPrefix(prefix) { s = String(s.dropFirst(prefix.count)); break }
        s = TextClasses.trim(s)
        switch s {
        case "今天", "今晚", "今日": return today
        case "明天", "明日", "明晚": return today.adding(days: 1)
        case "后天": return today.adding(days: 2)
        case "大后天": return today.adding(days: 3)
        case "下周", "下星期", "下礼拜", "一周后", "一周内": return today.adding(days: 7)
        case "下个月", "下月": return today.adding(months: 1)
        case "月底", "本月底", "这个月底", "月末", "本月末", "这个月月底", "本月", "这个月": return today.endOfMonth
        case "下个月底", "下月底", "下个月月底", "下月末": return today.adding(months: 1).endOfMonth
        case "年底", "今年年底", "年末", "今年底", "今年": return Day(year: today.year, month: 12, day: 31)
        case "明年年底", "明年底": return Day(year: today.year + 1, month: 12, day: 31)
        case "周末", "这周末", "本周末", "这个周末": return today.adding(days: 7 - today.weekday)
        case "下周末", "下个周末": return today.adding(days: 14 - today.weekday)
        default: break
        }
        let chars = Array(s)
        // N天后, N周后, N个星期后, N个月后, N年后 (also 内)
        if let last = chars.last, last == "后" || last == "内" {
            var body = Array(chars.dropLast())
            var unit = ""
            for u in ["个星期", "个礼拜", "个月", "星期", "礼拜", "天", "日", "周", "月", "年"] where String(body).hasSuffix(u) {
                unit = u; body.removeLast(u.count); break
            }
            if !unit.isEmpty, let n = ChineseNumber.parse(String(body)), n <= 10_000 {
                switch unit {
                case "天", "日": return today.adding(days: n)
                case "周", "星期", "个星期", "礼拜", "个礼拜": return today.adding(days: 7 * n)
                case "个月", "月": return today.adding(months: n)
                case "年": return today.adding(months: 12 * n)
                default: break
                }
            }
        }
        // (下|这|本)?(周|星期|礼拜)X
        var rest = s
        var next = 0
        for p in ["下下", "下个", "下", "这个", "这", "本"] where rest.hasPrefix(p) {
            next = p == "下下" ? 2 : (p.hasPrefix("下") ? 1 : 0)
            rest = String(rest.dropFirst(p.count)); break
        }
        for p in ["周", "星期", "礼拜"] where rest.hasPrefix(p) {
            let tail = Array(rest.dropFirst(p.count))
            if tail.count == 1, let wd = chineseWeekdays[tail[0]] {
                let monday = today.adding(days: 1 - today.weekday + 7 * next)
                var d = monday.adding(days: wd - 1)
                if next == 0 && d < today { d = d.adding(days: 7) }
                return d
            }
        }
        // YYYY年M月D日, M月D日/号, YYYY年M月底, M月底, M月
        var year: Int? = nil, month: Int? = nil, day: Int? = nil, endOfMonth = false
        var number = ""
        for c in chars {
            switch c {
            case "年": year = ChineseNumber.parse(number); number = ""; if year == nil { return nil }
            case "月": month = ChineseNumber.parse(number); number = ""; if month == nil { return nil }
            case "日", "号": day = ChineseNumber.parse(number); number = ""; if day == nil { return nil }
            case "底", "末": endOfMonth = true
            case "初": if let m = month { day = 1; _ = m }
            case "份": break
            default: number.append(c)
            }
        }
        if !number.isEmpty {
            // "2027-01-31" or "1/31" written among Chinese.
            return numericDate(number, today: today)
        }
        if var y = year, y < 100 { y += 2000; year = y }
        guard let m = month else { return nil }
        if endOfMonth || day == nil {
            let y = year ?? (m < today.month ? today.year + 1 : today.year)
            return Day(year: y, month: m, day: Day.daysIn(year: y, month: m))
        }
        if let y = year { return Day(year: y, month: m, day: day!) }
        guard let candidate = Day(year: today.year, month: m, day: day!) else { return nil }
        return candidate < today ? Day(year: today.year + 1, month: m, day: day!) : candidate
    }
}

/// Chinese numerals up to the thousands: 二十, 一百二十, 两, 十五, or Arabic digits.
public enum ChineseNumber {
    static let digits: [Character: Int] = ["零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9]
    static let units: [Character: Int] = ["十": 10, "百": 100, "千": 1000, "万": 10000]

    /// A character of a number as a reader writes it: a digit (ASCII or full-width), 二十, 三百.
    static func isNumeral(_ c: Character) -> Bool { Text.isDigit(c) || digits[c] != nil || units[c] != nil }

    public static func parse(_ text: String) -> Int? {
        let s = TextClasses.trim(text)
        if s.isEmpty || s.count > 12 { return nil }
        if let n = Int(s) { return n }
        if s.allSatisfy(Text.isDigit) {
            // Full-width digits.
            var n = 0
            for c in s { guard let d = c.wholeNumberValue else { return nil }; n = n * 10 + d }
            return n
        }
        var total = 0, section = 0, current = 0
        var sawAny = false
        for c in s {
            if let d = digits[c] { current = d; sawAny = true }
            else if let u = units[c] {
                sawAny = true
                if u == 10000 { section = (section + current) * u; total += section; section = 0 }
                else { section += (current == 0 ? 1 : current) * u }
                current = 0
            } else if let d = c.wholeNumberValue { current = current * 10 + d; sawAny = true }
            else { return nil }
        }
        return sawAny ? total + section + current : nil
    }
}
