// The words books and readers use for dates and numbered parts, as data:
// month names, seasons, feast days, number and ordinal words, roman numerals.
// The search reads a question's "on the 4th of May" or "Act III" with them;
// a parser reads a diary's "3 May." with the same tables.

public enum CalendarWords {
    /// Month names and their common abbreviations, lowercased.
    public static let months: [String: Int] = [
        "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
        "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
        "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
        "december": 12, "dec": 12,
    ]

    /// Month names that are also everyday words ("may", "march", "august", and the
    /// short forms): read as a month only beside a day, a year or a date word.
    public static let ambiguousMonths: Set<String> = [
        "may", "march", "mar", "august", "jan", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "feb", "apr",
    ]

    /// The last day of each month (February with the 29th: a book's year is often unknown).
    public static let monthLength = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

    /// The year a shortened second year after a dash stands for, the first at or
    /// after `year` ending in `tail`'s digits: "3" after 1662 is 1663, "00" after
    /// 1699 is 1700, "1660" is 1660 (Old Style double years, ranges of years).
    /// nil unless `tail` is 1, 2 or 4 digits.
    public static func yearEnding(in tail: Substring, from year: Int) -> Int? {
        guard let digits = Int(tail), let modulus = [1: 10, 2: 100, 4: 10_000][tail.count] else { return nil }
        let candidate = year - year % modulus + digits
        return candidate >= year ? candidate : candidate + modulus
    }

    /// Seasons as month ranges (northern hemisphere, as the books mean them);
    /// winter wraps the year's end.
    public static let seasons: [String: (from: Int, to: Int)] = [
        "spring": (3, 5), "summer": (6, 8), "autumn": (9, 11), "fall": (9, 11), "winter": (12, 2),
        "springtime": (3, 5), "summertime": (6, 8), "wintertime": (12, 2),
    ]

    /// Feast days and named days, as month-day ranges (mmdd), longest names first
    /// when matched. Movable feasts (Easter) span their possible dates.
    public static let namedDays: [(words: [String], from: Int, to: Int)] = [
        (["christmas", "eve"], 1224, 1224), (["christmas", "day"], 1225, 1225), (["christmas"], 1224, 1226),
        (["boxing", "day"], 1226, 1226), (["new", "year's", "eve"], 1231, 1231), (["new", "years", "eve"], 1231, 1231),
        (["new", "year's", "day"], 101, 101), (["new", "years", "day"], 101, 101), (["new", "year's"], 1231, 101),
        (["twelfth", "night"], 105, 106), (["epiphany"], 106, 106), (["candlemas"], 202, 202),
        (["valentine's", "day"], 214, 214), (["valentines", "day"], 214, 214), (["lady", "day"], 325, 325),
        (["easter"], 322, 425), (["good", "friday"], 320, 423), (["may", "day"], 501, 501),
        // Movable feasts, over every date they can fall on ("Lent" and "Advent" are
        // left out: "he lent me" and "the advent of" are far more common).
        (["shrove", "tuesday"], 203, 309), (["ash", "wednesday"], 204, 310),
        (["palm", "sunday"], 315, 418), (["maundy", "thursday"], 319, 422), (["ascension", "day"], 430, 603),
        (["whit", "sunday"], 510, 613), (["whitsunday"], 510, 613), (["whitsun"], 510, 613),
        (["whitsuntide"], 510, 620), (["pentecost"], 510, 613), (["trinity", "sunday"], 517, 620),
        (["twelfth", "day"], 106, 106), (["hogmanay"], 1231, 1231),
        (["april", "fools'", "day"], 401, 401), (["april", "fool's", "day"], 401, 401),
        (["st", "george's", "day"], 423, 423), (["st", "george's", "eve"], 422, 422),
        (["st", "david's", "day"], 301, 301), (["st", "patrick's", "day"], 317, 317),
        (["st", "swithin's", "day"], 715, 715), (["st", "bartholomew's", "day"], 824, 824),
        (["st", "andrew's", "day"], 1130, 1130), (["st", "stephen's", "day"], 1226, 1226),
        (["st", "john's", "eve"], 623, 623), (["midsummer", "eve"], 623, 623),
        (["midsummer", "day"], 624, 624), (["midsummer"], 621, 624), (["lammas"], 801, 801),
        (["michaelmas"], 929, 929), (["halloween"], 1031, 1031), (["all", "hallows"], 1031, 1101),
        (["all", "saints'", "day"], 1101, 1101), (["all", "souls'", "day"], 1102, 1102),
        (["guy", "fawkes"], 1105, 1105), (["bonfire", "night"], 1105, 1105), (["martinmas"], 1111, 1111),
        (["midwinter", "day"], 1221, 1221), (["midwinter"], 1215, 1231), (["dog", "days"], 703, 811),
    ]

    /// Words a named day may carry after its name before a year: "Easter Day
    /// 1662", "Guy Fawkes night 1660", "All Hallows' Eve 1663".
    public static let namedDayTails: Set<String> = ["day", "sunday", "night", "eve", "morning", "evening"]

    /// Number words to 31 and the tens beyond ("twenty-one" is read as two words).
    public static let cardinals: [String: Int] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
        "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
        "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
        "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
    ]

    /// Ordinal words ("the third chapter", "the fourth of May").
    public static let ordinals: [String: Int] = [
        "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
        "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
        "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
        "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    ]

    /// A roman numeral's value (I to MMMM), or nil when `text` is not one.
    public static func roman(_ text: String) -> Int? {
        // Read from the bytes (a title's every word is tried): no allocation for a word that is not one.
        func value(_ byte: UInt8) -> Int? {
            switch byte | 0x20 {
            case UInt8(ascii: "i"): return 1
            case UInt8(ascii: "v"): return 5
            case UInt8(ascii: "x"): return 10
            case UInt8(ascii: "l"): return 50
            case UInt8(ascii: "c"): return 100
            case UInt8(ascii: "d"): return 500
            case UInt8(ascii: "m"): return 1000
            default: return nil
            }
        }
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 12 else { return nil }
        var total = 0
        var previous: Int? = nil
        for byte in bytes.reversed() {
            guard let v = value(byte) else { return nil }
            if let p = previous, p > v { total -= v } else { total += v }
            previous = v
        }
        guard total > 0, total < 5000, romanString(total) == text.lowercased() else { return nil }
        return total
    }

    /// The canonical lowercase roman numeral of `n` (used to reject "iiv" and the like).
    static func romanString(_ n: Int) -> String {
        let table: [(Int, String)] = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
                                      (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
        var n = n, out = ""
        for (value, letters) in table { while n >= value { out += letters; n -= value } }
        return out
    }

    /// "12", "12th", "xii", "twelve", "twelfth", "twenty-first" as a number; nil otherwise.
    /// `romanAllowed`: whether a roman numeral counts (only beside a word like "chapter").
    public static func number(_ word: String, romanAllowed: Bool) -> Int? {
        let w = word.lowercased()
        if let n = Int(w), n >= 0 { return n }
        for suffix in ["st", "nd", "rd", "th"] where w.hasSuffix(suffix) {
            if let n = Int(w.dropLast(2)), n >= 0 { return n }
        }
        if let n = cardinals[w] ?? ordinals[w] { return n }
        if let dash = w.firstIndex(of: "-"), let tens = cardinals[String(w[..<dash])], tens >= 20,
           let unit = number(String(w[w.index(after: dash)...]), romanAllowed: false), unit < 10 {
            return tens + unit
        }
        return romanAllowed ? roman(w) : nil
    }
}
