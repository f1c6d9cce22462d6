// The small date grammar for unit headers: a day and month in either order
// ("3 May", "September 2nd", "Feb. 20th"), a month and year ("January
// 1832"), a full date ("December 17th, 1832"), a year alone ("Part I: 1805"),
// and Old Style double years ("February 1714–15", "January 1659-1660": the
// month in both years).
// Dates come out as 'YYYY-MM-DD', 'YYYY-MM', 'YYYY', or '--MM-DD' without a year.

import IBCore

struct HeaderDate: Equatable {
    var from: String
    var to: String?
    /// Where the date's words end in the text (a place may follow).
    var end: String.Index
}

enum StructureDates {
    static let months = CalendarWords.months

    struct Token { var text: Substring; var range: Range<String.Index> }

    static func tokens(_ s: String) -> [Token] {
        var out: [Token] = []
        var i = s.startIndex
        while i < s.endIndex {
            if s[i].isLetter || s[i].isNumber {
                var j = i
                while j < s.endIndex, s[j].isLetter || s[j].isNumber { j = s.index(after: j) }
                out.append(Token(text: s[i..<j], range: i..<j))
                i = j
            } else { i = s.index(after: i) }
        }
        return out
    }

    static func day(_ t: Substring) -> Int? {
        var digits = t
        for suffix in ["st", "nd", "rd", "th", "d"] where digits.lowercased().hasSuffix(suffix) && digits.count > suffix.count {
            digits = digits.dropLast(suffix.count); break
        }
        guard digits.count <= 2, let n = Int(digits), (1...31).contains(n) else { return nil }
        return n
    }

    static func year(_ t: Substring) -> Int? {
        guard t.count == 4, let n = Int(t), (1000...2199).contains(n) else { return nil }
        return n
    }

    /// The first date in `text`, if any.
    static func parse(_ text: String) -> HeaderDate? {
        if let chinese = chineseDate(text) { return chinese }
        let words = tokens(text)
        for (i, word) in words.enumerated() {
            guard let month = months[word.text.lowercased()] else { continue }
            // "May" alone is a verb as often as a month: only with a day or year beside it.
            var dayValue: Int? = nil
            var end = word.range.upperBound
            if i > 0, let d = day(words[i - 1].text) { dayValue = d }
            var k = i + 1
            if dayValue == nil, k < words.count, let d = day(words[k].text) { dayValue = d; end = words[k].range.upperBound; k += 1 }
            var yearValue: Int? = nil, yearTo: Int? = nil
            if k < words.count, let y = year(words[k].text), text[end..<words[k].range.lowerBound].count <= 3 {
                yearValue = y; end = words[k].range.upperBound; k += 1
                // "1714–15", "1659-60", "1662-3" or "1659-1660": an Old Style double year.
                if k < words.count, CalendarWords.yearEnding(in: words[k].text, from: y) == y + 1,
                   let dash = text[end..<words[k].range.lowerBound].first, "–-/".contains(dash),
                   text[end..<words[k].range.lowerBound].count == 1 {
                    yearTo = y + 1; end = words[k].range.upperBound
                }
            }
            guard dayValue != nil || yearValue != nil else { continue }
            let mm = pad(month)
            func format(_ y: Int?) -> String {
                guard let y else { return "--\(mm)-\(pad(dayValue!))" }
                return dayValue.map { "\(y)-\(mm)-\(pad($0))" } ?? "\(y)-\(mm)"
            }
            return HeaderDate(from: format(yearValue), to: yearTo.map(format), end: end)
        }
        // A year alone: the whole title, or after a colon ("Part I: 1805").
        for (i, word) in words.enumerated() {
            guard let y = year(word.text) else { continue }
            let before = text[..<word.range.lowerBound].trimmingCharacters(in: " ")
            guard before.isEmpty || before.hasSuffix(":") || before.hasSuffix("—") || before.hasSuffix(",") else { continue }
            // "1811–12" or "1811–1812": a range of years.
            if i + 1 < words.count, text[word.range.upperBound..<words[i + 1].range.lowerBound].count == 1,
               "–-".contains(text[word.range.upperBound]), let tail = Int(words[i + 1].text), words[i + 1].text.count == 2 || words[i + 1].text.count == 4 {
                let to = words[i + 1].text.count == 2 ? y / 100 * 100 + tail : tail
                if to > y && to - y < 100 { return HeaderDate(from: String(y), to: String(to), end: words[i + 1].range.upperBound) }
            }
            return HeaderDate(from: String(y), to: nil, end: word.range.upperBound)
        }
        return nil
    }

    /// A title that opens with a date written the Chinese way: "五月四日 晴" is
    /// --05-04, "一九三七年五月四日" 1937-05-04, "1937年5月" 1937-05, "1937年" 1937.
    /// A month alone, a season or a feast dates no title.
    static func chineseDate(_ text: String) -> HeaderDate? {
        guard let d = CJKDates.find(String(text.prefix(32))).first, d.range.lowerBound == 0 else { return nil }
        let end = text.index(text.startIndex, offsetBy: d.range.upperBound)
        let year = d.years.map { String($0.lowerBound) }
        if d.precise, let from = d.from {
            return HeaderDate(from: "\(year ?? "-")-\(pad(from / 100))-\(pad(from % 100))", to: nil, end: end)
        }
        guard let year else { return nil }
        if let from = d.from, let to = d.to, from / 100 == to / 100, from % 100 == 1, to % 100 >= 28 {
            return HeaderDate(from: "\(year)-\(pad(from / 100))", to: nil, end: end)
        }
        return d.from == nil ? HeaderDate(from: year, to: nil, end: end) : nil
    }

    static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// A <time datetime> value kept when it is one of the forms above.
    static func normalised(datetime: String) -> String? {
        let parts = datetime.split(separator: "-", omittingEmptySubsequences: false)
        if datetime.hasPrefix("--"), parts.count == 4, parts[2].count == 2, parts[3].count == 2 { return datetime }
        guard let first = parts.first, first.count == 4, Int(first) != nil, parts.count <= 3,
              parts.dropFirst().allSatisfy({ $0.count == 2 && Int($0) != nil }) else { return nil }
        return datetime
    }

    /// A <time datetime> read beside the date the page shows. Editions of old diaries
    /// give datetime in the Gregorian calendar while the text keeps the writer's Julian
    /// day (Pepys's "October 1st" is datetime 1660-10-11); readers ask by the day they
    /// read, so when the shown day is 10 to 12 days before datetime's, that day is kept.
    static func reconciled(_ datetime: String, shown: String?) -> String {
        guard !datetime.hasPrefix("--"), datetime.utf8.count == 10, let gregorian = Day(iso: datetime), let shown,
              let shownDay = tokens(shown).lazy.compactMap({ day($0.text) }).first, shownDay != gregorian.day else { return datetime }
        for gap in 10...12 {
            let julian = gregorian.adding(days: -gap)
            if julian.day == shownDay { return julian.description }
        }
        return datetime
    }

    /// A short capitalised place after the date: "3 May. Bistritz." -> "Bistritz".
    static func place(after date: HeaderDate, in text: String) -> String? {
        let rest = text[date.end...].trimmingCharacters(in: " .,—–-")
        guard !rest.isEmpty, rest.count <= 40, let first = rest.first, first.isUppercase,
              !rest.contains(where: { $0.isNumber }) else { return nil }
        let place = rest.split(separator: ".").first.map { String($0).trimmingCharacters(in: " ,") } ?? rest
        return place.isEmpty || isTimeOfDay(place) ? nil : place
    }

    /// "Noon", "Later", "Same day": a time written where a place would be.
    static func isTimeOfDay(_ s: String) -> Bool {
        let lower = s.lowercased()
        return ["midnight", "noon", "morning", "evening", "night", "later", "same day", "afternoon"].contains { lower.hasPrefix($0) }
    }
}
