// Hybrid ranks the publisher's pages (title page, imprint, colophon, licence,
// contents: BookMatter) after the book's own text. A title page says the
// book's title and author, names a question often carries ("Claudius promises
// Laertes..." found Hamlet's imprint first in full text); it answers none of
// them. A question about the edition itself ("who published this ebook",
// "the licence") keeps them where they rank.
import IBCore

extension SearchEngine {
    /// Words that ask about the edition rather than the book.
    static let editionWords: Set<String> = [
        "edition", "editions", "publisher", "published", "publishing", "license", "licence", "copyright",
        "ebook", "ebooks", "gutenberg", "transcriber", "colophon", "imprint", "typeset", "typography",
    ]

    /// `candidates` with the publisher's pages moved after the first `k` of the
    /// book's own text, looking at most `lookahead` past k; unchanged when the
    /// question asks about the edition.
    func publisherPagesLast(_ candidates: [FusedCandidate], question: String, k: Int, lookahead: Int = 20) throws -> [FusedCandidate] {
        guard !candidates.isEmpty, Set(Self.plainWords(question)).isDisjoint(with: Self.editionWords) else { return candidates }
        let head = candidates.prefix(k + lookahead)
        let ords = try library.sectionOrds(forChunks: head.map(\.ref))
        var own: [FusedCandidate] = [], publisher: [FusedCandidate] = []
        var looked = 0
        for c in head where own.count < k {
            if try isPublisherPage(c, ord: ords[c.ref]) { publisher.append(c) } else { own.append(c) }
            looked += 1
        }
        guard !publisher.isEmpty else { return candidates }
        return own + publisher + candidates.dropFirst(looked)
    }

    /// In a section titled as the publisher's, or (a book without structure, or a
    /// chunk before its first unit: a plain text's Project Gutenberg header) a text
    /// of licence words.
    func isPublisherPage(_ c: FusedCandidate, ord: Int?) throws -> Bool {
        if let ord {
            return BookMatter.isPublisherMatter(section: try structure(c.bookID).first { $0.ord == ord }?.path)
        }
        if let known = matterCache[c.ref] { return known }
        guard let chunk = try library.chunk(c.ref) else { return false }
        let matter = BookMatter.soundsLikeMatter(chunk.text)
        if matterCache.count >= 100_000 { matterCache = [:] }
        matterCache[c.ref] = matter
        return matter
    }
}
