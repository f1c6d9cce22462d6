// BookRarity: how rare a query word counts as when one book (or a few) is
// searched: a blend of its rarity in those books and in the whole library.
//
// Why: the library's IDF is what FTS5 gives, but in a book scope it misjudges
// words: a word frequent in this book and rare elsewhere ("coffin" in Dracula)
// weighs as much as a word that is rare in the book too, so a question's
// plainest clue is outweighed. A plain BM25 over the book alone ranks such
// passages in its top 5 where ib's text search put them 6th or lower: on the
// readers' set (tuning part, one-book scope) 11 of 132 such questions. In a
// simulation of ib's ranking, factor by factor, the book's IDF brings 4 of them
// into the top 5; the others come from the light stems ("seems" -> seem*), the
// synonyms and the extra stop words ("ever"), each of which wins more
// paraphrases than it loses keyword questions, so they stay. The book's IDF
// alone, though, weighs down the names a question gives ("Pierre" on every page
// of War and Peace) and cost the first long set's held-out part (hybrid 0.728 ->
// 0.679). Half of each (tuning parts, one-book scope, measured in the tool):
// readers' set text recall@5 0.627 -> 0.649, hybrid 0.763 -> 0.768; first long
// set text 0.632 -> 0.618, hybrid 0.701 -> 0.708 (30% and 70% book were within
// a question or two of these).
//
// ib_concepts computes each term's IDF from its document count over the
// scope's chunk count, ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6; the blend
// is handed to it as the (fractional) count that gives the blended IDF.
#if canImport(Glibc)
import Glibc  // log, exp: not Foundation, which would link ICU into every search tool
#endif

struct BookRarity {
    /// The share of the book's IDF in the blend (0: the library's, 1: the book's).
    let bookShare: Double
    /// Chunks in the searched books, and in the library.
    let bookRows: Int
    let libraryRows: Int

    /// BM25's IDF of a term found in `documents` of `rows` chunks, as FTS5 and ib_concepts compute it.
    static func idf(documents: Double, rows: Int) -> Double {
        let n = min(documents, Double(rows))
        return max(1e-6, log((Double(rows) - n + 0.5) / (n + 0.5)))
    }

    /// The blended IDF of a term in `inBooks` chunks of the books and `inLibrary` of the library.
    func idf(inBooks: Int, inLibrary: Int) -> Double {
        let book = Self.idf(documents: Double(inBooks), rows: bookRows)
        let library = Self.idf(documents: Double(max(inLibrary, inBooks)), rows: max(libraryRows, bookRows))
        return bookShare * book + (1 - bookShare) * library
    }

    /// The document count that gives `idf(inBooks:inLibrary:)` over `bookRows`
    /// chunks (the inverse of BM25's IDF, kept between 0 and bookRows).
    func documents(inBooks: Int, inLibrary: Int) -> Double {
        let e = exp(idf(inBooks: inBooks, inLibrary: inLibrary))
        let n = (Double(bookRows) + 0.5 - 0.5 * e) / (1 + e)
        return min(Double(bookRows), max(0, n))
    }
}
