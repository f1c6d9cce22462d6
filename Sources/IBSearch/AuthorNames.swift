// A question that names a book's author ("Thoreau on hammering nails, in the
// Conclusion", "Darwin quotes Azara on wild horses", "Marcus admits he will
// never read his notebooks") points at that book, when a search spans several.
// Readers name the author where the book's own text never does (it says "I"),
// so neither list can tell which book is meant: in the whole library such a
// question found its passage only when no other book held one as close.
//
// A word of an author's name (four letters or more, written with a capital in
// the question) names that author's books when it is at home there: more of
// their chunks hold it than of all other books together (a title page, a
// preface). "Darwin" in a library holding The Voyage of the Beagle names it;
// "William" names no book, Bleak House's Sir William being in more chunks than
// Shakespeare's name is in Hamlet's; "Leo" (Tolstoy's) is in as many chunks of
// Moby-Dick, where it is a sign of the zodiac, as of War and Peace.
import IBCore
import IBStore

extension SearchEngine {
    /// Above this many chunks of the library holding it, a word names no author's book.
    static let authorWordLimit = 200

    /// The books of `scope` (nil: every ready book), when it holds two or more,
    /// whose author `question` names.
    func booksNamedByAuthor(_ question: String, scope: SearchScope?) throws -> Set<String> {
        let ids = scope?.books.map(\.id) ?? readyAtScope
        guard ids.count > 1 else { return [] }
        // The first word counts too ("Thoreau on hammering nails"), unlike a title's
        // (StructureFocus.capitalisedWords): the counts below decide, not the capital.
        let capitalised = Set(QueryText.words(question).filter { !$0.cjk && $0.text.count >= 4 && $0.text.unicodeScalars.first?.properties.isUppercase == true }
            .map { $0.text.lowercased() })
        guard !capitalised.isEmpty else { return [] }
        let books = try ids.compactMap { try bookInfo($0) }
        // Each word of an author's name the question writes, with the books of that author.
        var authorsOf: [String: Set<String>] = [:]
        for book in books {
            for name in book.authors {
                for word in QueryText.words(name) where !word.cjk && word.text.count >= 4 {
                    let lower = word.text.lowercased()
                    if capitalised.contains(lower) { authorsOf[lower, default: []].insert(book.id) }
                }
            }
        }
        var named: Set<String> = []
        for (word, own) in authorsOf.sorted(by: { $0.key < $1.key }) {
            guard let counts = try library.wordCountsByBook(word, limit: Self.authorWordLimit) else { continue }
            let home = own.reduce(0) { $0 + (counts[$1] ?? 0) }
            let elsewhere = counts.filter { !own.contains($0.key) }.values.reduce(0, +)
            // No chunk holding it at all (books without their title pages) names the author too.
            if home > elsewhere || elsewhere == 0 { named.formUnion(own) }
        }
        return named
    }
}
