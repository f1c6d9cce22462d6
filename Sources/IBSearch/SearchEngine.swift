// IBSearch: hybrid search over the library that never spoils a book.
//
// The library API (used by ib-search, and by ib-ask in-process):
//
//     let library = try Library.open(path: nil, create: false)
//     let engine = SearchEngine(library: library)              // loads the model on first vector search
//     // or SearchEngine(library: library, encoder: try SentenceEncoder(directory: Config.modelDirectory()))
//     let results = try engine.search(SearchQuery(text: "who bent the poker",
//                                                 books: nil,               // nil: every ready book; or [book ids]
//                                                 pageLimit: .readingPosition, // or .page(40), .none
//                                                 k: 5, mode: .hybrid))     // .vector, .text
//     for r in results { print(r.rank, r.title, r.startPage, r.endPage, r.startLabel ?? "-", r.snippet, r.text) }
//
// Modes:
//  - vector: the query is embedded in-process with the library's model
//    (IBModel.SentenceEncoder, all-MiniLM-L6-v2 by default) and ibvec_knn returns
//    the nearest chunks by cosine distance, then window vectors (a chunk's
//    paragraphs and 32-token runs, from ib-embed) re-score them: a chunk is as
//    close as its best window. In a scope of up to windowScanLimit chunks every
//    window is scanned, so a chunk whose own vector ranks far down still comes
//    up when one paragraph of it matches;
//  - text: SQLite FTS5 BM25 over chunks_fts (CJK indexed as bigrams, see
//    QueryText for the query side: stopwords dropped, light stemming to
//    prefix terms, terms ORed); in a small scope each word also brings its
//    WordNet synonyms and the chunks are ranked by BM25 over concepts (see
//    QueryConcepts and Thesaurus);
//  - hybrid (default): both lists, `candidates` deep, fused by score: each
//    list's scores (cosine; -bm25) standardized over the list, the vector's
//    weighted 1.3, a chunk missing from a list taking that list's lowest (see
//    Standardized). --rrf-k K fuses by reciprocal rank instead.
//
// No spoilers: each book's page limit is applied INSIDE both scans. For vectors
// it is ibvec_knn's scope argument {"book_id": max_end_page or null}; for text it
// is `end_page <= limit` in the WHERE clause of the FTS query, before ORDER BY
// and LIMIT. A chunk is visible only when it ends on or before the limit, so a
// chunk spanning pages 5-6 is hidden at page 5. `.readingPosition` uses each
// book's current_page (0 = no position set: the whole book is searched);
// `.page(N)` applies N to every searched book; `.none` lifts the limit.
//
// Results carry the chunk text, book id/title/authors, start/end page and the
// printed page labels (pages.label) when the book has them, a snippet with
// matched terms marked «», and for --explain the rank in each list.
import CKernels
import IBCore
import IBModel
import IBStore
#if canImport(Glibc)
import Glibc
#endif

public enum SearchMode: String, Sendable, CaseIterable {
    case hybrid, vector, text
}

public enum PageLimit: Sendable, Equatable {
    /// Each book's reading position (books.current_page; 0 means none set).
    case readingPosition
    /// This page for every searched book.
    case page(Int)
    /// The whole of every book.
    case none
}

public struct SearchQuery: Sendable {
    public var text: String
    /// Book ids to search; nil = every ready book in the library.
    public var books: [String]?
    public var pageLimit: PageLimit
    public var k: Int
    public var mode: SearchMode
    /// How deep each list goes before fusion (hybrid); at least k.
    public var candidates: Int
    public init(text: String, books: [String]? = nil, pageLimit: PageLimit = .readingPosition, k: Int = 10,
                mode: SearchMode = .hybrid, candidates: Int = SearchEngine.defaultCandidates) {
        self.text = text; self.books = books; self.pageLimit = pageLimit; self.k = k; self.mode = mode
        self.candidates = candidates
    }
}

public struct SearchResult: Sendable, Equatable {
    public var rank: Int
    /// Hybrid: the fused RRF score; vector: cosine similarity (1 - distance); text: -bm25 (higher is better).
    public var score: Double
    public var bookID: String
    public var title: String
    public var authors: [String]
    public var chunkIndex: Int
    public var chunkID: String { "\(bookID):\(chunkIndex)" }
    public var startPage: Int
    public var endPage: Int
    /// Printed page labels, when the pages table has them.
    public var startLabel: String?
    public var endLabel: String?
    public var text: String
    /// A window of the text with matched terms marked «».
    public var snippet: String
    /// 1-based rank in the vector list / text list (nil when not in it).
    public var vectorRank: Int?
    public var textRank: Int?
    public var vectorDistance: Double?
    public var bm25: Double?
    public var fusedScore: Double?
}

/// A searched book: what results need, read in one query.
public struct SearchBook: Sendable, Equatable {
    public var id: String
    public var title: String
    public var authors: [String]
    /// The reading position; 0 when none is set.
    public var currentPage: Int
    public var pageCount: Int
}

public final class SearchEngine {
    public static let defaultCandidates = 40
    /// Hybrid fusion: nil (the default) fuses standardized scores (see Standardized);
    /// a number fuses by reciprocal rank with this k (--rrf-k, for comparisons).
    public var rrfK: Double? = nil
    /// The vector list's weight against the text list's (1) in score fusion.
    public var vectorWeight: Double = 1.3
    /// Text search ignores a query term found in more than this fraction of all chunks (when rarer terms remain).
    public var commonFraction: Double = 0.1
    /// Hybrid searches run the full-text half on a second connection and thread.
    /// Experimental, off by default (IB_SEARCH_EXPAND=1 turns it on): full-text queries add
    /// related words from the model's vocabulary (QueryExpansion.swift). On the evaluation set it
    /// raised text recall@5 from 0.59 to 0.63 but not hybrid (0.71 -> 0.70), and costs ~20-40 ms.
    public var expandQueries = Config.environment("IB_SEARCH_EXPAND") == "1"
    private var expansionLoaded = false
    private var expansionModel: QueryExpansion?
    var expansion: QueryExpansion? {
        if !expansionLoaded {
            expansionLoaded = true
            expansionModel = expandQueries ? QueryExpansion(directory: encoder?.directory ?? Config.modelDirectory(flag: modelDirectory)) : nil
        }
        return expansionModel
    }
    /// Synonyms for the full-text half (Thesaurus.standard(): scripts/build-thesaurus's
    /// file; none when it is missing or IB_SEARCH_SYNONYMS=0). Loaded on first use.
    public lazy var thesaurus: Thesaurus? = Thesaurus.standard()
    /// Re-score vector candidates by their window vectors (IB_SEARCH_WINDOWS=0 turns it off, for comparisons).
    public var rescoreByWindows = Config.environment("IB_SEARCH_WINDOWS") != "0"
    /// A scope of at most this many chunks (a book or a few) has every window
    /// vector scanned; a larger one re-scores the candidates' windows only. On the
    /// evaluation set the scan finds passages whose chunk vector ranks far below
    /// the candidates (vector recall@5 0.75 -> 0.86); the scan costs ~2 ms per
    /// 1,000 chunks (two thirds reading rows, one third arithmetic).
    /// IB_SEARCH_WINDOW_SCAN=N sets it (0: never scan).
    public var windowScanLimit = Int(Config.environment("IB_SEARCH_WINDOW_SCAN") ?? "").map { max(0, $0) } ?? 5_000
    /// A scope of at most this many chunks has its full-text half search synonyms
    /// too. Separate from the scan's limit because they cost far less: on the
    /// long-book library (8,600 chunks) synonyms add ~0-2 ms where the scan adds
    /// ~10, and they are what lifted whole-library text recall to one book's
    /// (0.58 -> 0.62 on the tuning part). IB_SEARCH_SYNONYM_SCOPE=N sets it.
    public var synonymScopeLimit = Int(Config.environment("IB_SEARCH_SYNONYM_SCOPE") ?? "").map { max(0, $0) } ?? 20_000
    /// IB_SEARCH_PARALLEL=0 turns it off (for benchmarks).
    public var parallel = Config.environment("IB_SEARCH_PARALLEL") != "0"

    public let library: Library
    private var encoder: SentenceEncoder?
    private let modelDirectory: String?
    /// Notes for the user (e.g. the library's model is not available: text search only). Printed by ib-search on stderr.
    public private(set) var warnings: [String] = []
    func warn(_ message: String) { if !warnings.contains(message) { warnings.append(message) } }

    private var bookCache: [String: SearchBook] = [:]

    /// `encoder`: the model to embed queries; when nil it is loaded from
    /// `modelDirectory` (or Config.modelDirectory()) on the first vector search.
    public init(library: Library, encoder: SentenceEncoder? = nil, modelDirectory: String? = nil) {
        self.library = library
        self.encoder = encoder
        self.modelDirectory = modelDirectory
    }

    // MARK: books in scope

    /// Ready books, with their reading positions as they are now (positions are
    /// never cached: an engine that lives long, as in ib-ask, sees every set-page).
    /// Two queries whatever the number of books.
    public func readyBooks() throws -> [SearchBook] {
        var authors: [String: [String]] = [:]
        for row in try library.db.query("""
            SELECT ba.book_id, a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id
            ORDER BY ba.book_id, ba.position
            """) {
            if let id = row.text("book_id"), let name = row.text("name") { authors[id, default: []].append(name) }
        }
        var out: [SearchBook] = []
        for row in try library.db.query("SELECT id, title, current_page, page_count FROM books WHERE status = 'ready' ORDER BY created_at, title") {
            guard let id = row.text("id") else { continue }
            let book = SearchBook(id: id, title: row.text("title") ?? "", authors: authors[id] ?? [],
                                  currentPage: row.int("current_page") ?? 0, pageCount: row.int("page_count") ?? 0)
            bookCache[id] = book
            out.append(book)
        }
        return out
    }

    func bookInfo(_ id: String) throws -> SearchBook? {
        if let cached = bookCache[id] { return cached }
        _ = try readyBooks()
        return bookCache[id]
    }

    /// The searched books with their page limits (nil = no limit).
    func scope(_ query: SearchQuery) throws -> (limits: [(id: String, limit: Int?)], unrestricted: Bool) {
        let ready = try readyBooks()
        var books = ready
        if let wanted = query.books {
            let set = Set(wanted)
            books = ready.filter { set.contains($0.id) }
        }
        var limits: [(String, Int?)] = []
        for book in books {
            switch query.pageLimit {
            case .none: limits.append((book.id, nil))
            case .page(let n): limits.append((book.id, n))
            case .readingPosition: limits.append((book.id, book.currentPage > 0 ? book.currentPage : nil))
            }
        }
        let totalBooks = try library.db.scalarInt("SELECT count(*) FROM books") ?? 0
        let allBooks = query.books == nil && ready.count == totalBooks
        let unrestricted = allBooks && limits.allSatisfy { $0.1 == nil }
        return (limits, unrestricted)
    }

    static func scopeJSON(_ limits: [(id: String, limit: Int?)]) -> String {
        var o = JSONObject()
        for (id, limit) in limits { o[id] = JSON(limit) }
        return JSON.object(o).serialized
    }

    // MARK: search

    /// IB_SEARCH_TIMING=1: phase times on stderr (for benchmarks).
    let timing = Config.environment("IB_SEARCH_TIMING") != nil
    private var lastMark = Timestamp.monotonic()
    func mark(_ what: String) {
        guard timing else { return }
        let now = Timestamp.monotonic()
        printError("ib-search timing: \(what) \(Int(((now - lastMark) * 1e4).rounded()) / 10) ms")
        lastMark = now
    }

    public func search(_ query: SearchQuery) throws -> [SearchResult] {
        guard query.k > 0 else { return [] }
        mark("start")
        let (limits, unrestricted) = try scope(query)
        mark("scope")
        if limits.isEmpty { return [] }
        let scope: String? = unrestricted ? nil : Self.scopeJSON(limits)
        // A small scope (a book or a few) is searched exhaustively: every window
        // vector scanned, every synonym of the query's words searched. In a large
        // library both would cost more than the 50 ms a search may take.
        let chunks = try library.chunkCount(scope: scope, cap: max(windowScanLimit, synonymScopeLimit) + 1)
        let small = chunks <= windowScanLimit
        let withSynonyms = query.mode != .vector && chunks <= synonymScopeLimit
        let concepts = QueryConcepts.build(query.text, thesaurus: withSynonyms ? thesaurus : nil)
        let depth = max(query.k, query.candidates)

        var vectorHits: [(book: String, index: Int, distance: Double)] = []
        var textHits: [(book: String, index: Int, bm25: Double)] = []
        var mode = query.mode
        var snippetTerms = QueryConcepts.terms(concepts)
        // Hybrid: the full-text search runs on its own read connection and thread
        // while this one embeds the query and scans the vectors.
        var parallelText: TextJob? = nil
        if mode == .hybrid && parallel {
            let job = TextJob(path: library.path, concepts: concepts, words: Self.plainWords(query.text), expansion: expansion,
                              k: depth, scope: scope, commonFraction: commonFraction)
            job.start()
            parallelText = job
        }
        defer { _ = parallelText?.wait() }   // never leave the thread behind (an error in the vector half)
        var queryVector: [Float]? = nil
        if mode != .text {
            if let (hits, vector) = try vectorSearch(query.text, k: depth, scope: scope, required: mode == .vector) {
                vectorHits = hits
                queryVector = vector
                mark("knn")
            } else {
                mode = .text
            }
        }
        if let job = parallelText {
            if let hits = job.wait() {
                textHits = hits
                snippetTerms = QueryConcepts.terms(job.allConcepts)
                mark("fts (parallel)")
            } else {
                (textHits, snippetTerms) = try textSearch(query.text, concepts, k: mode == .text ? query.k : depth, scope: scope)
                mark("fts")
            }
        } else if mode != .vector {
            (textHits, snippetTerms) = try textSearch(query.text, concepts, k: mode == .text ? query.k : depth, scope: scope)
            mark("fts")
        }

        // The vector list re-scored by windows: every window of a small scope, else
        // the windows of both lists' candidates.
        if let queryVector, rescoreByWindows {
            if small {
                vectorHits = try Self.scanWindows(vectorHits, query: queryVector, scope: scope, depth: depth, library: library)
                mark("windows (scan)")
            } else {
                // The text list's candidates are re-scored too (their windows may match
                // better than any chunk vector found), then the list is cut back to its
                // depth, as a scanned one is: a text hit past it counts as not found there.
                vectorHits = try Self.rescoreByWindows(vectorHits, extra: textHits.map { ($0.book, $0.index) },
                                                       query: queryVector, library: library)
                if vectorHits.count > depth { vectorHits.removeLast(vectorHits.count - depth) }
                mark("windows")
            }
        }
        if mode == .vector && vectorHits.count > query.k { vectorHits.removeLast(vectorHits.count - query.k) }

        // Fuse (or take one list as it is).
        struct Candidate { var book: String; var index: Int; var score: Double
            var vRank: Int?; var tRank: Int?; var distance: Double?; var bm25: Double? }
        var byKey: [String: Int] = [:]
        var candidates: [Candidate] = []
        func slot(_ book: String, _ index: Int) -> Int {
            let key = "\(book):\(index)"
            if let i = byKey[key] { return i }
            candidates.append(Candidate(book: book, index: index, score: 0))
            byKey[key] = candidates.count - 1
            return candidates.count - 1
        }
        for (rank, hit) in vectorHits.enumerated() {
            let i = slot(hit.book, hit.index)
            candidates[i].vRank = rank + 1
            candidates[i].distance = hit.distance
        }
        for (rank, hit) in textHits.enumerated() {
            let i = slot(hit.book, hit.index)
            candidates[i].tRank = rank + 1
            candidates[i].bm25 = hit.bm25
        }
        switch mode {
        case .vector:
            for i in candidates.indices { candidates[i].score = 1 - (candidates[i].distance ?? 2) }
        case .text:
            for i in candidates.indices { candidates[i].score = -(candidates[i].bm25 ?? 0) }
        case .hybrid:
            if let rrfK {
                // Reciprocal rank fusion (--rrf-k), the text vote scaled by coverage^2:
                // kept for comparisons.
                for i in candidates.indices {
                    var score = candidates[i].vRank.map { 1 / (rrfK + Double($0)) } ?? 0
                    if let t = candidates[i].tRank {
                        let text = try library.chunk(bookID: candidates[i].book, index: candidates[i].index)?.text ?? ""
                        score += pow(Self.coverage(text, concepts: concepts), 2) / (rrfK + Double(t))
                    }
                    candidates[i].score = score
                }
            } else {
                let fusion = ScoreFusion(vector: vectorHits.map { 1 - $0.distance }, text: textHits.map { -$0.bm25 },
                                         vectorWeight: vectorWeight)
                for i in candidates.indices {
                    var evidence = 1.0
                    if candidates[i].tRank != nil {
                        let text = try library.chunk(bookID: candidates[i].book, index: candidates[i].index)?.text ?? ""
                        let (found, units) = Self.matched(text, concepts: concepts)
                        evidence = ScoreFusion.textEvidence(found: found, of: units)
                    }
                    candidates[i].score = fusion.score(vector: candidates[i].vRank.map { 1 - vectorHits[$0 - 1].distance },
                                                       text: candidates[i].tRank.map { -textHits[$0 - 1].bm25 },
                                                       evidence: evidence)
                }
            }
        }
        // Stable order: score, then the better single rank, then the key.
        candidates.sort { a, b in
            if a.score != b.score { return a.score > b.score }
            let ra = min(a.vRank ?? Int.max, a.tRank ?? Int.max), rb = min(b.vRank ?? Int.max, b.tRank ?? Int.max)
            if ra != rb { return ra < rb }
            return a.book != b.book ? a.book < b.book : a.index < b.index
        }

        var results: [SearchResult] = []
        for c in candidates.prefix(query.k) {
            guard let chunk = try library.chunk(bookID: c.book, index: c.index) else { continue }
            let book = try bookInfo(c.book)
            results.append(SearchResult(
                rank: results.count + 1, score: c.score, bookID: c.book, title: book?.title ?? "",
                authors: book?.authors ?? [], chunkIndex: c.index, startPage: chunk.startPage, endPage: chunk.endPage,
                startLabel: try library.pageLabel(bookID: c.book, page: chunk.startPage),
                endLabel: try library.pageLabel(bookID: c.book, page: chunk.endPage),
                text: chunk.text, snippet: Snippet.make(chunk.text, terms: snippetTerms),
                vectorRank: c.vRank, textRank: c.tRank, vectorDistance: c.distance, bm25: c.bm25,
                fusedScore: mode == .hybrid ? c.score : nil))
        }
        return results
    }

    /// The share of the query found in `text`: each word concept counts one, or
    /// the weight of its first member found (the word itself 1, a synonym less;
    /// words lowercased, stems match as prefixes, phrases as substrings); CJK text
    /// counts per character, a character being found when a bigram holding it is.
    /// A query's bigrams include spurious ones across word boundaries ("侦探检查"
    /// -> 侦探 探检 检查); counting characters keeps those from lowering a passage
    /// that has every word.
    static func coverage(_ text: String, concepts: [Concept]) -> Double {
        let (found, units) = matched(text, concepts: concepts)
        return units > 0 ? found / units : 0
    }

    /// How much of the query `text` holds, as (found, units): the weighted count of
    /// concepts found and their number (CJK: characters; see coverage()).
    static func matched(_ text: String, concepts: [Concept]) -> (found: Double, units: Double) {
        guard !concepts.isEmpty else { return (0, 0) }
        let words = Set(QueryText.words(text).filter { !$0.cjk }.map { $0.text.lowercased() })
        lazy var lowered = text.lowercased()
        func present(_ term: QueryTerm) -> Bool {
            if term.text.contains(" ") { return lowered.contains(term.text) }
            return term.prefix ? words.contains(where: { $0.hasPrefix(term.text) }) : words.contains(term.text)
        }
        var units = 0.0, found = 0.0
        // The previous bigram's second character and whether that bigram was found.
        var previous: (last: Unicode.Scalar, found: Bool)? = nil
        for concept in concepts {
            guard concept.isCJK, let term = concept.members.first?.term else {
                units += 1
                if let member = concept.members.first(where: { present($0.term) }) { found += member.weight }
                previous = nil
                continue
            }
            let chars = Array(term.text.unicodeScalars)
            let hit = text.contains(term.text)
            if chars.count != 2 {
                units += 1
                if hit { found += 1 }
                previous = nil
                continue
            }
            if let p = previous, p.last == chars[0] {
                // The first character was counted with the previous bigram.
                if hit && !p.found { found += 1 }
                units += 1
                if hit { found += 1 }
            } else {
                units += 2
                if hit { found += 2 }
            }
            previous = (chars[1], hit)
        }
        return (found, units)
    }

    // MARK: vector

    /// The query's vector with the library's model; nil (with a warning) when
    /// the library has no vectors or its model is not available here, unless `required`.
    public func queryVector(_ text: String, required: Bool) throws -> [Float]? {
        guard let (model, dim) = try library.embeddingModel() else {
            if required { throw IBError("the library has no vectors yet (embed the chunks with ib-embed); try --mode text") }
            warn("the library has no vectors: text search only")
            return nil
        }
        if encoder == nil {
            let directory = Config.modelDirectory(flag: modelDirectory)
            let folderName = String(directory.split(separator: "/").last ?? "")
            if folderName != model && modelDirectory == nil && Config.environment("IB_MODEL_DIR") == nil {
                // The library was embedded with another model: look for a folder of that name beside the default.
                let candidate = Config.dataDirectory + "/models/" + model
                if FileSystem.isDirectory(candidate) {
                    encoder = try SentenceEncoder(directory: candidate, threads: 1)
                }
            }
            if encoder == nil {
                do {
                    encoder = try SentenceEncoder(directory: directory, threads: 1)
                    mark("model load")
                } catch {
                    if required { throw error }
                    warn("cannot load the model (\(error.message)): text search only")
                    return nil
                }
            }
        }
        guard let encoder else { return nil }
        guard encoder.modelID == model, encoder.dimension == dim else {
            let message = "the library's vectors come from \(model) (\(dim) dimensions), but the model at \(encoder.directory) is \(encoder.modelID) (\(encoder.dimension))"
            if required { throw IBError(message + "; set IB_MODEL_DIR to the library's model") }
            warn(message + ": text search only")
            return nil
        }
        let vector = encoder.embed([text]).first
        mark("embed")
        return vector
    }

    /// Re-scores vector candidates (and the text list's, which may have no vector
    /// rank yet) by window vectors: a chunk's similarity becomes the larger of its
    /// own cosine and its best window's. A 256-token chunk's one vector averages
    /// everything in it, so a question about one sentence or one dictionary entry
    /// matches it weakly; its ~32-token windows match it closely. On the
    /// evaluation set this raised vector recall@5 from 0.51 to about 0.70.
    /// Chunks without windows keep their cosine; text-only candidates without
    /// windows stay out of the vector list. Windows are read by primary key for
    /// these few candidates only, never scanned.
    static func rescoreByWindows(_ hits: [(book: String, index: Int, distance: Double)], extra: [(String, Int)],
                                 query: [Float], library: Library) throws -> [(book: String, index: Int, distance: Double)] {
        var keys: [(book: String, index: Int)] = hits.map { ($0.book, $0.index) }
        var seen = Set(keys.map { "\($0.book):\($0.index)" })
        for (book, index) in extra where seen.insert("\(book):\(index)").inserted { keys.append((book, index)) }
        let windows = try library.windows(of: keys)
        if windows.isEmpty { return hits }
        var similarity: [String: Double] = [:]
        for hit in hits { similarity["\(hit.book):\(hit.index)"] = 1 - hit.distance }
        let dim = query.count
        var scores: [Float] = []
        for (id, codes) in windows where dim > 0 && codes.count >= dim && codes.count % dim == 0 {
            let count = codes.count / dim
            if scores.count < count { scores = [Float](repeating: 0, count: count) }
            let best = codes.withUnsafeBufferPointer { c in
                query.withUnsafeBufferPointer { q in
                    scores.withUnsafeMutableBufferPointer { out -> Float in
                        ib_int8_cosines(c.baseAddress!, Int32(count), Int32(dim), q.baseAddress!, out.baseAddress!)
                        return out[0..<count].max() ?? -1
                    }
                }
            }
            similarity[id] = max(similarity[id] ?? -1, Double(best))
        }
        var out: [(book: String, index: Int, distance: Double)] = []
        for key in keys {
            guard let s = similarity["\(key.book):\(key.index)"] else { continue }
            out.append((key.book, key.index, 1 - s))
        }
        // Stable: equal scores keep the order they came in.
        return out.enumerated().sorted { a, b in
            a.element.distance != b.element.distance ? a.element.distance < b.element.distance : a.offset < b.offset
        }.map(\.element)
    }

    /// The vector list over a whole scope: every chunk's similarity is the larger
    /// of its own cosine (when the k-nearest search returned it) and its best
    /// window's, and the `depth` most similar chunks come back, best first.
    static func scanWindows(_ hits: [(book: String, index: Int, distance: Double)], query: [Float], scope: String?,
                            depth: Int, library: Library) throws -> [(book: String, index: Int, distance: Double)] {
        let dim = query.count
        var scores = [Float](repeating: 0, count: 64)
        var best = TopScores(capacity: max(1, depth))
        try query.withUnsafeBufferPointer { q in
            try library.forEachWindows(scope: scope) { seq, codes in
                guard dim > 0, codes.count >= dim, codes.count % dim == 0, let base = codes.baseAddress else { return }
                let count = codes.count / dim
                if scores.count < count { scores = [Float](repeating: 0, count: count) }
                let top = scores.withUnsafeMutableBufferPointer { out -> Float in
                    ib_int8_cosines(base.assumingMemoryBound(to: Int8.self), Int32(count), Int32(dim), q.baseAddress!, out.baseAddress!)
                    return out[0..<count].max() ?? -1
                }
                best.offer(seq, top)
            }
        }
        var similarity: [String: (book: String, index: Int, value: Double)] = [:]
        for hit in hits { similarity["\(hit.book):\(hit.index)"] = (hit.book, hit.index, 1 - hit.distance) }
        let keys = try library.chunkKeys(seqs: best.items.map(\.seq))
        for item in best.items {
            guard let (book, index) = keys[item.seq] else { continue }
            let key = "\(book):\(index)"
            if Double(item.score) > similarity[key]?.value ?? -Double.infinity { similarity[key] = (book, index, Double(item.score)) }
        }
        let ranked = similarity.values.sorted { a, b in
            if a.value != b.value { return a.value > b.value }
            return a.book != b.book ? a.book < b.book : a.index < b.index
        }
        return ranked.prefix(depth).map { ($0.book, $0.index, 1 - $0.value) }
    }

    func vectorSearch(_ text: String, k: Int, scope: String?, required: Bool) throws -> (hits: [(book: String, index: Int, distance: Double)], vector: [Float])? {
        guard let vector = try queryVector(text, required: required) else { return nil }
        // Exact search, which reads a library's int8 codes first when it has them (the
        // default, 'i8') and returns the same rows as the plain float scan, as fast as
        // the approximate int8 mode; binary (ranked by sign bits, re-scored with floats)
        // when the library opted into 'bits'.
        let knnMode = try library.meta("quantize") == "bits" ? "binary" : "exact"
        let statement = try library.db.prepare("SELECT book_id, key, distance FROM ibvec_knn(?1, ?2, ?3, ?4)")
        var bytes = [UInt8](); bytes.reserveCapacity(vector.count * 4)
        for v in vector {
            let bits = v.bitPattern.littleEndian
            bytes.append(UInt8(truncatingIfNeeded: bits)); bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 16)); bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
        }
        try statement.bind(1, .blob(bytes))
        try statement.bind(2, min(k, 10000))
        try statement.bind(3, scope)
        try statement.bind(4, knnMode)
        var out: [(String, Int, Double)] = []
        while try statement.step() {
            out.append((statement.text(0), statement.int(1), statement.double(2)))
        }
        return (out, vector)
    }

    // MARK: text

    /// How many chunks hold each term, from FTS5's vocabulary (an fts5vocab table
    /// in the connection's temp schema, made on first use): a prefix term sums the
    /// counts of the words it matches (an upper bound), a phrase takes its rarest
    /// word's. One index lookup per term, where counting MATCH rows read postings.
    static func documentFrequencies(_ db: Database, _ terms: [QueryTerm]) throws -> [Int] {
        try db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.ib_fts_vocab USING fts5vocab(main, 'chunks_fts', 'row')")
        let exact = try db.prepare("SELECT doc FROM temp.ib_fts_vocab WHERE term = ?1")
        let range = try db.prepare("SELECT coalesce(sum(doc), 0) FROM temp.ib_fts_vocab WHERE term >= ?1 AND term < ?2")
        func count(_ word: String, prefix: Bool) throws -> Int {
            let statement = prefix ? range : exact
            statement.reset()
            try statement.bind(1, word)
            if prefix {
                // The first string after every word that starts with `word`.
                var bytes = Array(word.utf8)
                guard let last = bytes.last, last < 0xFF else { return Int.max }
                bytes[bytes.count - 1] = last + 1
                try statement.bind(2, String(decoding: bytes, as: UTF8.self))
            }
            let n = try statement.step() ? statement.int(0) : 0
            statement.reset()
            return n
        }
        return try terms.map { term in
            let words = term.text.split(separator: " ").map(String.init)
            if words.count > 1 { return try words.map { try count($0, prefix: false) }.min() ?? 0 }
            return try count(term.text, prefix: term.prefix)
        }
    }

    /// Drops concepts whose own term is found in more than `commonFraction` of the
    /// chunks while rarer ones remain, and synonyms that common: BM25 gives them
    /// almost no weight (FTS5 clamps a term's IDF near 0 once it is in half of the
    /// documents), but scoring their postings is what costs time in a large library.
    static func pruneCommon(_ db: Database, _ concepts: [Concept], commonFraction: Double) throws -> [Concept] {
        // About the number of chunks (seq only grows; gaps from deleted books only raise the cap).
        let total = try db.scalarInt("SELECT max(seq) FROM chunks") ?? 0
        let cap = max(2_000, Int(Double(total) * commonFraction))
        // Nothing to prune in a small library without synonyms: skip the lookups.
        if total <= cap && concepts.allSatisfy({ $0.members.count == 1 }) { return concepts }
        let counts = try documentFrequencies(db, QueryConcepts.terms(concepts))
        var next = 0
        var kept: [Concept] = []
        var withCommonWords: [Concept] = []
        for concept in concepts {
            var members: [ConceptMember] = []
            for (i, var member) in concept.members.enumerated() {
                let n = counts[next + i]
                member.documents = n
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

    func textSearch(_ text: String, _ concepts: [Concept], k: Int, scope: String?) throws -> ([(book: String, index: Int, bm25: Double)], [QueryTerm]) {
        let all = Self.expanded(concepts, words: Self.plainWords(text), expansion: expansion)
        mark("expansion (\(all.count - concepts.count) terms)")
        return (try Self.textSearch(library.db, all, k: k, scope: scope, commonFraction: commonFraction), QueryConcepts.terms(all))
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

    /// The smallest and largest chunk seq (chunks_fts rowid) of a scope of at most
    /// `maxBooks` books; nil for a larger scope, where reading each book's range would cost more than it saves.
    static func seqRange(_ db: Database, scope: String, maxBooks: Int = 8) throws -> (Int, Int)? {
        guard let books = try db.scalarInt("SELECT count(*) FROM json_each(?1)", scope), books <= maxBooks else { return nil }
        let statement = try db.prepare("SELECT min(c.seq), max(c.seq) FROM json_each(?1) scope JOIN chunks c ON c.book_id = scope.key")
        try statement.bind(1, scope)
        defer { statement.reset() }
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return (statement.int(0), statement.int(1))
    }

    /// The best `k` chunks for the concepts, as (book, chunk index, score) with the
    /// score lower-is-better like bm25(): bm25() when every concept is a single
    /// term, else -ib_concepts() (BM25 over concepts, see QueryConcepts).
    static func textSearch(_ db: Database, _ concepts: [Concept], k: Int, scope: String?, commonFraction: Double) throws -> [(book: String, index: Int, bm25: Double)] {
        let concepts = try pruneCommon(db, concepts, commonFraction: commonFraction)
        guard let (expression, spec) = QueryConcepts.match(concepts) else { return [] }
        let rank = concepts.allSatisfy({ $0.members.count == 1 }) ? "bm25(chunks_fts)" : "-ib_concepts(chunks_fts, ?6)"
        var out: [(String, Int, Double)] = []
        if scope == nil {
            // The whole library: rank inside FTS5 alone, then look up the few winners.
            let statement = try db.prepare("""
                SELECT c.book_id, c.chunk_index, f.s FROM
                  (SELECT rowid AS seq, \(rank) AS s FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY s, rowid LIMIT ?2) f
                JOIN chunks c ON c.seq = f.seq ORDER BY f.s, f.seq
                """)
            try statement.bind(1, expression)
            try statement.bind(2, k)
            if rank.contains("?6") { try statement.bind(6, spec) }
            while try statement.step() { out.append((statement.text(0), statement.int(1), statement.double(2))) }
            return out
        }
        // The page limit is part of the WHERE clause: FTS rows past the limit never reach ORDER BY/LIMIT.
        // The rowid range keeps FTS5 inside the scope's chunks when it is a few books
        // (a book's chunks are inserted together, so their seq values are close).
        var rowids = (Int.min, Int.max)
        if let scope, let range = try seqRange(db, scope: scope) { rowids = range }
        let statement = try db.prepare("""
            SELECT c.book_id, c.chunk_index, \(rank) AS s
            FROM chunks_fts JOIN chunks c ON c.seq = chunks_fts.rowid
            JOIN json_each(?3) scope ON scope.key = c.book_id
            WHERE chunks_fts MATCH ?1 AND chunks_fts.rowid BETWEEN ?4 AND ?5
              AND (scope.value IS NULL OR c.end_page <= scope.value)
            ORDER BY s, chunks_fts.rowid LIMIT ?2
            """)
        try statement.bind(1, expression)
        try statement.bind(2, k)
        try statement.bind(3, scope)
        try statement.bind(4, rowids.0)
        try statement.bind(5, rowids.1)
        if rank.contains("?6") { try statement.bind(6, spec) }
        while try statement.step() { out.append((statement.text(0), statement.int(1), statement.double(2))) }
        return out
    }
}

/// The full-text half of a hybrid search on its own thread and read connection.
/// wait() returns nil when it failed (the caller then runs it on its own connection).
final class TextJob: @unchecked Sendable {
    let path: String, concepts: [Concept], words: [String], expansion: QueryExpansion?, k: Int, scope: String?, commonFraction: Double
    private var result: [(book: String, index: Int, bm25: Double)]?
    /// The concepts searched: the query's and the expansions.
    private(set) var allConcepts: [Concept] = []
    private var thread = pthread_t()
    private var started = false

    init(path: String, concepts: [Concept], words: [String], expansion: QueryExpansion?, k: Int, scope: String?, commonFraction: Double) {
        self.path = path; self.concepts = concepts; self.words = words; self.expansion = expansion
        self.k = k; self.scope = scope; self.commonFraction = commonFraction
        allConcepts = concepts
    }

    func run() {
        do {
            let db = try Database(path: path, readOnly: true)
            allConcepts = SearchEngine.expanded(concepts, words: words, expansion: expansion)
            result = try SearchEngine.textSearch(db, allConcepts, k: k, scope: scope, commonFraction: commonFraction)
        } catch {
            result = nil
        }
    }

    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let job = Unmanaged<TextJob>.fromOpaque(raw!).takeRetainedValue()
            job.run()
            return nil
        }, context)
        if rc == 0 { started = true } else { Unmanaged<TextJob>.fromOpaque(context).release() }
    }

    func wait() -> [(book: String, index: Int, bm25: Double)]? {
        guard started else { return nil }
        pthread_join(thread, nil)
        started = false
        return result
    }
}

/// A list's scores as z-scores (mean 0, standard deviation 1 over the list), so
/// cosines and BM25 scores can be added. A chunk missing from a list counts as
/// that list's lowest score: it was not found there, so it is at most as good as
/// the last one that was. On the long-book set (tuning part, one-book scope) this
/// fusion found 0.70 where reciprocal rank fusion with the coverage-scaled text
/// vote found 0.64 and the union of both top-5 lists 0.72: a chunk ranked 2nd-7th
/// by one list and absent from the other is no longer pushed out by chunks that
/// both lists rank low.
struct Standardized {
    let mean: Double, deviation: Double, lowest: Double
    /// No spread (one score, or equal ones): being in the list is all it says.
    let flat: Bool
    init(_ scores: [Double]) {
        let n = Double(max(1, scores.count))
        let mean = scores.reduce(0, +) / n
        let variance = scores.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n
        self.mean = mean
        flat = !(variance > 1e-12)
        deviation = flat ? 1 : variance.squareRoot()
        lowest = scores.min() ?? 0
    }
    /// A flat list scores its members 1 and the rest 0 (a z-score would give both 0).
    func z(_ score: Double?) -> Double {
        if flat { return score == nil ? 0 : 1 }
        return ((score ?? lowest) - mean) / deviation
    }
}

/// Hybrid's fusion: the weighted sum of a chunk's z-scores in the two lists
/// (nil: not in that list).
struct ScoreFusion {
    let vector: Standardized, text: Standardized, vectorWeight: Double
    init(vector: [Double], text: [Double], vectorWeight: Double) {
        self.vector = Standardized(vector); self.text = Standardized(text); self.vectorWeight = vectorWeight
    }
    /// `evidence` (0...1) scales how far the text list lifts a chunk above the
    /// list's lowest (see textEvidence).
    func score(vector v: Double?, text t: Double?, evidence: Double = 1) -> Double {
        let z = text.z(t), floor = text.z(nil)
        return vectorWeight * vector.z(v) + floor + (z - floor) * evidence
    }

    /// How much a text hit counts, by how many of the query's words (concepts,
    /// CJK characters) it holds: one shared word is no evidence (a paraphrase
    /// matches junk by one rare word, and BM25 ranks that high), each further one
    /// adds a third, four or more count fully. A one-word query counts fully. On
    /// the first evaluation set this keeps hybrid above vector (0.84 -> 0.89 in
    /// simulation), and on the long-book set it changes one book's scope by a
    /// question and lifts the whole library's (0.65 -> 0.68).
    static func textEvidence(found: Double, of units: Double) -> Double {
        if units <= 1 { return 1 }
        return min(1, max(0, (found - 1) / 3))
    }
}

/// The `capacity` highest scores offered, as a min-heap (the lowest kept score on
/// top), so a scan of many chunks keeps only what can still make the list.
struct TopScores {
    let capacity: Int
    private(set) var items: [(seq: Int, score: Float)] = []
    init(capacity: Int) { self.capacity = capacity; items.reserveCapacity(capacity) }

    mutating func offer(_ seq: Int, _ score: Float) {
        if items.count < capacity {
            items.append((seq, score))
            var i = items.count - 1
            while i > 0 {
                let parent = (i - 1) / 2
                if Self.less(items[i], items[parent]) { items.swapAt(i, parent); i = parent } else { break }
            }
        } else if let lowest = items.first, Self.less(lowest, (seq, score)) {
            items[0] = (seq, score)
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var smallest = i
                if l < items.count && Self.less(items[l], items[smallest]) { smallest = l }
                if r < items.count && Self.less(items[r], items[smallest]) { smallest = r }
                if smallest == i { break }
                items.swapAt(i, smallest); i = smallest
            }
        }
    }

    /// Lower score first; on equal scores the later seq counts as lower (earlier chunks win ties).
    private static func less(_ a: (seq: Int, score: Float), _ b: (seq: Int, score: Float)) -> Bool {
        a.score != b.score ? a.score < b.score : a.seq > b.seq
    }
}
