// Dates people write in Chinese capture lines: "2027年1月31日", "下周五",
// "月底", "三天后". The words are in LexiconChinese (MARK: dates).
import IBCore

extension DateParser {
    static func parseChinese(_ text: String, today: Day) -> Day? {
        var s = TextClasses.trim(text)
        for suffix in ChineseLexicon.dateSuffixes where s.hasSuffix(suffix) { s = String(s.dropLast(suffix.count)); break }
        for prefix in ChineseLexicon.datePrefixes where s.hasPrefix(prefix) { s = String(s.dropFirst(prefix.count)); break }
        s = TextClasses.trim(s)
        if let named = ChineseLexicon.namedDays[s] { return named.day(from: today) }
        let chars = Array(s)
        // N天后, N周后, N个星期后, N个月后, N年后 (also 内)
        if let last = chars.last, ChineseLexicon.durationEnds.contains(last) {
            var body = Array(chars.dropLast())
            var unit: DateUnit? = nil
            for (word, step) in ChineseLexicon.durationUnits where String(body).hasSuffix(word) {
                unit = step; body.removeLast(word.count); break
            }
            if let unit, let n = ChineseNumber.parse(String(body)), n <= 10_000 { return unit.times(n, from: today) }
        }
        // (下|这|本)?(周|星期|礼拜)X
        var rest = s
        var next = 0
        for (p, weeksOn) in ChineseLexicon.weekModifiers where rest.hasPrefix(p) {
            next = weeksOn
            rest = String(rest.dropFirst(p.count)); break
        }
        for p in ChineseLexicon.weekWords where rest.hasPrefix(p) {
            let tail = Array(rest.dropFirst(p.count))
            if tail.count == 1, let wd = ChineseLexicon.weekdays[tail[0]] {
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
