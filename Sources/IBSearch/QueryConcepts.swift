// QueryConcepts: a query's full-text terms grouped into concepts, each the
// query's own term and its synonyms from the thesaurus.
//
// A paraphrased question shares few words with its passage ("a job offer that
// requires the woman to sacrifice her long tresses" / "cut your hair quite
// short"). Each query word becomes a concept: the word (weight 1) and its
// WordNet synonyms and broader words (weight synonymWeight); two query words
// that form a WordNet entry ("holy person") add a concept of their own (saint).
// The FTS5 query ORs every member, and the SQL function ib_concepts (see
// Sources/CIBRank/ib_rank.c) ranks a chunk by the sum over concepts of the best
// weighted BM25 term, so a word and two of its synonyms count once.
//
// On the evaluation sets (simulated before it was built, then measured in the
// tool): text recall@5 0.59 -> 0.61 and 0.50 -> 0.60 (held out), hybrid
// 0.864 -> 0.881 and 0.90 -> 0.93.
import IBCore

public struct ConceptMember: Sendable, Equatable {
    public var term: QueryTerm
    public var weight: Double
    /// Chunks holding the term, when known (from the FTS5 vocabulary), or the
    /// fractional count that gives ib_concepts a blended IDF (BookRarity).
    public var documents: Double? = nil
    public init(term: QueryTerm, weight: Double, documents: Double? = nil) {
        self.term = term; self.weight = weight; self.documents = documents
    }
}

public struct Concept: Sendable, Equatable {
    /// The query's term first, then its synonyms.
    public var members: [ConceptMember]
    public var isCJK: Bool { members.first?.term.isCJK ?? false }
}

public enum QueryConcepts {
    /// A synonym's share of its word's weight (0.5, 0.7 and 1 were tried; 0.7 was best).
    public static let synonymWeight = 0.7

    /// The query's concepts: one per term (CJK bigrams alone), then one per pair of
    /// adjacent words that the thesaurus knows as a phrase.
    public static func build(_ query: String, thesaurus: Thesaurus?) -> [Concept] {
        var concepts: [Concept] = []
        let names = QueryText.names(query)
        for (term, word) in QueryText.termsWithWords(query) {
            var concept = Concept(members: [ConceptMember(term: term, weight: 1)])
            if let word, let thesaurus, !names.contains(word) { add(thesaurus.synonyms(of: word), to: &concept) }
            concepts.append(concept)
        }
        guard let thesaurus else { return concepts }
        let words = QueryText.words(query).filter { !$0.cjk }.map { $0.text.lowercased() }
        for i in words.indices.dropLast() {
            let phrase = words[i] + " " + words[i + 1]
            let synonyms = thesaurus.synonyms(of: phrase)
            guard !synonyms.isEmpty else { continue }
            var concept = Concept(members: [ConceptMember(term: QueryTerm(text: phrase, prefix: false, isCJK: false), weight: 1)])
            add(synonyms, to: &concept)
            if !concepts.contains(concept) { concepts.append(concept) }
        }
        return concepts
    }

    /// Adds synonyms as members: single words stemmed like query words (prefix
    /// terms), phrases matched as phrases; none twice.
    static func add(_ synonyms: [String], to concept: inout Concept) {
        for synonym in synonyms {
            let term: QueryTerm
            if synonym.contains(" ") {
                term = QueryTerm(text: synonym, prefix: false, isCJK: false)
            } else {
                guard synonym.unicodeScalars.count > 1, !QueryText.stopwords.contains(synonym) else { continue }
                let stemmed = QueryText.stem(synonym)
                term = QueryTerm(text: stemmed, prefix: stemmed != synonym, isCJK: false)
            }
            if !concept.members.contains(where: { $0.term == term }) {
                concept.members.append(ConceptMember(term: term, weight: synonymWeight))
            }
        }
    }

    /// Every member's term, in order (for snippets and the MATCH expression).
    public static func terms(_ concepts: [Concept]) -> [QueryTerm] {
        concepts.flatMap { $0.members.map(\.term) }
    }

    /// The FTS5 MATCH expression (every member ORed) and ib_concepts' second
    /// argument ("concept:weight[:documents]" per phrase, in the expression's
    /// order); nil when there is nothing to match.
    public static func match(_ concepts: [Concept]) -> (expression: String, spec: String)? {
        guard let expression = QueryText.matchExpression(terms(concepts)) else { return nil }
        var spec: [String] = []
        for (index, concept) in concepts.enumerated() {
            for member in concept.members {
                spec.append("\(index):\(member.weight)" + (member.documents.map { ":\($0)" } ?? ""))
            }
        }
        return (expression, spec.joined(separator: " "))
    }
}
