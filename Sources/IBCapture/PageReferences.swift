// Page and chapter references in either language: "p. 47", "pp. 47-48",
// "第47页", "chapter 3", "第三章". A number that is no page is kept as
// written (Found.bad) so the capture can be refused rather than guessed.

extension CaptureParser {
    // MARK: pages and chapters

    struct Found {
        var value: Int; var end: Int?; var range: Range<Int>
        /// The number as written when it is no page: below 1 ("-3", "0"), too large,
        /// a range that runs backwards ("9-3"), or written otherwise ("0x10", "1e3", "١٢").
        var bad: String? = nil
        /// Why `bad` is no page: a message key (nil: below one or too large, from the number).
        var badKey: String? = nil
    }

    /// The largest page number taken as a page (Text.int's limit).
    static let maxPage = 10_000_000

    /// A page reference anywhere: p. 47, p47, pp. 47-48, page 47, pg 47, 第47页, 47页, P47.
    static func findPage(_ chars: [Character]) -> Found? {
        let lower = Text.lowerChars(chars)
        var i = 0
        while i < lower.count {
            let c = lower[i]
            // 第 N 页 / N 页
            if c == ChineseLexicon.ordinal || Text.isDigit(c) || ChineseNumber.digits[c] != nil || c == "十" || c == "百" {
                var j = c == ChineseLexicon.ordinal ? i + 1 : i
                while j < lower.count, lower[j] == " " { j += 1 }
                // 第-3页, 第负3页: a page below 1, refused later.
                var negative = false
                if c == ChineseLexicon.ordinal, j + 1 < lower.count, ChineseLexicon.negative.contains(lower[j]), Text.isDigit(lower[j + 1]) || ChineseNumber.digits[lower[j + 1]] != nil {
                    negative = true
                    j += 1
                }
                let numStart = j
                while j < lower.count, ChineseNumber.isNumeral(lower[j]) { j += 1 }
                let written = String(chars[numStart..<j])
                var value = ChineseNumber.parse(written)
                // Digits too many to be a page: kept as written, refused later.
                let tooLarge = value == nil && j > numStart && written.allSatisfy(Text.isDigit)
                if tooLarge { value = 0 }
                var end: Int? = nil
                if value != nil, j < lower.count, ChineseLexicon.rangeSeparators.contains(lower[j]) {
                    var k = j + 1
                    let s2 = k
                    while k < lower.count, Text.isDigit(lower[k]) { k += 1 }
                    if k > s2 {
                        var m = k
                        while m < lower.count, lower[m] == " " { m += 1 }
                        if m < lower.count, lower[m] == ChineseLexicon.page {
                            guard let e = Text.int(String(chars[s2..<k])) else {
                                return Found(value: 0, end: nil, range: i..<(m + 1), bad: String(chars[numStart..<k]), badKey: "page_too_large")
                            }
                            end = e; j = k
                        }
                    }
                }
                var k = j
                while k < lower.count, lower[k] == " " { k += 1 }
                if value != nil, j > numStart, k < lower.count, lower[k] == ChineseLexicon.page,
                   c == ChineseLexicon.ordinal || i == 0 || !Text.isDigit(lower[i - 1]) {
                    if negative || tooLarge || value! < 1 || value! > maxPage {
                        return Found(value: 0, end: nil, range: i..<(k + 1), bad: (negative ? "-" : "") + written)
                    }
                    if let e = end, e < value! {
                        return Found(value: 0, end: nil, range: i..<(k + 1), bad: String(chars[numStart..<j]), badKey: "page_range_reversed")
                    }
                    return Found(value: value!, end: end, range: i..<(k + 1))
                }
                value = nil
            }
            // Latin forms need a word boundary before.
            if (c == "p" || c == "@") && (i == 0 || !Text.isWordChar(lower[i - 1])) {
                var j = i + 1
                let word: String
                if c == "@" {
                    word = "@"
                } else {
                    var w = "p"
                    while j < lower.count, lower[j].isLetter, lower[j].isASCII { w.append(lower[j]); j += 1 }
                    word = w
                }
                if EnglishLexicon.pageWords.contains(word) || (word.count >= 4 && Fuzzy.isKeyword(word, EnglishLexicon.pageKeywords)) {
                    if j < lower.count, lower[j] == "." { j += 1 }
                    while j < lower.count, lower[j] == " " || lower[j] == "#" { j += 1 }
                    // "p. -3": a page below 1, refused later.
                    var negative = false
                    if j + 1 < lower.count, SharedLexicon.minusSigns.contains(lower[j]), Text.isDigit(lower[j + 1]) { negative = true; j += 1 }
                    let numStart = j
                    while j < lower.count, Text.isDigit(lower[j]) { j += 1 }
                    // "p. 0x10", "p. 1e3", "p. ١٢": a number not written 1, 2, 3: named, never dropped.
                    if let odd = oddNumber(chars, lower, numStart, j) {
                        return Found(value: 0, end: nil, range: i..<odd.upperBound, bad: String(chars[odd]), badKey: "page_unreadable")
                    }
                    if j > numStart, j == lower.count || !lower[j].isLetter || lower[j] == "f" {
                        let written = String(chars[numStart..<j])
                        let parsed = Text.int(written)
                        if negative || parsed == nil || parsed! < 1 {
                            return Found(value: 0, end: nil, range: i..<j, bad: (negative ? "-" : "") + written)
                        }
                    }
                    if j > numStart, let value = Text.int(String(chars[numStart..<j])), j == lower.count || !lower[j].isLetter || lower[j] == "f" {
                        var end: Int? = nil
                        var k = j
                        if k < lower.count, lower[k] == "f" { k += 1; if k < lower.count && lower[k] == "f" { k += 1 }; j = k }
                        else if k < lower.count, lower[k] == "-" || lower[k] == "–" {
                            k += 1
                            let s2 = k
                            while k < lower.count, Text.isDigit(lower[k]) { k += 1 }
                            if k > s2 {
                                // 47-48, 147-8; a backwards or huge end is refused, never dropped.
                                guard let e = Text.int(String(chars[s2..<k])) else {
                                    return Found(value: 0, end: nil, range: i..<k, bad: String(chars[numStart..<k]), badKey: "page_too_large")
                                }
                                var full = e
                                let vs = String(value), es = String(chars[s2..<k])
                                if es.count < vs.count { full = Int(String(vs.dropLast(es.count)) + es) ?? e }
                                if full < value {
                                    return Found(value: 0, end: nil, range: i..<k, bad: String(chars[numStart..<k]), badKey: "page_range_reversed")
                                }
                                end = full == value ? nil : full
                                j = k
                            }
                        }
                        return Found(value: value, end: end, range: i..<j)
                    }
                }
            }
            i += 1
        }
        return nil
    }

    /// The span of a page number written other than in digits 1, 2, 3 (hex, an
    /// exponent, other scripts' digits), starting at `start`; nil when it is plain
    /// digits (followed by f/ff or a non-letter) or no number at all.
    static func oddNumber(_ chars: [Character], _ lower: [Character], _ start: Int, _ digitsEnd: Int) -> Range<Int>? {
        // Part of a number as written: ASCII letters (0x10, 1e3), digits of any script, + and ^.
        func numberish(_ c: Character) -> Bool {
            (c.isASCII && (c.isLetter || c.isNumber)) || c == "+" || c == "^" || (c.isNumber && !ChineseNumber.isNumeral(c) && c.wholeNumberValue != nil)
        }
        guard start < lower.count else { return nil }
        if digitsEnd == start {
            guard lower[start].wholeNumberValue != nil, !lower[start].isASCII, !ChineseNumber.isNumeral(lower[start]) else { return nil }
        } else {
            guard digitsEnd < lower.count, numberish(lower[digitsEnd]), lower[digitsEnd] != "+", lower[digitsEnd] != "^" else { return nil }
            let tail = String(lower[digitsEnd...].prefix { $0.isASCII && $0.isLetter })
            if tail == "f" || tail == "ff" { return nil }
        }
        var end = start
        while end < lower.count, numberish(lower[end]) { end += 1 }
        return start..<end
    }

    /// chapter 3, ch. 3, chap 3, 第3章, 第三章.
    static func findChapter(_ chars: [Character]) -> (String, Range<Int>)? {
        let lower = Text.lowerChars(chars)
        for kw in EnglishLexicon.chapterWords {
            var from = 0
            while let i = Text.find(Array(kw), in: lower, from: from) {
                from = i + 1
                if i > 0 && Text.isWordChar(lower[i - 1]) { continue }
                var j = i + kw.count
                if j < lower.count, lower[j].isLetter, !kw.hasSuffix(".") { continue }
                while j < lower.count, lower[j] == " " || lower[j] == "#" { j += 1 }
                let s = j
                while j < lower.count, lower[j].isLetter || lower[j].isNumber || lower[j] == "." { j += 1 }
                while j > s, lower[j - 1] == "." { j -= 1 }
                guard j > s else { continue }
                var value = String(chars[s..<j])
                if let n = EnglishLexicon.smallNumbers[value.lowercased()] { value = String(n) }
                guard value.first!.isNumber || value.allSatisfy(EnglishLexicon.romanDigits.contains) else { continue }
                let name = kw.hasPrefix("part") ? "part " : (kw.hasPrefix("sec") ? "section " : "")
                return (name + value, i..<j)
            }
        }
        // 第N章 / 第N节 / 第N部分
        if let i = chars.firstIndex(of: ChineseLexicon.ordinal) {
            var j = i + 1
            while j < chars.count, ChineseNumber.isNumeral(chars[j]) { j += 1 }
            if j > i + 1, j < chars.count, ChineseLexicon.chapterUnits.contains(chars[j]) {
                if let n = ChineseNumber.parse(String(chars[(i + 1)..<j])) {
                    var end = j + 1
                    if chars[j] == "部", end < chars.count, chars[end] == "分" { end += 1 }
                    return (String(n), i..<end)
                }
            }
        }
        return nil
    }

    static func removing(_ chars: [Character], _ range: Range<Int>) -> [Character] {
        var out = Array(chars[..<range.lowerBound])
        out.append(" ")
        out.append(contentsOf: chars[range.upperBound...])
        return out
    }
}
