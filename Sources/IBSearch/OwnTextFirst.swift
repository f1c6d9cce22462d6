// Hybrid ranks the pages that are not the book's own text after it:
// - the publisher's pages (title page, imprint, colophon, licence, contents:
//   BookMatter). A title page says the book's title and author, names a
//   question often carries ("Claudius promises Laertes..." found Hamlet's
//   imprint first in full text); it answers none of them. So is a cast list
//   or dedication whose chunk also holds the imprint's last lines (Hamlet's
//   "Dramatis Personae", ranked second for that question): the cast list
//   alone stays where it ranks.
// - the editor's notes and index (BookMatter.apparatusTitles). They are dense
//   with the book's names, places and dates, so a question that recalls a
//   passage finds the note on it: in the tuning parts, 29 top-5 places of 741
//   searches (22 of them in the Meditations, a tenth of whose chunks are
//   notes), and no passage sought lay in them.
// - the front and back matter the EPUB marks as such (a preface, an
//   introduction, an afterword: BookMatter.prefatoryKinds, from the markup
//   alone). An edition's introduction is often the editor's life of the author
//   (Standard Ebooks' Pepys: some 90,000 characters before the diary's first
//   day), retelling the book's events in a modern voice and naming its author
//   on every page, where the diary says "I".
// A question about the edition ("who published this ebook", "the licence")
// keeps the publisher's pages where they rank, one about the notes ("the
// footnote on...", "the editor's note") the notes, and one that names the
// preface, the introduction or a word of such a section's title ("the
// Extracts") that section.
import IBCore
import IBStore

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

    /// Words that ask about the front or back matter.
    static let prefatoryWords: Set<String> = BookMatter.prefatoryKinds.union([
        "prefaces", "introductions", "introductory", "forewords", "prologues", "afterwords", "epilogues", "dedicated",
        "editor", "editors", "editorial", "translator", "translators",
    ])

    /// What a question leaves in place: the publisher's pages when it asks about
    /// the edition, the notes when it asks about them, the front and back matter
    /// when it names it (`words`: the question's, for the titles).
    struct NotOwnText {
        var publisher = true, apparatus = true, prefatory = true
        var words: Set<String> = []
        var isEmpty: Bool { !publisher && !apparatus && !prefatory }
    }

    /// `candidates` with the pages that are not the book's own text moved after
    /// the first `k` of its own, looking at most `lookahead` past k; unchanged
    /// for what the question asks about.
    func ownTextFirst(_ candidates: [FusedCandidate], question: String, k: Int, lookahead: Int = 20) throws -> [FusedCandidate] {
        let words = Set(Self.plainWords(question))
        let moved = NotOwnText(publisher: words.isDisjoint(with: Self.editionWords), apparatus: words.isDisjoint(with: Self.apparatusWords),
                               prefatory: words.isDisjoint(with: Self.prefatoryWords), words: words)
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

    /// In a section titled as the publisher's (or as the editor's notes), in
    /// front or back matter the markup marked, or (a book without structure, or
    /// a chunk before its first unit: a plain text's Project Gutenberg header)
    /// a text of licence words.
    func isNotOwnText(_ c: FusedCandidate, ord: Int?, _ moved: NotOwnText) throws -> Bool {
        if let ord {
            let units = try structure(c.bookID)
            let unit = units.first { $0.ord == ord }
            let path = unit?.path
            if (moved.publisher && BookMatter.isPublisherMatter(section: path)) || (moved.apparatus && BookMatter.isApparatus(section: path)) {
                return true
            }
            // A cast list or dedication whose chunk also holds the imprint's tail (the
            // chunker joins a short page to the next): Hamlet's "Dramatis Personae",
            // which names every character a question may name.
            if moved.publisher && BookMatter.isMatter(section: path), try soundsLikeMatter(c.ref) { return true }
            guard moved.prefatory, let unit else { return false }
            return try isUnnamedMatter(unit, in: units, bookID: c.bookID, question: moved.words)
        }
        guard moved.publisher else { return false }
        return try soundsLikeMatter(c.ref)
    }

    /// Whether a chunk's text holds licence and imprint words (BookMatter.soundsLikeMatter), remembered.
    func soundsLikeMatter(_ ref: ChunkRef) throws -> Bool {
        if let known = matterCache[ref] { return known }
        guard let chunk = try library.chunk(ref) else { return false }
        let matter = BookMatter.soundsLikeMatter(chunk.text)
        if matterCache.count >= 100_000 { matterCache = [:] }
        matterCache[ref] = matter
        return matter
    }

    /// Whether `unit` or a unit around it is front or back matter (its kind) whose
    /// title the question does not name: a word of the title that is not a word
    /// of the book's own title or author ("Particulars of the Life of Samuel
    /// Pepys" is not named by "Pepys").
    func isUnnamedMatter(_ unit: SearchSection, in units: [SearchSection], bookID: String, question: Set<String>) throws -> Bool {
        var current: SearchSection? = unit
        while let u = current {
            if let kind = u.kind, BookMatter.prefatoryKinds.contains(kind) {
                let book = try bookInfo(bookID)
                let own = Set(Self.plainWords(([book?.title ?? ""] + (book?.authors ?? [])).joined(separator: " ")))
                let named = Set(Self.plainWords(u.title).filter { $0.count > 3 }).subtracting(own)
                return named.isDisjoint(with: question)
            }
            current = u.parent.flatMap { p in units.first { $0.ord == p } }
        }
        return false
    }
}
