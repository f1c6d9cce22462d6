// What the offline (extractive) answer may quote, and when it must not
// answer at all. A cast list, a table of contents or a licence sounds like
// many questions ("Ghost of Hamlet's father") and answers none of them; a
// sentence that merely resembles the question a little is a guess, not an
// answer.
import IBCore

enum ExtractiveRules {
    /// Below this score (the best sentence's cosine similarity to the
    /// question, with the ranking bonuses of `Asker.extractive`) the passages
    /// are shown instead of an answer. Measured on the sample books (see
    /// ib-ask(1), extractive): 30 Moby-Dick questions of the long-book set
    /// scored 0.54-0.98 (median 0.69) on Moby-Dick and 0.30-0.65 (median 0.47)
    /// on Dracula and Hamlet; 0.57 declines 1 of the 30 and answers 2 of the 60.
    static let weakBelowHundredths = 57
    static var weakBelow: Float { Float(weakBelowHundredths) / 100 }
    static var weakBelowText: String { "0.\(weakBelowHundredths)" }

    /// A passage of front or back matter (BookMatter): its section (any level of
    /// its path) is titled as one, or (a book without sections) its text has two
    /// or more licence and imprint words.
    static func isMatter(_ passage: Passage) -> Bool {
        BookMatter.isMatter(section: passage.section) || BookMatter.soundsLikeMatter(passage.text)
    }

    static func isMatter(section path: [String]?) -> Bool { BookMatter.isMatter(section: path) }

    /// A sentence an answer may quote: a whole statement (it ends as a
    /// sentence does: list entries, headings and contents lines do not) with
    /// no licence or imprint words.
    static func isQuotable(_ sentence: String) -> Bool {
        let body = sentence.trimmingCharacters(in: "\"'“”‘’»«)]* ")
        guard let last = body.last, ".!?…。！？".contains(last) else { return false }
        let lowered = sentence.lowercased()
        return !BookMatter.markers.contains { lowered.contains($0) }
    }

    /// A sentence reduced to its letters and digits, lowercased: two
    /// sentences with the same key say the same thing.
    static func key(_ sentence: String) -> String {
        String(String.UnicodeScalarView(sentence.lowercased().unicodeScalars.filter {
            $0.properties.isAlphabetic || $0.properties.numericType != nil
        }))
    }

    /// Adds candidate `index` (its sentence's `key`) to `picked` unless it
    /// repeats one there; the whole sentence takes the place of a fragment of it.
    static func pick(_ index: Int, key: String, into picked: inout [(index: Int, key: String)]) {
        if let fragment = picked.firstIndex(where: { key.count > $0.key.count && repeats(key, [$0.key]) }) {
            picked[fragment] = (index, key)
        } else if !repeats(key, picked.map(\.key)) {
            picked.append((index, key))
        }
    }

    /// Whether `sentence` repeats one already chosen: the same words, or a
    /// part of it (overlapping chunks cut sentences at their edges).
    static func repeats(_ key: String, _ chosen: [String]) -> Bool {
        chosen.contains { $0 == key || (key.count >= 12 && ($0.contains(key) || key.contains($0))) }
    }
}
