// Numbers, ordinals and times as they are said: "two hundred and twelve",
// "forty-seventh", "a hundred and four", "two hours fifteen minutes",
// "1:02:30". Word values come from IBCore's CalendarWords (cardinals to
// ninety and "hundred", ordinals); this file only composes them. Each reader
// takes lower-case words and a start index and says how many words it used,
// so the caller can keep the rest of the line as it was said.
import IBCore

enum SpokenNumbers {
    struct Reading: Equatable {
        var value: Int
        var count: Int
        /// The last word was an ordinal ("third", "forty-seventh", "47th").
        var ordinal: Bool
    }

    /// The number starting at `w[i]`: digits ("47", "47th") or words, the longest
    /// reading ("twenty one" is 21, not 20). nil when `w[i]` starts none.
    static func number(_ w: [String], _ i: Int) -> Reading? {
        guard i < w.count else { return nil }
        if let n = Text.int(w[i]) {
            // Whisper writes "two hundred and twelve" as "200 and 12".
            if n >= 100, n % 100 == 0, i + 2 < w.count, SpokenLexicon.joins.contains(w[i + 1]),
               let rest = Text.int(w[i + 2]) ?? belowHundred(w, i + 2).map(\.value), rest < 100 {
                return Reading(value: n + rest, count: Text.int(w[i + 2]) != nil ? 3 : 2 + belowHundred(w, i + 2)!.count, ordinal: false)
            }
            // "40, 7": Whisper's digits for "forty seven" said slowly, the unit apart.
            if n >= 20, n < 100, n % 10 == 0, i + 1 < w.count, w[i + 1].count == 1, let unit = Text.int(w[i + 1]), unit > 0 {
                return Reading(value: n + unit, count: 2, ordinal: false)
            }
            return Reading(value: n, count: 1, ordinal: false)
        }
        if w[i].first?.isNumber == true, let n = CalendarWords.number(w[i], romanAllowed: false) {
            return Reading(value: n, count: 1, ordinal: true)   // "47th", "3rd"
        }
        return thousands(w, i)
    }

    /// [below-thousand "thousand" [and]] [below-thousand].
    static func thousands(_ w: [String], _ i: Int) -> Reading? {
        guard var r = hundreds(w, i) else { return nil }
        let j = i + r.count
        guard !r.ordinal, j < w.count, w[j] == SpokenLexicon.thousand, r.value < 1000 else { return r }
        var total = Reading(value: r.value * 1000, count: r.count + 1, ordinal: false)
        var k = j + 1
        if k < w.count, SpokenLexicon.joins.contains(w[k]), hundreds(w, k + 1) != nil { k += 1 }
        if let rest = hundreds(w, k) {
            total.value += rest.value; total.count = k - i + rest.count; total.ordinal = rest.ordinal
        }
        r = total
        return r
    }

    /// [below-hundred | "a"] "hundred" [and] [below-hundred], or below-hundred alone.
    static func hundreds(_ w: [String], _ i: Int) -> Reading? {
        guard i < w.count else { return nil }
        var lead: Reading? = belowHundred(w, i)
        if lead == nil, SpokenLexicon.one.contains(w[i]), i + 1 < w.count, w[i + 1] == SpokenLexicon.hundred || w[i + 1] == SpokenLexicon.hundredth {
            lead = Reading(value: 1, count: 1, ordinal: false)   // "a hundred and four"
        }
        guard let first = lead else { return nil }
        let j = i + first.count
        guard !first.ordinal, first.value < 100, j < w.count else { return first }
        if w[j] == SpokenLexicon.hundredth { return Reading(value: first.value * 100, count: first.count + 1, ordinal: true) }
        guard w[j] == SpokenLexicon.hundred else { return first }
        var r = Reading(value: first.value * 100, count: first.count + 1, ordinal: false)
        var k = j + 1
        if k < w.count, SpokenLexicon.joins.contains(w[k]), belowHundred(w, k + 1) != nil { k += 1 }
        if let rest = belowHundred(w, k) {
            r.value += rest.value; r.count = k - i + rest.count; r.ordinal = rest.ordinal
        }
        return r
    }

    /// 1 to 99: "seven", "seventeen", "forty", "forty seven", "forty-seven", "forty-seventh", "ninety first".
    static func belowHundred(_ w: [String], _ i: Int) -> Reading? {
        guard i < w.count else { return nil }
        let word = w[i]
        if word.contains("-") {
            // "forty-seven", "forty-seventh": CalendarWords reads the pair.
            guard let n = CalendarWords.number(word, romanAllowed: false), word.first?.isLetter == true, n > 0, n < 100 else { return nil }
            return Reading(value: n, count: 1, ordinal: CalendarWords.ordinals[String(word.split(separator: "-").last ?? "")] != nil)
        }
        if let n = CalendarWords.ordinals[word], n < 100 { return Reading(value: n, count: 1, ordinal: true) }
        guard let n = CalendarWords.cardinals[word], n > 0, n < 100 else { return nil }
        // A tens word may take a unit after it: "forty seven", "ninety first".
        if n >= 20, n % 10 == 0, i + 1 < w.count {
            if let u = CalendarWords.cardinals[w[i + 1]], u > 0, u < 10 { return Reading(value: n + u, count: 2, ordinal: false) }
            if let u = CalendarWords.ordinals[w[i + 1]], u > 0, u < 10 { return Reading(value: n + u, count: 2, ordinal: true) }
        }
        return Reading(value: n, count: 1, ordinal: false)
    }

    /// The ordinal at `w[i]` directly before one of `nouns`: "ninety first" in "the ninety first page".
    static func ordinal(_ w: [String], _ i: Int, before nouns: Set<String>) -> Reading? {
        for reading in [number(w, i), misheardTens(w, i)] {
            if let r = reading, r.ordinal, i + r.count < w.count, nouns.contains(w[i + r.count]) { return r }
        }
        return nil
    }

    /// "17th third" (Whisper's "the 17th third page" for "the seventy third page"): a teen and
    /// a unit ordinal after it say nothing as a teen, and teens and tens sound alike; read as
    /// the tens and the unit (73). Only `ordinal(_:_:before:)` asks, where an ordinal must stand.
    static func misheardTens(_ w: [String], _ i: Int) -> Reading? {
        guard i < w.count else { return nil }
        // "17th third", or as one word, "17th-third".
        let parts = w[i].split(separator: "-").map(String.init)
        let (first, second, count) = parts.count == 2 ? (parts[0], parts[1], 1) : (w[i], i + 1 < w.count ? w[i + 1] : "", 2)
        guard let unit = CalendarWords.ordinals[second], (1...9).contains(unit) else { return nil }
        let teen = Text.int(first) ?? CalendarWords.cardinals[first] ?? CalendarWords.ordinals[first]
            ?? (first.first?.isNumber == true ? CalendarWords.number(first, romanAllowed: false) : nil)
        guard let t = teen, (13...19).contains(t) else { return nil }
        return Reading(value: (t - 10) * 10 + unit, count: count, ordinal: true)
    }

    // MARK: time

    /// A position or length in time at `w[i]`: "1:02:30", "45:10" (minutes and seconds),
    /// or units said in descending order, "two hours fifteen minutes", "one hour two minutes
    /// and thirty seconds", "an hour and a half", "half an hour", "2 hours, 15 minutes".
    /// Returns the seconds and the words used.
    static func time(_ w: [String], _ i: Int) -> (seconds: Int, count: Int)? {
        guard i < w.count else { return nil }
        if let s = clock(w[i]) { return (s, 1) }
        if w[i] == SpokenLexicon.half, i + 2 < w.count, SpokenLexicon.one.contains(w[i + 1]) {
            if SpokenLexicon.hourUnits.contains(w[i + 2]) { return (1800, 3) }
            if SpokenLexicon.minuteUnits.contains(w[i + 2]) { return (30, 3) }
        }
        let scales: [(Set<String>, Int)] = [(SpokenLexicon.hourUnits, 3600), (SpokenLexicon.minuteUnits, 60), (SpokenLexicon.secondUnits, 1)]
        var total = 0, k = i, next = 0, used = false
        while k < w.count {
            var j = k
            if used, SpokenLexicon.joins.contains(w[j]) { j += 1 }
            // "and a half" after a unit.
            if used, j + 1 < w.count, SpokenLexicon.one.contains(w[j]), w[j + 1] == SpokenLexicon.half, next > 0, next < 3 {
                total += scales[next - 1].1 / 2; k = j + 2; break
            }
            var count: Int? = nil, width = 0
            if let n = number(w, j), !n.ordinal { count = n.value; width = n.count }
            else if j < w.count, SpokenLexicon.one.contains(w[j]) { count = 1; width = 1 }
            guard let c = count, j + width < w.count,
                  let unit = scales.indices.first(where: { scales[$0].0.contains(w[j + width]) }), unit >= next else { break }
            total += c * scales[unit].1
            next = unit + 1; k = j + width + 1; used = true
        }
        return used ? (total, k - i) : nil
    }

    /// "1:02:30" (hours, minutes, seconds) or "45:10" (minutes and seconds).
    static func clock(_ word: String) -> Int? {
        let parts = word.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 4 }) else { return nil }
        let values = parts.map { Text.int($0) }
        guard values.allSatisfy({ $0 != nil }) else { return nil }
        let v = values.map { $0! }
        if parts.count == 3 {
            guard parts[1].count == 2, parts[2].count == 2, v[1] < 60, v[2] < 60 else { return nil }
            return v[0] * 3600 + v[1] * 60 + v[2]
        }
        guard parts[1].count == 2, v[1] < 60 else { return nil }
        return v[0] * 60 + v[1]
    }

    /// "1-2-30": how Whisper writes "one oh two thirty" said as a time (hours, minutes with
    /// the "oh" lost, seconds). Read only where a time must follow a lead ("at", "listened to"),
    /// never elsewhere: "11-28-26" in other words is no time.
    static func hyphenClock(_ word: String) -> Int? {
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count <= 2, parts[1].count <= 2, parts[2].count == 2,
              let h = Text.int(parts[0]), let m = Text.int(parts[1]), let s = Text.int(parts[2]), m < 60, s < 60 else { return nil }
        return h * 3600 + m * 60 + s
    }

    /// Seconds as a clock: 8100 -> "2:15:00", 75 -> "0:01:15".
    static func clockText(_ seconds: Int) -> String {
        let h = seconds / 3600, m = seconds / 60 % 60, s = seconds % 60
        return "\(h):" + (m < 10 ? "0" : "") + "\(m):" + (s < 10 ? "0" : "") + "\(s)"
    }
}
