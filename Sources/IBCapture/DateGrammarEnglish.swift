// Dates people write in English capture lines: "by Friday", "in 2 weeks",
// "end of month", "Jan 31", "2027-01-31". The words are in LexiconEnglish
// (MARK: dates); a Chinese date goes to DateGrammarChinese.swift.
import IBCore

public enum DateParser {
    /// Parses a whole date expression (nothing else around it), relative to `today`.
    public static func parse(_ text: String, today: Day) -> Day? {
        var s = TextClasses.trim(text)
        if s.isEmpty { return nil }
        if s.unicodeScalars.contains(where: { $0.value >= 0x3000 }) { return parseChinese(s, today: today) }
        s = s.lowercased()
        // Drop a trailing period and ordinal decorations.
        while s.hasSuffix(".") || s.hasSuffix("!") { s.removeLast() }
        var words = s.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
        for lead in EnglishLexicon.dateLeads where words.first == lead { words.removeFirst() }
        guard !words.isEmpty else { return nil }
        let joined = words.joined(separator: " ")

        if let named = EnglishLexicon.namedDays[joined] { return named.day(from: today) }

        // ISO and numeric dates: 2027-01-31, 2027/1/31, 1/31/2027, 31.01.2027, 1/31
        if words.count == 1, let d = numericDate(words[0], today: today) { return d }

        // in N days/weeks/months/years; N days from now
        var w = words
        if let first = w.first, EnglishLexicon.durationLeads.contains(first) { w.removeFirst() }
        if w.count >= 3 && Array(w.suffix(2)) == EnglishLexicon.durationFromNow { w.removeLast(2) }
        if let last = w.last, EnglishLexicon.durationTails.contains(last) { w.removeLast() }
        if w.count == 2 || w.count == 3 {
            var n: Int? = Int(w[0]) ?? EnglishLexicon.durationNumbers[w[0]]
            var unitIndex = 1
            if w.count == 3 {
                if Array(w.prefix(2)) == EnglishLexicon.aCouple { n = 2; unitIndex = 2 }
                else if EnglishLexicon.durationMore.contains(w[1]) { unitIndex = 2 }
                else { n = nil }
            }
            if let n, n <= 10_000, unitIndex < w.count {
                var unit = w[unitIndex]
                if unit.hasSuffix("s") { unit.removeLast() }
                if let step = EnglishLexicon.durationUnits[unit] { return step.times(n, from: today) }
            }
        }

        // end of <month>
        if words.count >= 3, Array(words.prefix(2)) == EnglishLexicon.endOf {
            let rest = words[2...].filter { $0 != EnglishLexicon.the }
            if let m = month(rest.first ?? "") {
                var y = rest.count > 1 ? Int(rest[1]) ?? today.year : today.year
                if rest.count == 1, m < today.month { y += 1 }
                return Day(year: y, month: m, day: Day.daysIn(year: y, month: m))
            }
        }

        // (this|next|coming) weekday
        var modifier: String? = nil
        var rest = words
        if EnglishLexicon.weekdayModifiers.contains(rest.first ?? "") { modifier = rest.removeFirst() }
        if rest.first == EnglishLexicon.coming { rest.removeFirst() }
        if rest.count == 1, let wd = weekday(rest[0]) {
            var delta = (wd - today.weekday + 7) % 7
            if delta == 0 { delta = 7 }
            if modifier == EnglishLexicon.nextWeekModifier {
                // "next Friday": the Friday of next week (weeks start on Monday).
                let nextMonday = today.adding(days: 8 - today.weekday)
                return nextMonday.adding(days: wd - 1)
            }
            return today.adding(days: delta)
        }

        // Month-day forms: "jan 31", "january 31st", "31 jan", "31st of january", with an optional year.
        var month: Int? = nil, dayOfMonth: Int? = nil, year: Int? = nil
        for word in words where word != EnglishLexicon.of {
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
        return EnglishLexicon.monthNames.first { $0.0 == w }?.1
    }

    static func weekday(_ word: String) -> Int? {
        var w = word
        if w.hasSuffix(".") { w.removeLast() }
        if let d = EnglishLexicon.weekdayNames.first(where: { $0.0 == w })?.1 { return d }
        // Small typos in full names: "firday", "wendesday".
        if w.count >= 5 {
            for (name, d) in EnglishLexicon.weekdayNames where name.count > 4 && Fuzzy.distance(w, name) <= 2 && w.first == name.first { return d }
        }
        return nil
    }

    /// "31", "31st", "2nd", "3rd", "4th".
    static func ordinal(_ word: String) -> Int? {
        var w = Substring(word)
        for suffix in EnglishLexicon.ordinalSuffixes where w.hasSuffix(suffix) { w = w.dropLast(2); break }
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
}
