// Numbers as Chinese readers write them: 二十, 一百二十, 两千, full-width
// digits, or ASCII digits.
import IBCore

/// Chinese numerals up to the thousands: 二十, 一百二十, 两, 十五, or Arabic digits.
public enum ChineseNumber {
    static let digits: [Character: Int] = ["零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9]
    static let units: [Character: Int] = ["十": 10, "百": 100, "千": 1000, "万": 10000, "亿": 100_000_000]

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
                if u == 100_000_000 { total = (total + section + current) * u; section = 0 }
                else if u == 10000 { section = (section + current) * u; total += section; section = 0 }
                else { section += (current == 0 ? 1 : current) * u }
                current = 0
            } else if let d = c.wholeNumberValue { current = current * 10 + d; sawAny = true }
            else { return nil }
        }
        return sawAny ? total + section + current : nil
    }
}
