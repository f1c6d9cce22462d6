// Query preprocessing for full-text search and snippet marking.
//
// A user query becomes a list of terms:
//  - words (runs of letters and digits) are lowercased; English stopwords are
//    dropped (unless the query has nothing else); a light suffix stripper turns
//    "observing" into the prefix "observ*", so observe/observed/observation match;
//  - runs of CJK characters become overlapping bigrams ("福尔摩斯" -> 福尔 尔摩 摩斯),
//    the same segmentation IBStore.FullText applies to the indexed text, so an
//    unsegmented Chinese query finds passages that share most of its bigrams.
// The FTS5 expression ORs the terms and lets BM25 rank the chunks: a chunk with
// more (and rarer) query terms ranks higher, and a question phrased with a
// word or two the passage does not use still finds it.
import IBCore
import IBStore

public struct QueryTerm: Sendable, Equatable, Hashable {
    /// Lowercased term (a stem when `prefix`), or a CJK bigram / single character.
    public var text: String
    /// Matches any word starting with `text`.
    public var prefix: Bool
    public var isCJK: Bool
}

public enum QueryText {
    /// Common English function words and question words; they carry no topic.
    static let stopwords: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
        "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
        "did", "do", "does", "doing", "done", "down", "during", "each", "either", "else", "ever", "every",
        "few", "for", "from", "further", "get", "gets", "got", "had", "has", "have", "having", "he", "her", "here",
        "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
        "just", "me", "might", "more", "most", "much", "must", "my", "myself", "no", "nor", "not", "now", "of",
        "off", "on", "once", "one", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own",
        "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
        "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until",
        "up", "upon", "us", "very", "was", "we", "were", "what", "whatever", "when", "where", "whether", "which",
        "while", "who", "whom", "whose", "why", "will", "with", "would", "you", "your", "yours", "yourself",
        "yourselves", "s", "t", "d", "ll", "re", "ve", "m", "don", "doesn", "didn", "isn", "wasn", "aren",
        "someone", "something", "somebody", "anyone", "anything", "thing", "things", "kind", "way",
        "say", "says", "said", "tell", "tells", "told", "describe", "described", "mean", "means", "called",
        "according", "many", "like", "make", "makes", "made",
        // How readers frame a half-remembered passage ("the part where...", "the
        // scene in which...", "in the chapter on..."): about the asking, not the book.
        "part", "bit", "scene", "passage", "chapter", "moment", "remember", "happens", "happened",
    ]

    /// Suffixes removed (longest first) when at least four letters remain.
    static let suffixes = ["ational", "ations", "ingly", "ation", "ments", "ness", "ings", "edly", "ment",
                           "ing", "ies", "ied", "ers", "est", "ed", "er", "es", "ly", "s", "e"]

    /// Runs of letters/digits (non-CJK) and runs of CJK characters, in order.
    static func words(_ text: String) -> [(text: String, cjk: Bool)] {
        var out: [(String, Bool)] = []
        var current = String.UnicodeScalarView()
        var currentCJK = false
        func flush() {
            if !current.isEmpty { out.append((String(current), currentCJK)); current = String.UnicodeScalarView() }
        }
        for s in text.unicodeScalars {
            let cjk = TextClasses.isCJK(s.value)
            if cjk || TextClasses.isWordScalar(s) {
                if !current.isEmpty && cjk != currentCJK { flush() }
                currentCJK = cjk
                current.append(s)
            } else {
                flush()
            }
        }
        flush()
        return out
    }

    /// A light English stemmer: strips one suffix, keeping at least four letters.
    public static func stem(_ word: String) -> String {
        let scalars = Array(word.unicodeScalars)
        guard scalars.count >= 5, scalars.allSatisfy({ $0.isASCII }) else { return word }
        for suffix in suffixes {
            let n = suffix.unicodeScalars.count
            if scalars.count - n >= 4 && word.hasSuffix(suffix) {
                return String(String.UnicodeScalarView(scalars[0..<(scalars.count - n)]))
            }
        }
        return word
    }

    /// The terms of a query (deduplicated, in order).
    public static func terms(_ query: String) -> [QueryTerm] {
        termsWithWords(query).map(\.term)
    }

    /// The terms of a query, each with the lowercased word it was stemmed from
    /// (nil for CJK bigrams): the thesaurus looks up the word, not its stem.
    public static func termsWithWords(_ query: String) -> [(term: QueryTerm, word: String?)] {
        var plain: [String] = []
        var cjk: [QueryTerm] = []
        for (word, isCJK) in words(query) {
            if isCJK {
                let chars = Array(word.unicodeScalars)
                if chars.count == 1 {
                    cjk.append(QueryTerm(text: word, prefix: true, isCJK: true))
                } else {
                    for i in 0..<(chars.count - 1) {
                        var pair = String.UnicodeScalarView(); pair.append(chars[i]); pair.append(chars[i + 1])
                        cjk.append(QueryTerm(text: String(pair), prefix: false, isCJK: true))
                    }
                }
            } else {
                plain.append(word.lowercased())
            }
        }
        var kept = plain.filter { !stopwords.contains($0) && ($0.unicodeScalars.count > 1 || $0.first?.isNumber == true) }
        if kept.isEmpty && cjk.isEmpty { kept = plain }
        var out: [(term: QueryTerm, word: String?)] = []
        var seen = Set<QueryTerm>()
        for word in kept {
            let stemmed = stem(word)
            let term = QueryTerm(text: stemmed, prefix: stemmed != word, isCJK: false)
            if seen.insert(term).inserted { out.append((term, word)) }
        }
        for term in cjk where seen.insert(term).inserted { out.append((term, nil)) }
        return out
    }

    /// The words a query capitalizes inside a sentence ("after Mina, coming out"),
    /// lowercased: names, whose thesaurus entries are other senses (mina: myna
    /// bird; Lucy: a fossil). A sentence's first word may be any word, so it is not one.
    public static func names(_ query: String) -> Set<String> {
        var out = Set<String>()
        var sentenceStart = true
        var word = ""
        func flush() {
            if let first = word.unicodeScalars.first, !sentenceStart,
               first.properties.isUppercase { out.insert(word.lowercased()) }
            if !word.isEmpty { sentenceStart = false }
            word = ""
        }
        for s in query.unicodeScalars {
            if TextClasses.isWordScalar(s) && !TextClasses.isCJK(s.value) {
                word.unicodeScalars.append(s)
            } else {
                flush()
                if ".?!".unicodeScalars.contains(s) { sentenceStart = true }
            }
        }
        flush()
        return out
    }

    /// The FTS5 MATCH expression: the terms ORed, each quoted (so no query text
    /// is FTS5 syntax), prefix terms with `*`. nil when the query has no terms.
    public static func matchExpression(_ terms: [QueryTerm]) -> String? {
        guard !terms.isEmpty else { return nil }
        return terms.map { term in
            let quoted = FullText.quoted(term.text)
            return term.prefix ? quoted + "*" : quoted
        }.joined(separator: " OR ")
    }
}
