// The search's soft scope: the chunk ranges a question points to by its
// structure (StructureFocus) searched more deeply, and the bonus each chunk
// inside them earns in the fused ranking; and the exact words a reader quotes.
//
// The whole-scope lists go `candidates` deep; a passage the question places
// ("in Act 3", "on the 4th of May") may rank past that in a book of thousands
// of chunks and still be the best match inside what the reader named. So the
// ranges are searched on their own (every window scanned, full text inside
// them), their hits join the lists with the same scores (cosines; BM25 with
// the whole library's statistics), and a chunk earns focusWeight times its
// ranges' weight in the fusion. A reference that matches nothing adds nothing.
import CKernels
import IBCore
import IBStore

/// The chunk ranges a query points to, and the bonus a chunk earns inside them.
struct Focus {
    var ranges: [FocusRange]
    private var byBook: [String: [FocusRange]] = [:]

    init(_ ranges: [FocusRange]) {
        self.ranges = ranges
        for r in ranges { byBook[r.bookID, default: []].append(r) }
    }

    var isEmpty: Bool { ranges.isEmpty }

    /// Each book's share of the best hits of both lists (the first `top` of each).
    static func bookShares(_ vector: [ChunkHit], _ text: [ChunkHit], top: Int = 20) -> [String: Double] {
        let hits = vector.prefix(top) + text.prefix(top)
        guard !hits.isEmpty else { return [:] }
        var shares: [String: Double] = [:]
        for hit in hits { shares[hit.bookID, default: 0] += 1 / Double(hits.count) }
        return shares
    }

    /// In a scope of several books a reference ("chapter 12", "in May") matches in
    /// each; it counts in the books the question's words already point to: a
    /// range's weight is scaled by its book's share of the best hits, doubled and
    /// capped at 1 (a book holding half of them counts fully; one book alone, always).
    mutating func weighByBooks(_ shares: [String: Double]) {
        guard Set(ranges.map(\.bookID)).count > 1 || shares.count > 1 else { return }
        self = Focus(ranges.map { r in
            var r = r
            if !r.onlyBook { r.weight *= min(1, 2 * (shares[r.bookID] ?? 0)) }
            return r
        }.filter { $0.weight > 0 })
    }

    /// The summed weight of the ranges holding chunk `index` of `bookID`; a
    /// range one off what was named counts only for a chunk `amongBest` (NEAR).
    func weight(_ bookID: String, _ index: Int, amongBest: Bool = true) -> Double {
        byBook[bookID]?.reduce(0) { $1.chunks.contains(index) && (amongBest || !$1.near) ? $0 + $1.weight : $0 } ?? 0
    }

    /// The ranges worth searching on their own: those at least half as strong as
    /// the strongest, at most 64 of them and 6,000 chunks in all; in a `large`
    /// scope (past the window scan's limit, where a search has less time to
    /// spare) 16 and 1,500.
    func searched(large: Bool = false) -> [FocusRange] {
        let maxRanges = large ? 16 : 64, maxChunks = large ? 1_500 : 6_000
        // A neighbour (NEAR) is never searched, nor does it set the bar for what is.
        let named = ranges.filter { !$0.near }
        guard let top = named.map(\.weight).max(), top > 0 else { return [] }
        var out: [FocusRange] = []
        var chunks = 0
        for r in named.filter({ $0.weight >= top / 2 }).sorted(by: { $0.weight > $1.weight }) {
            guard out.count < maxRanges, chunks + r.chunks.count <= maxChunks else { break }
            out.append(r); chunks += r.chunks.count
        }
        return out
    }
}

/// What a question's focus is worked out from: its words and references, the
/// searched books, and the structure of those already read. Sendable, so that
/// the full-text half's thread (ParallelText) can work it out while the
/// caller embeds the query.
struct FocusPlan: Sendable {
    var words: [String]
    /// The words the question writes with a capital (StructureFocus.capitalisedWords).
    var capitalised: Set<String>?
    /// The question's words a dictionary knows (the thesaurus): a title of such
    /// words alone may be named without quotation marks (StructureFocus.wholeTitles).
    var dictionaryWords: Set<String> = []
    var references: QueryReferences
    var books: [String]
    var known: [String: [SearchSection]]

    /// The focus, on `library`, with the structure it read (nil: it failed; the caller works it out itself).
    func worked(on library: Library) -> (focus: Focus, read: [String: [SearchSection]])? {
        guard let read = try? SearchEngine.structures(books.filter { known[$0] == nil }, library: library),
              let focus = try? SearchEngine.focus(self, units: known.merging(read) { old, _ in old }, library: library) else { return nil }
        return (focus, read)
    }
}

extension SearchEngine {
    /// A scope of more books than this reads their structure only when the
    /// question names a date or a numbered part (titles alone are not worth it).
    static let structureBookLimit = 32

    /// The focus of `query` within `scope`; empty when it names nothing the books' structure holds.
    func focus(_ query: SearchQuery, references: QueryReferences, scope: SearchScope?) throws -> Focus {
        guard let plan = try focusPlan(query, references: references, scope: scope) else { return Focus([]) }
        return try Self.focus(plan, units: try structures(plan.books), library: library)
    }

    /// What the focus of `query` reads; nil when the question cannot point anywhere
    /// (or, in a scope of many books, only by words of titles).
    func focusPlan(_ query: SearchQuery, references: QueryReferences, scope: SearchScope?) throws -> FocusPlan? {
        let words = Self.plainWords(query.focusText ?? query.text)
        let capitalised = StructureFocus.capitalisedWords(query.focusText ?? query.text)
        // A run of capitalised words may be a chapter's whole title ("..., Beginning the World"),
        // and so may one such word right after "chapter" ("chapter A Discovery").
        let titleRun = StructureFocus.capitalisedRun(words, capitalised: capitalised)
            || StructureFocus.capitalisedAfterChapter(words, capitalised: capitalised)
        guard StructureFocus.mayLocate(references, words: words) || titleRun else { return nil }
        let books = scope?.books.map(\.id) ?? readyAtScope
        let named = !references.dates.isEmpty || !references.parts.isEmpty || references.position != nil
        guard !books.isEmpty, named || books.count <= Self.structureBookLimit else { return nil }
        var known: [String: [SearchSection]] = [:]
        for id in books { known[id] = structureCache[id] }
        var plan = FocusPlan(words: words, capitalised: capitalised, references: references, books: books, known: known)
        if titleRun, let thesaurus {
            plan.dictionaryWords = Set(StructureFocus.contentRun(words).filter { !thesaurus.synonyms(of: $0).isEmpty })
        }
        return plan
    }

    /// The focus `plan` finds in `units` (the structure of each of its books).
    static func focus(_ plan: FocusPlan, units: [String: [SearchSection]], library: Library) throws -> Focus {
        let units = units.filter { !$0.value.isEmpty }
        guard !units.isEmpty || plan.references.position != nil else { return Focus([]) }
        let counts = try library.chunkCounts(bookIDs: plan.references.position != nil ? plan.books : Array(units.keys))
        return Focus(StructureFocus.ranges(plan.references, words: plan.words, capitalised: plan.capitalised, dictionaryWords: plan.dictionaryWords,
                                           units: units, chunkCounts: counts))
    }

    /// A book's structure, read once per engine (ib-mcp and ib-ask search many times).
    func structure(_ bookID: String) throws -> [SearchSection] {
        try structures([bookID])[bookID] ?? []
    }

    /// The structure of each of `bookIDs` (those not read before read together).
    func structures(_ bookIDs: [String]) throws -> [String: [SearchSection]] {
        let missing = bookIDs.filter { structureCache[$0] == nil }
        if !missing.isEmpty { remember(try Self.structures(missing, library: library)) }
        var out: [String: [SearchSection]] = [:]
        for id in bookIDs { out[id] = structureCache[id] }
        return out
    }

    /// Structure read elsewhere (ParallelText), kept as if read here.
    func remember(_ read: [String: [SearchSection]]) {
        for (id, units) in read { structureCache[id] = units }
    }

    /// The structure of each of `bookIDs` as the focus reads it ([] for a book without any).
    static func structures(_ bookIDs: [String], library: Library) throws -> [String: [SearchSection]] {
        let rows = try library.sections(bookIDs: bookIDs)
        var out: [String: [SearchSection]] = [:]
        for id in bookIDs {
            // Rows come in order, a parent before its units: each unit's nearest dates
            // (its own, else its parent's) are known when its units come. A day without its
            // year takes the year of the unit around it (a diary's month).
            var nearest: [Int: (from: String, to: String)] = [:]
            out[id] = (rows[id] ?? []).compactMap { row in
                let around = row.parent.flatMap { nearest[$0] }
                if let from = row.dateFrom { nearest[row.ord] = (from, row.dateTo ?? from) } else if let around { nearest[row.ord] = around }
                return searchSection(row, around: around)
            }
        }
        return out
    }

    /// A section as the focus reads it; nil when it covers no chunk. `around`: the dates of
    /// the nearest dated unit around it, which give a year to a day written without one.
    static func searchSection(_ row: SectionRow, around: (from: String, to: String)? = nil) -> SearchSection? {
        guard let first = row.firstChunk, let last = row.lastChunk, last >= first else { return nil }
        let from = row.dateFrom.map { BookOutline.withYear($0, around: around) }
        let to = row.dateTo.map { BookOutline.withYear($0, around: around, end: true) }
        var unit = SearchSection(bookID: row.bookID, ord: row.ord, parent: row.parent, kind: row.kind, number: row.number,
                                 title: row.title, path: row.path, dateFrom: BookDate(from), dateTo: BookDate(to),
                                 voice: row.voice, place: row.place, chunks: first...last)
        unit.dateText = (from, to)
        return unit
    }

    /// The vector list inside the focus: each chunk's best window, best first, `depth` of them.
    func focusVectorHits(_ focus: Focus, query: [Float], scope: SearchScope?, depth: Int, small: Bool) throws -> [ChunkHit] {
        var scores = [Float](repeating: 0, count: 64)
        var best: [(hit: ChunkHit, similarity: Float)] = []
        for range in focus.searched(large: !small) {
            let limit = lastPage(range.bookID, scope)
            try query.withUnsafeBufferPointer { q in
                try library.forEachWindows(bookID: range.bookID, chunks: range.chunks, lastPage: limit) { ref, index, codes in
                    guard let top = Self.bestWindow(codes, query: q, scores: &scores) else { return }
                    best.append((ChunkHit(ref: ref, bookID: range.bookID, index: index, score: Double(1 - top)), top))
                }
            }
        }
        best.sort { $0.similarity != $1.similarity ? $0.similarity > $1.similarity : $0.hit.ref < $1.hit.ref }
        return best.prefix(depth).map(\.hit)
    }

    /// The full-text list inside the focus, scored as the whole scope's list is.
    /// `scored`: `concepts` as scoredConcepts scores them, when the full-text half did that already.
    func focusTextHits(_ focus: Focus, concepts: [Concept], scored: ScoredConcepts?, scope: SearchScope?, depth: Int, small: Bool) throws -> [ChunkHit] {
        let (pruned, rows) = try scored ?? Self.scoredConcepts(library, concepts, scope: scope, commonFraction: commonFraction, bookShare: bookIDFShare)
        guard let (expression, spec) = QueryConcepts.match(pruned) else { return [] }
        let plain = rows == nil && pruned.allSatisfy { $0.members.count == 1 }
        let searched = focus.searched(large: !small)
        var hits: [ChunkHit] = []
        if searched.count > 1 {
            // One query for all: FTS5's statistics counted once, not once a range.
            hits = try library.fullTextCandidates(match: expression, concepts: plain ? nil : spec, rows: rows,
                                                  ranges: searched.map { ($0.bookID, $0.chunks, lastPage($0.bookID, scope)) }, limit: depth)
        } else if let range = searched.first {
            hits = try library.fullTextCandidates(match: expression, concepts: plain ? nil : spec, rows: rows, bookID: range.bookID,
                                                  chunks: range.chunks, lastPage: lastPage(range.bookID, scope), limit: depth)
        }
        hits.sort { $0.score != $1.score ? $0.score < $1.score : $0.ref < $1.ref }
        return Array(hits.prefix(depth))
    }

    /// The page a chunk of `bookID` may end on in `scope` (nil: any).
    func lastPage(_ bookID: String, _ scope: SearchScope?) -> Int? {
        scope?.books.first(where: { $0.id == bookID })?.lastPage
    }

    /// The phrases a reader quotes word for word, as FTS5 phrase text: the quoted
    /// runs, else the whole question when it is a line of four words or more.
    static func quotedPhrases(_ text: String, references: QueryReferences) -> [String] {
        var phrases = references.phrases
        let words = QueryText.words(text).filter { !$0.cjk }
        if phrases.isEmpty && words.count >= 4 && words.count <= 40 { phrases = [words.map(\.text).joined(separator: " ")] }
        return phrases.map { QueryText.words($0).map(\.text).joined(separator: " ") }.filter { !$0.isEmpty }
    }

    /// `phrases` without those that are a section's title in the searched books
    /// (StructureFocus.titled): a reader who quotes "The Pequod Meets the Virgin"
    /// names a chapter, not a line, and the chunk holding its heading is no answer.
    func phrasesNamingNoSection(_ phrases: [String], scope: SearchScope?) throws -> [String] {
        let books = scope?.books.map(\.id) ?? readyAtScope
        guard !phrases.isEmpty, books.count <= Self.structureBookLimit else { return phrases }
        let read = try structures(books)
        let units = books.map { read[$0] ?? [] }
        return phrases.filter { phrase in units.allSatisfy { StructureFocus.titled(phrase, in: $0).isEmpty } }
    }

    /// The chunks holding any of `phrases` (quotedPhrases), at most 10 a phrase.
    static func phraseHits(_ library: Library, _ phrases: [String], scope: SearchScope?) throws -> Set<ChunkRef> {
        var found = Set<ChunkRef>()
        for phrase in phrases {
            // Its words that are not stop words, asked for together first (phraseChunks).
            let telling = phrase.split(separator: " ").map(String.init).filter { !QueryText.stopwords.contains($0.lowercased()) }
            found.formUnion(try library.phraseChunks(phrase, in: scope, limit: 10, containing: telling))
        }
        return found
    }

    /// `extra` hits not already in `list`, appended after it (their ranks follow the list's).
    static func appending(_ extra: [ChunkHit], to list: [ChunkHit]) -> [ChunkHit] {
        var seen = Set(list.map(\.ref))
        return list + extra.filter { seen.insert($0.ref).inserted }
    }
}
