// The other things ib-search finds besides passages:
//  - books by title and author, the way a phone's system search finds an app:
//    every query word must start a word of the title or of an author's name
//    (case-insensitive), "sher hol" finds The Adventures of Sherlock Holmes;
//    when no book matches that way, the fuzzy TitleMatcher (typos) is tried;
//  - the reader's quotes and notes (ib-capture's tables), by their words
//    (the same terms as the full-text search: stopwords dropped, stems as prefixes),
//    ranked by how many distinct query terms they contain.
// Quotes and notes are the reader's own material: no page limit applies.
import IBCore
import IBStore

public struct BookHit: Sendable, Equatable {
    public var rank: Int
    public var score: Double
    public var book: BookInfo
}

public struct NoteHit: Sendable, Equatable {
    public enum Kind: String, Sendable { case quote, note }
    public var rank: Int
    public var score: Double
    public var kind: Kind
    public var id: Int
    public var bookID: String
    public var title: String
    public var page: Int?
    public var pageLabel: String?
    /// "note" or "question" for notes.
    public var noteKind: String?
    public var text: String
    public var snippet: String
    public var createdAt: String
}

extension SearchEngine {
    /// Lowercased words of a text (letters and digits; CJK runs as they are).
    static func lowerWords(_ text: String) -> [String] {
        QueryText.words(text).map { $0.text.lowercased() }
    }

    /// Books whose title or authors match `text` word by word (prefixes), best first.
    public func searchBooks(_ text: String, books wanted: [String]? = nil, k: Int = 10) throws -> [BookHit] {
        var books = try readyBooks()
        if let wanted { let set = Set(wanted); books = books.filter { set.contains($0.id) } }
        let queryWords = Self.lowerWords(text)
        guard !queryWords.isEmpty else { return [] }
        var hits: [(Double, BookSummary)] = []
        for book in books {
            let titleWords = Self.lowerWords(book.title)
            let authorWords = book.authors.flatMap { Self.lowerWords($0) }
            var score = 0.0
            var all = true
            for (position, word) in queryWords.enumerated() {
                if let i = titleWords.firstIndex(where: { $0 == word }) {
                    score += 3 - (i == position ? 0 : 0.5)
                } else if titleWords.contains(where: { $0.hasPrefix(word) }) {
                    score += 2
                } else if authorWords.contains(where: { $0 == word }) {
                    score += 2
                } else if authorWords.contains(where: { $0.hasPrefix(word) }) {
                    score += 1.5
                } else if titleWords.contains(where: { $0.contains(word) }) && word.unicodeScalars.contains(where: { TextClasses.isCJK($0.value) }) {
                    score += 2   // a CJK word inside an unsegmented title
                } else {
                    all = false; break
                }
            }
            guard all else { continue }
            // Titles that start with the query first, then shorter titles.
            let normalizedTitle = titleWords.joined(separator: " ")
            if normalizedTitle.hasPrefix(queryWords.joined(separator: " ")) { score += 1 }
            score -= Double(titleWords.count) * 0.01
            hits.append((score, book))
        }
        if hits.isEmpty {
            // Typos: the fuzzy title matcher.
            let matcher = TitleMatcher(books.map { TitleMatcher.Entry(id: $0.id, title: $0.title, authors: $0.authors) })
            let found = matcher.match(text)
            for m in found.candidates where m.score >= matcher.minimumScore {
                if let book = books.first(where: { $0.id == m.id }) { hits.append((m.score, book)) }
            }
        }
        hits.sort { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1.title < $1.1.title }
        var out: [BookHit] = []
        for (score, book) in hits.prefix(k) {
            if let info = try library.book(id: book.id) { out.append(BookHit(rank: out.count + 1, score: score, book: info)) }
        }
        return out
    }

    /// Quotes (kind .quote) or notes (.note) containing the query's terms, best first.
    public func searchNotes(_ text: String, kind: NoteHit.Kind, books wanted: [String]? = nil, k: Int = 10) throws -> [NoteHit] {
        let terms = QueryText.terms(text)
        guard !terms.isEmpty else { return [] }
        let wantedSet = wanted.map(Set.init)
        var hits: [(Double, NoteHit)] = []
        for item in try kind == .quote ? library.quotesToSearch() : library.notesToSearch() {
            guard wantedSet?.contains(item.bookID) ?? true else { continue }
            let body = item.text
            let searchable = body + " " + (kind == .quote ? (item.extra ?? "") : "")
            let words = Self.lowerWords(searchable)
            var distinct = 0
            var total = 0
            for term in terms {
                let n: Int
                if term.isCJK {
                    n = searchable.contains(term.text) ? 1 : 0
                } else {
                    n = words.filter { term.prefix ? $0.hasPrefix(term.text) : $0 == term.text }.count
                }
                if n > 0 { distinct += 1; total += n }
            }
            guard distinct > 0 else { continue }
            let score = Double(distinct) + Double(total) / Double(10 * max(words.count, 1))
            let book = item.bookID.isEmpty ? nil : try bookInfo(item.bookID)
            hits.append((score, NoteHit(rank: 0, score: score, kind: kind, id: item.id, bookID: item.bookID,
                                        title: book?.title ?? item.keptBookTitle ?? "", page: item.page, pageLabel: item.pageLabel,
                                        noteKind: item.kind, text: body,
                                        snippet: Snippet.make(body, terms: terms),
                                        createdAt: item.createdAt)))
        }
        hits.sort { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1.id > $1.1.id }
        return hits.prefix(k).enumerated().map { var h = $0.element.1; h.rank = $0.offset + 1; return h }
    }
}
