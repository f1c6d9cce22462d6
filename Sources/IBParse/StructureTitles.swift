// What a unit's title says about it: its kind and number ("Book Two" is a
// book numbered 2, "XIV" a chapter numbered 14, "Scene II" a scene), whose
// voice a journal or letter is in ("Mina Murray's Journal", "Letter, Lucy
// Westenra to Mina Murray"), and the date a header gives (StructureDates).

import IBCore

enum StructureTitles {
    static let kindWords: [String: String] = [
        "book": "book", "part": "part", "volume": "part", "chapter": "chapter", "act": "act", "scene": "scene",
        "letter": "letter", "telegram": "letter", "section": "section", "canto": "chapter", "stave": "chapter",
    ]

    /// The kind named by the title's first word, and the number it carries.
    static func kindAndNumber(_ title: String) -> (kind: String?, number: Int?) {
        let words = title.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "." || $0 == "," || $0 == "—" })
        guard let first = words.first else { return (nil, nil) }
        // A Chinese title counts its part: "第十二章 出海" is chapter 12, "第三幕" act 3.
        if let counted = CJKNumerals.countedParts(String(title.prefix(12))).first, counted.range.lowerBound == 0, counted.number > 0 {
            return (counted.kind, counted.number)
        }
        if let kind = kindWords[first.lowercased()] {
            return (kind, words.dropFirst().first.flatMap { number(String($0)) })
        }
        // A numbered poem ("Sonnet XVIII", "Psalm 23") is a chapter of its collection, as a bare
        // numeral is, but only with its number ("Song of Myself", "Ode to a Nightingale" are titles).
        if PartWords.numberedPoems.contains(first.lowercased()), let n = words.dropFirst().first.flatMap({ number(String($0)) }) {
            return ("chapter", n)
        }
        // "Second Book", "First Part": an ordinal before a kind.
        if let n = CalendarWords.ordinals[first.lowercased()], words.count > 1, let kind = kindWords[words[1].lowercased()] {
            return (kind, n)
        }
        if isNumeral(title, first: first), let n = number(String(first)) { return ("chapter", n) }
        return (nil, nil)
    }

    /// Whether the title's first word is a bare numeral, which makes it a chapter:
    /// figures ("12", "12 Loomings"), or a roman numeral alone or before
    /// punctuation ("XIV", "XIV: The Masthead", "IV. Sounds"). A roman numeral
    /// before a word begins a sentence ("I Wandered Lonely as a Cloud"), and a
    /// number spelled out begins a name ("First Epilogue", "One Art", "Four Quartets").
    static func isNumeral(_ title: String, first: Substring) -> Bool {
        if first.allSatisfy(\.isASCII) && first.allSatisfy(\.isNumber) { return true }
        guard first.count <= 8, CalendarWords.roman(String(first)) != nil else { return false }
        let rest = title.dropFirst(first.count)
        guard let next = rest.first else { return true }
        return next != " " || rest.drop(while: { $0 == " " }).first.map { !$0.isLetter } ?? true
    }

    /// "14", "XIV", "xiv", "Two", "Second" -> the number (the shared calendar words).
    static func number(_ word: String) -> Int? {
        guard let n = CalendarWords.number(word, romanAllowed: true), n < 100_000 else { return nil }
        return n
    }

    static let honorifics: Set<String> = ["miss", "mrs.", "mr.", "messrs.", "hon.", "sir", "lord", "lady", "madam", "mme."]

    /// What a journal's title calls it, after its owner's name.
    static let journalWords = ["journal", "diary", "log", "memorandum", "notebook", "narrative", "account", "record"]

    /// Whose journal or diary a title names: "Jonathan Harker's Journal." -> "Jonathan Harker".
    static func diaryVoice(_ title: String) -> String? {
        for possessive in ["’s ", "'s ", "’S ", "'S "] {   // a plain text's headings are often in capitals
            guard let range = title.firstRange(of: possessive) else { continue }
            let rest = title[range.upperBound...].lowercased()
            guard journalWords.contains(where: { rest.hasPrefix($0) })
            else { continue }
            let name = String(title[..<range.lowerBound]).trimmingCharacters(in: " (").trimmingCharacters(in: ".")
            return name.isEmpty ? nil : name
        }
        if let range = title.firstRange(of: "Log of the ") {
            let ship = title[range.upperBound...].split(whereSeparator: { $0 == "." || $0 == "," }).first.map(String.init)
            return ship.map { "the " + $0 }
        }
        // "Memorandum by Abraham Van Helsing.", "Memorandum Left by Lucy Westenra."
        let lower = title.lowercased()
        if journalWords.contains(where: { lower.hasPrefix($0) }), let by = title.firstRange(of: " by ") {
            let name = title[by.upperBound...].split(whereSeparator: { $0 == "." || $0 == "," }).first.map(String.init) ?? ""
            let words = name.split(separator: " ")
            if !words.isEmpty, words.count <= 4, words.allSatisfy({ $0.first?.isUppercase == true }) { return name }
        }
        return nil
    }

    /// The sender of "Letter, Lucy Westenra to Mina Murray." or "Telegram from Arthur Holmwood to ...".
    static func letterVoice(_ header: String) -> String? {
        var text = Substring(header)
        let lower = header.lowercased()
        guard let lead = ["letter from ", "letter, ", "telegram from ", "telegram, ", "note from ", "note, ", "letter of "]
            .first(where: { lower.hasPrefix($0) }) else { return nil }
        text = text.dropFirst(lead.count)
        guard let to = text.firstRange(of: " to ") ?? text.firstRange(of: " TO ") else { return nil }   // a plain text's capitals
        var words = text[..<to.lowerBound].split(separator: " ")
        // "Miss Mina Murray" -> "Mina Murray"; "Mrs. Harker" stays whole.
        while words.count > 2, let first = words.first, honorifics.contains(first.lowercased()) { words.removeFirst() }
        // "Samuel F. Billington & Son, Solicitors, Whitby": the name before the first comma.
        let name = words.joined(separator: " ").split(separator: ",").first.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) || c == " " { s.removeFirst() }
        while let c = s.last, set.contains(c) || c == " " { s.removeLast() }
        return String(s)
    }
}
