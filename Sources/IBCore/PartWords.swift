// Words that name a numbered part in English beyond the usual ones: a
// collection's numbered poems. ib-parse reads a title "Sonnet XVIII" as chapter
// 18 and ib-search a question's "Sonnet 18" as the same; both take the words
// from here, so the two cannot drift apart.

public enum PartWords {
    /// A numbered poem is a chapter of its collection (when a number follows).
    public static let numberedPoems: Set<String> = ["sonnet", "poem", "psalm", "ode", "elegy", "hymn", "epigram", "song"]
    /// Of those, the ones after which a lone "I" is the numeral rather than the pronoun
    /// ("Sonnet I", "Psalm I"; "the poem I love").
    public static let romanOneAfter: Set<String> = ["sonnet", "psalm"]
}
