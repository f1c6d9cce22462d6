// "ib-index lst" -> "did you mean list?": one rule for every tool with
// subcommands, with the same edit distance the book-title matcher uses.

public enum Subcommands {
    /// The subcommand `word` is a slip for, if exactly one is within one edit
    /// (two for words of six letters or more, a swap of two letters being one
    /// edit) or `word` is a prefix of exactly one. Nil for anything else: a file
    /// name, a capture line, a word far from every subcommand.
    public static func suggestion(_ word: String, among names: [String]) -> String? {
        let w = word.lowercased()
        guard !w.isEmpty, !names.contains(w), w.allSatisfy({ $0.isLetter || $0 == "-" }) else { return nil }
        let allowed = w.count >= 6 ? 2 : 1
        let scalars = Array(w.unicodeScalars)
        let close = names.filter { name in
            (w.count >= 2 && name.hasPrefix(w))
                || TitleMatcher.editDistance(scalars, Array(name.unicodeScalars), limit: allowed) <= allowed
        }
        return close.count == 1 ? close[0] : nil
    }

    /// The usage error for an unknown subcommand close to a known one.
    public static func unknown(_ word: String, suggestion: String) -> IBError {
        IBError.usage("unknown command '\(word)'; did you mean \(suggestion)?")
    }
}
