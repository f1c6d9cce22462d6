// ib-ask with no --book in a library of several books (issue 30): the question
// is searched across the whole library, as ib-search does (every book up to
// its reading position), and asked of the book whose passage fits it best.
// The caller says on stderr which book that was and how to choose another.
import IBCore
import IBSearch

enum BookRouting {
    /// The book of the best passage for `question`; nil when no book has one.
    static func route(_ question: String, engine: SearchEngine) throws -> BookLookup.BookRow? {
        guard let best = try engine.search(SearchQuery(text: question, pageLimit: .readingPosition, k: 1)).first else { return nil }
        return BookLookup.BookRow(id: best.bookID, title: best.title, authors: best.authors)
    }
}
