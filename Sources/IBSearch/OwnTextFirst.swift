// Hybrid ranks the pages that are not the book's own text after it:
// - the publisher's pages (title page, imprint, colophon, licence, contents:
//   BookMatter). A title page says the book's title and author, names a
//   question often carries ("Claudius promises Laertes..." found Hamlet's
//   imprint first in full text); it answers none of them.
// - the editor's notes and index (BookMatter.apparatusTitles). They are dense
//   with the book's names, places and dates, so a question that recalls a
//   passage finds the note on it: in the tuning parts, 29 top-5 places of 741
//   searches (22 of them in the Meditations, a tenth of whose chunks are
//   notes), and no passage sought lay in them.
// A question about the edition ("who published this ebook", "the licence")
// keeps the publisher's pages where they rank, one about the notes ("the
// footnote on...", "the editor's note") the notes.
import IBCore

extension SearchEngine {
    /// Words that ask about the edition rather than the book.
    static let editionWords: Set<String> = [
        "edition", "editions", "publisher", "published", "publishing", "license", "licence", "copyright",
        "ebook", "ebooks", "gutenberg", "transcriber", "colophon", "imprint", "typeset", "typography",
    ]

    /// Words that ask about the editor's notes or index.
    static let apparatusWords: Set<String> = [
        "note", "notes", "footnote", "footnotes", "endnote", "endnotes", "annotation", "annotations",
        "editor", "editors", "editorial", "index",
    ]

    /// What a question leaves in place: the publisher's pages when it asks about
    /// the edition, the notes when it asks about them.
    struct NotOwnText {
        var publisher = true, apparatus = true
        var isEmpty: Bool { !publisher && !apparatus }
    }

    /// `candidates` with the pages that are not the book's own text moved after
    /// the first `k` of its own, looking at most `lookahead` past k; unchanged
    /// for what the question asks about.
    func ownTextFirst(_ candidates: [FusedCandidate], question: String, k: Int, lookahead: Int = 20) throws -> [FusedCandidate] {
        let words = Set(Self.plainWords(question))
        let moved = NotOwnText(publisher: words.isDisjoint(with: Self.editionWords), apparatus: words.isDisjoint(with: Self.apparatusWords))
        guard !candidates.isEmpty, !moved.isEmpty else { return candidates }
        let head = candidates.prefix(k + lookahead)
        let ords = try library.sectionOrds(forChunks: head.map(\.ref))
        var own: [FusedCandidate] = [], other: [FusedCandidate] = []
        var looked = 0
        for c in head where own.count < k {
            if try isNotOwnText(c, ord: ords[c.ref], moved) { other.append(c) } else { own.append(c) }
            looked += 1
        }
        guard !other.isEmpty else { return candidates }
        return own + other + candidates.dropFirst(looked)
    }

    /// In a section titled as the publisher's (or as the editor's notes), or (a
    /// book without structure, or a chunk before its first unit: a plain text's
    /// Project Gutenberg header) a text of licence words.
    func isNotOwnText(_ c: FusedCandidate, ord: Int?, _ moved: NotOwnText) throws -> Bool {
        if let ord {
            let path = try structure(c.bookID).first { $0.ord == ord }?.path
            return (moved.publisher && BookMatter.isPublisherMatter(section: path))
                || (moved.apparatus && BookMatter.isApparatus(section: path))
        }
        guard moved.publisher else { return false }
        if let known = matterCache[c.ref] { return known }
        guard let chunk = try library.chunk(c.ref) else { return false }
        let matter = BookMatter.soundsLikeMatter(chunk.text)
        if matterCache.count >= 100_000 { matterCache = [:] }
        matterCache[c.ref] = matter
        return matter
    }
}
