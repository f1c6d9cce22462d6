// The small date grammar for unit headers: a day and month in either order
// ("3 May", "September 2nd", "Feb. 20th"), a month and year ("January
// 1832"), a full date ("December 17th, 1832"), a year alone ("Part I: 1805"),
// and Old Style double years ("February 1714–15": 1714-02 to 1715-02).
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
                // "1714–15" or "1714-15": an Old Style double year.
                if k < words.count, words[k].text.count == 2, let tail = Int(words[k].text),
                   let dash = text[end..<words[k].range.lowerBound].first, "–-/".contains(dash),
                   text[end..<words[k].range.lowerBound].count == 1 {
                    let candidate = y / 100 * 100 + tail
                    if candidate == y + 1 { yearTo = candidate; end = words[k].range.upperBound }
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
        let parts = datetime.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, !datetime.hasPrefix("--"), let shown,
              let shownDay = tokens(shown).lazy.compactMap({ day($0.text) }).first, shownDay != parts[2] else { return datetime }
        let gregorian = CivilDay(year: parts[0], month: parts[1], day: parts[2]).ordinal
        for gap in 10...12 {
            let julian = CivilDay(ordinal: gregorian - gap)
            if julian.day == shownDay { return "\(julian.year)-\(pad(julian.month))-\(pad(julian.day))" }
        }
        return datetime
    }

    /// A short capitalised place after the date: "3 May. Bistritz." -> "Bistritz".
    static func place(after date: HeaderDate, in text: String) -> String? {
        let rest = text[date.end...].trimmingCharacters(in: " .,—–-")
        guard !rest.isEmpty, rest.count <= 40, let first = rest.first, first.isUppercase,
              !rest.contains(where: { $0.isNumber }) else { return nil }
        let place = rest.split(separator: ".").first.map { String($0).trimmingCharacters(in: " ,") } ?? rest
        let lower = place.lowercased()
        if ["midnight", "noon", "morning", "evening", "night", "later", "same day", "afternoon"].contains(where: { lower.hasPrefix($0) }) { return nil }
        return place.isEmpty ? nil : place
    }
}

/// A proleptic Gregorian date and its day number (days from 1970-01-01), for
/// stepping a date back by days across months and years.
struct CivilDay: Equatable {
    var year: Int, month: Int, day: Int

    init(year: Int, month: Int, day: Int) { self.year = year; self.month = month; self.day = day }

    /// Day number: March-based years, so that the leap day ends a year.
    var ordinal: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    init(ordinal: Int) {
        let z = ordinal + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }
}
