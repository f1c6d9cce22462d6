// Book names heard wrong, matched by how they sound (spoken lines only). After
// "for"/"from" (or "of" after a page) Whisper sometimes writes a title as
// words that sound like it ("persuation", "moby dik"); no title matches them
// exactly, and the line would be refused. Here each name and the words heard
// are reduced to a phonetic key (our own small code in the spirit of
// Metaphone: consonant sounds only, voiced and voiceless pairs merged, vowels
// dropped after the first letter), and the keys are compared by edit
// distance. A name is taken only when it is a clear single winner: the same
// key, or one edit in eight for a long name, and every other book's name at
// least two edits further. Two names that close are refused with both
// readings (exit 3); nothing close is refused as an unknown book, as before.
// Only titles are matched this way, never authors. Never a guess between books.
import IBCore

enum PhoneticKey {
    /// The key of a phrase: letters only, spaces dropped ("Moby Dick" -> "MPTK").
    static func key(_ phrase: String) -> String {
        let s = Array(phrase.lowercased().filter { $0.isLetter && $0.isASCII })
        var out: [Character] = []
        func emit(_ c: Character) { if out.last != c { out.append(c) } }
        var i = 0
        func at(_ k: Int) -> Character? { k >= 0 && k < s.count ? s[k] : nil }
        while i < s.count {
            let c = s[i], next = at(i + 1)
            let soft = next.map { "eiy".contains($0) } ?? false
            switch c {
            case "a", "e", "i", "o", "u", "y":
                if i == 0 { emit("A") }
                else if out.last != "A" && !out.isEmpty { out.append("·") }  // a vowel keeps doubled consonants apart
            case "b", "p": emit("P")
            case "d", "t":
                if c == "t", next == "h" { emit("0"); i += 1 }
                else if c == "t", next == "i", let n2 = at(i + 2), "ao".contains(n2) { emit("X") }
                else if c == "d", next == "g" { emit("J"); i += 1 }
                else { emit("T") }
            case "c":
                if next == "h" { emit("X"); i += 1 } else if next == "k" { emit("K"); i += 1 } else { emit(soft ? "S" : "K") }
            case "g": if next == "h" { i += 1 } else { emit(soft ? "J" : "K") }
            case "k", "q": emit("K")
            case "j": emit("J")
            case "f", "v": emit("F")
            case "p" where next == "h": emit("F"); i += 1
            case "s", "z":
                if next == "h" { emit("X"); i += 1 }
                else if next == "i", let n2 = at(i + 2), "ao".contains(n2) { emit("X") }
                else { emit("S") }
            case "x": emit("K"); emit("S")
            case "l": emit("L")
            case "m", "n": emit(c == "m" ? "M" : "N")
            case "r": emit("R")
            case "w", "h": if i == 0 { emit("A") }
            default: break
            }
            i += 1
        }
        return String(out.filter { $0 != "·" })
    }
}

extension SpokenNames {
    /// What the words from `i` on sound like: one name (and how many words it took),
    /// two names too close to tell apart, or nothing near.
    enum SoundAlike: Equatable {
        case name(String, words: Int)
        case two(String, String)
        case none
    }

    /// Keys shorter than this say too little to be matched by sound ("Emma": "AM").
    static let shortestKey = 4
    /// Another book's name must be this many edits further than the winner.
    static let margin = 2

    /// Edits allowed between the key heard and a name's key: none below 8 sounds, then one in 8.
    static func editsAllowed(_ key: String) -> Int { key.count / 8 }

    func soundsLike(_ words: [SpokenWord], _ i: Int) -> SoundAlike {
        guard i < words.count else { return .none }
        // The name's words end where Whisper ended a clause, as for exact names.
        var best: [String: (distance: Int, words: Int)] = [:]
        for k in 1...max(1, min(longest + 1, words.count - i)) {
            if k > 1, SpokenLine.endsClause(words[i + k - 2].raw) { break }
            let heard = PhoneticKey.key(words[i..<(i + k)].map(\.word).joined())
            guard heard.count >= Self.shortestKey else { continue }
            for (name, written) in shown where titles.contains(written) {
                let key = PhoneticKey.key(name)
                guard key.count >= Self.shortestKey, abs(key.count - heard.count) <= 2 else { continue }
                let d = Fuzzy.distance(heard, key)
                // The same key for a short name ("medication is" is not Meditations), one edit in eight for a long one.
                guard d <= Self.editsAllowed(key) else { continue }
                if let b = best[written], b.distance <= d { continue }
                best[written] = (d, k)
            }
        }
        let ranked = best.sorted { ($0.value.distance, $0.key) < ($1.value.distance, $1.key) }
        guard let first = ranked.first else { return .none }
        if ranked.count > 1, ranked[1].value.distance - first.value.distance < Self.margin {
            return .two(first.key, ranked[1].key)
        }
        return .name(first.key, words: first.value.words)
    }
}
