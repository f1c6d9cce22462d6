// Retrieval for the CLI: IBSearch's hybrid search when the library has it,
// full-text search over the library otherwise; the sentence encoder for the
// extractive answer.
import IBCore
import IBStore
import IBModel
import IBSearch

/// IBSearch's hybrid search (vectors + BM25), one book, bounded by the page
/// inside both scans.
public final class SearchRetriever: Retriever {
    public let engine: SearchEngine
    public var log: ((String) -> Void)?
    private var warned = 0
    /// A provider's rewrites and ranking (see IBSearch's SearchAssist); none by default.
    public var assistant: SearchAssistant?
    public var assist = AssistOptions()
    /// A provider that failed once is not asked again in this run (one warning).
    private var assistFailed = false

    public init(engine: SearchEngine) { self.engine = engine }

    public func search(_ query: String, bookID: String, maxPage: Int?, k: Int) throws -> [Passage] {
        let request = SearchQuery(text: query, books: [bookID], pageLimit: maxPage.map { .page($0) } ?? PageLimit.none,
                                  k: k, mode: .hybrid)
        let results = try engine.search(request, assistant: assistFailed ? nil : assistant, options: assist) { warning in
            assistFailed = true
            printError("ib-ask: \(warning)")
        }
        while warned < engine.warnings.count { log?(engine.warnings[warned]); warned += 1 }
        return results.map {
            Passage(bookID: $0.bookID, chunkIndex: $0.chunkIndex, startPage: $0.startPage, endPage: $0.endPage,
                    text: $0.text, score: $0.score, section: $0.section)
        }
    }
}

/// BM25 over chunks_fts, bounded by the reader's page in the query itself.
public final class FullTextRetriever: Retriever {
    let library: Library
    public init(db: Database) { library = Library(db: db) }

    public func search(_ query: String, bookID: String, maxPage: Int?, k: Int) throws -> [Passage] {
        var words: [String] = []
        var current = ""
        for c in query {
            if c.isLetter || c.isNumber { current.append(c) } else if !current.isEmpty { words.append(current); current = "" }
        }
        if !current.isEmpty { words.append(current) }
        let terms = words.filter { $0.count > 2 || $0.unicodeScalars.contains { TextClasses.isCJK($0.value) } }
            .map { FullText.matchExpression($0) }.filter { !$0.isEmpty }
        guard !terms.isEmpty else { return [] }
        return try library.fullTextPassages(match: terms.joined(separator: " OR "), bookID: bookID, lastPage: maxPage, limit: k).map {
            Passage(bookID: $0.chunk.bookID, chunkIndex: $0.chunk.index, startPage: $0.chunk.startPage, endPage: $0.chunk.endPage,
                    text: $0.chunk.text, score: -$0.hit.score)
        }
    }
}

/// IBModel's sentence encoder, with unit-length vectors.
public final class ModelEmbedder: SentenceEmbedder {
    let encoder: SentenceEncoder
    public var modelName: String { encoder.modelID }
    public init(directory: String) throws {
        encoder = try SentenceEncoder(directory: directory)
    }
    public init(encoder: SentenceEncoder) { self.encoder = encoder }
    public func embed(_ texts: [String]) throws -> [[Float]] {
        encoder.embed(texts).map { v in
            var norm: Float = 0
            for x in v { norm += x * x }
            norm = norm.squareRoot()
            return norm > 0 ? v.map { $0 / norm } : v
        }
    }
}
