// Words both grammars read in one place, kept in one list because the order
// of its English and Chinese entries decides which match wins.

enum SharedLexicon {
    /// Before a page number below 1: "p. -3", "p. −3".
    static let minusSigns: Set<Character> = ["-", "−", "–"]
    /// After a page count: "(443 pages)", "共443页", ", 443 pp".
    static let pageCountSuffixes = [" pages", " pp", " pgs", "页", " page"]
    /// Between the books of a plan, split in this order: "A, B and C", "《A》、《B》".
    static let bookListSeparators = [", and ", " and ", ", ", " & ", " + ", "、", "和", "与", "及", ";", "，"]
}
