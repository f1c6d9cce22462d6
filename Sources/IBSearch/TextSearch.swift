// The full-text half of a search: the query's concepts (words, stems,
// synonyms) pruned of the too common, as an FTS5 query over IBStore's
// full-text candidates, ranked by BM25 (over concepts when there are synonyms).
import IBCore
import IBStore

/// A query's concepts as its full-text search scores them (SearchEngine.scoredConcepts):
/// the too common pruned, each member's document count set; `rows`, the chunk count
/// its IDF counts against (nil: the library's).
typealias ScoredConcepts = (concepts: [Concept], rows: Int?)

extension SearchEngine {
    /// How many chunks hold each term (IBStore's documentFrequencies): a prefix
    /// term counts the words it starts (an upper bound), a phrase its rarest word.
    static func documentFrequencies(_ library: Library, _ terms: [QueryTerm]) throws -> [Int] {
        var words: [(word: String, prefix: Bool)] = []
        var spans: [Range<Int>] = []
        for term in terms {
            let start = words.count
            let parts = term.text.split(separator: " ").map(String.init)
            if parts.count > 1 { words += parts.map { ($0, false) } } else { words.append((term.text, term.prefix)) }
            spans.append(start..<words.count)
        }
        let counts = try library.documentFrequencies(words)
        return spans.map { counts[$0].min() ?? 0 }
    }

    /// Drops concepts whose own term is found in more than `commonFraction` of the
    /// chunks while rarer ones remain, and synonyms that common: BM25 gives them
    /// almost no weight (FTS5 clamps a term's IDF near 0 once it is in half of the
    /// documents), but scoring their postings is what costs time in a large library.
    static func pruneCommon(_ library: Library, _ concepts: [Concept], commonFraction: Double) throws -> [Concept] {
        let total = try library.chunkTotal()
        let cap = max(2_000, Int(Double(total) * commonFraction))
        // Nothing to prune in a small library without synonyms: skip the lookups.
        if total <= cap && concepts.allSatisfy({ $0.members.count == 1 }) { return concepts }
        let counts = try documentFrequencies(library, QueryConcepts.terms(concepts))
        var next = 0
        var kept: [Concept] = []
        var withCommonWords: [Concept] = []
        for concept in concepts {
            var members: [ConceptMember] = []
            for (i, var member) in concept.members.enumerated() {
                let n = counts[next + i]
                member.documents = Double(n)
                // The query's own term stays when the vocabulary does not know it (the
                // tokenizer may fold it differently); a synonym the library lacks goes.
                if i == 0 ? (total <= cap || n <= cap) : (n > 0 && (total <= cap || n <= cap)) { members.append(member) }
            }
            next += concept.members.count
            if members.first?.term == concept.members.first?.term {
                kept.append(Concept(members: members))
            } else {
                withCommonWords.append(Concept(members: [concept.members[0]] + members))
            }
        }
        // A query of common words only keeps them.
        return kept.isEmpty ? withCommonWords : kept
    }

    func textSearch(_ text: String, _ concepts: [Concept], k: Int, scope: SearchScope?) throws -> ([ChunkHit], [QueryTerm]) {
        let all = Self.expanded(concepts, words: Self.plainWords(text), expansion: expansion)
        mark("expansion (\(all.count - concepts.count) terms)")
        return (try Self.textSearch(library, all, k: k, scope: scope, commonFraction: commonFraction, bookShare: bookIDFShare), QueryConcepts.terms(all))
    }

    /// The lowercased non-CJK words of a query.
    static func plainWords(_ text: String) -> [String] {
        QueryText.words(text).filter { !$0.cjk }.map { $0.text.lowercased() }
    }

    /// `concepts` plus the vocabulary neighbours of the query's words (experimental,
    /// IB_SEARCH_EXPAND=1), stemmed the same way, each a concept of its own.
    static func expanded(_ concepts: [Concept], words: [String], expansion: QueryExpansion?) -> [Concept] {
        guard let expansion, !words.isEmpty else { return concepts }
        var out = concepts
        var terms = QueryConcepts.terms(concepts)
        for word in expansion.expand(words) {
            let stemmed = QueryText.stem(word)
            let term = QueryTerm(text: stemmed, prefix: stemmed != word, isCJK: false)
            if !terms.contains(where: { $0.text == term.text || (($0.prefix && term.text.hasPrefix($0.text))) }) {
                terms.append(term)
                out.append(Concept(members: [ConceptMember(term: term, weight: 1)]))
            }
        }
        return out
    }

    /// The best `k` chunks for the concepts, score lower-is-better like bm25():
    /// bm25() when every concept is a single term, else -ib_concepts() (BM25 over
    /// concepts, see QueryConcepts). `bookShare`: how much of each word's rarity
    /// is its rarity in the scope's books rather than the library's (BookRarity).
    static func textSearch(_ library: Library, _ concepts: [Concept], k: Int, scope: SearchScope?, commonFraction: Double,
                           bookShare: Double = 0) throws -> [ChunkHit] {
        try textSearch(library, scored: try scoredConcepts(library, concepts, scope: scope, commonFraction: commonFraction, bookShare: bookShare),
                       k: k, scope: scope)
    }

    /// textSearch for concepts already scored (scoredConcepts).
    static func textSearch(_ library: Library, scored: ScoredConcepts, k: Int, scope: SearchScope?) throws -> [ChunkHit] {
        let (concepts, rows) = scored
        guard let (expression, spec) = QueryConcepts.match(concepts) else { return [] }
        let plain = rows == nil && concepts.allSatisfy { $0.members.count == 1 }
        // Over the whole library, ranking takes a plain word's count from the vocabulary.
        let documents = plain && scope == nil
            ? try library.exactDocumentCounts(QueryConcepts.terms(concepts).map { ($0.text, $0.prefix) }) : nil
        let phrases = QueryConcepts.terms(concepts).compactMap { QueryText.matchExpression([$0]) }
        return try library.fullTextCandidates(match: expression, concepts: plain ? nil : spec, rows: rows, in: scope, limit: k,
                                              documents: documents, phrases: phrases)
    }

    /// The concepts pruned of the too common (pruneCommon) and, in a scope of a
    /// few books when `bookShare` > 0, each member's documents set so that its IDF
    /// over the scope's chunk count is the blend of its rarity in those books and
    /// in the library (BookRarity); nil rows: the library's statistics.
    static func scoredConcepts(_ library: Library, _ concepts: [Concept], scope: SearchScope?,
                               commonFraction: Double, bookShare: Double) throws -> ScoredConcepts {
        var pruned = try pruneCommon(library, concepts, commonFraction: commonFraction)
        guard bookShare > 0, let statistics = try library.scopeStatistics(scope) else { return (pruned, nil) }
        let terms = QueryConcepts.terms(pruned)
        let inBooks = try library.documentFrequencies(phrases: terms.compactMap { QueryText.matchExpression([$0]) }, in: statistics)
        // The library's counts: pruneCommon has them on every member unless it had nothing to prune.
        let known = pruned.flatMap { $0.members.compactMap(\.documents) }
        let inLibrary = bookShare >= 1 ? inBooks
            : known.count == terms.count ? known.map { Int($0) } : try documentFrequencies(library, terms)
        let rarity = BookRarity(bookShare: bookShare, bookRows: statistics.rows, libraryRows: try library.chunkTotal())
        var next = 0
        for c in pruned.indices {
            for m in pruned[c].members.indices {
                pruned[c].members[m].documents = rarity.documents(inBooks: inBooks[next], inLibrary: inLibrary[next])
                next += 1
            }
        }
        return (pruned, statistics.rows)
    }
}
