// How the grammars match their lexicons: a keyword with a typo allowed, and
// the first phrase of a table that a line starts with or contains.

enum Lexicon {
    /// The first phrase of `phrases` (in their order) that `text` starts with.
    static func firstPrefix(of text: String, in phrases: [String]) -> String? { phrases.first { text.hasPrefix($0) } }

    /// The first phrase of `phrases` (in their order) that `text` contains.
    static func firstContained(in text: String, _ phrases: [String]) -> String? { phrases.first { text.contains($0) } }
}

enum Fuzzy {
    /// Damerau-Levenshtein (optimal string alignment) distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        let n = x.count, m = y.count
        if n == 0 { return m }
        if m == 0 { return n }
        var d = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in 0...n { d[i][0] = i }
        for j in 0...m { d[0][j] = j }
        for i in 1...n {
            for j in 1...m {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[n][m]
    }

    /// Whether a word is one of the keywords, allowing one typo in words of 4+ letters
    /// (two in words of 8+) and never changing the first letter.
    static func isKeyword(_ word: String, _ keywords: [String]) -> Bool {
        let w = word.lowercased()
        if keywords.contains(w) { return true }
        guard w.count >= 4 else { return false }
        for k in keywords where k.count >= 4 && k.first == w.first {
            let allowed = k.count >= 8 ? 2 : 1
            if abs(k.count - w.count) <= allowed && distance(w, k) <= allowed { return true }
        }
        return false
    }
}
