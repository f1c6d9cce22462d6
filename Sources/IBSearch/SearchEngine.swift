// IBSearch: hybrid search over the library that never spoils a book.
//
// The library API (used by ib-search, and by ib-ask in-process):
//
//     let library = try Library.open(path: nil, create: false)
//     let engine = SearchEngine(library: library)              // loads the model on first vector search
//     // ib-search and ib-ask pass settings: .fromEnvironment() (IB_SEARCH_*, see SearchSettings)
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
//    weighted 1.3 (IB_SEARCH_VECTOR_PERCENT), each list's part by how decisive it is in the query, a
//    chunk missing from a list taking that list's lowest (see Standardized).
//    --rrf-k K fuses by reciprocal rank instead.
//
// No spoilers: each book's page limit (a SearchScope) is applied INSIDE both
// scans by IBStore's queries: for vectors as ibvec_knn's scope argument, for
// text as `end_page <= limit` in the WHERE clause of the FTS query, before
// ORDER BY and LIMIT. A chunk is visible only when it ends on or before the limit, so a
// chunk spanning pages 5-6 is hidden at page 5. `.readingPosition` uses each
// book's current_page (0 = no position set: the whole book is searched);
// `.page(N)` applies N to every searched book; `.none` lifts the limit.
//
// Results carry the chunk text, book id/title/authors, start/end page and the
// printed page labels (pages.label) when the book has them, a snippet with
// matched terms marked «», and for --explain the rank in each list.
//
// The engine's parts: VectorSearch.swift (the query's vector, kNN, windows),
// TextSearch.swift (the full-text half), ParallelText.swift (that half on a
// second thread), Fusion.swift (one list from two), SearchSettings.swift.
import IBCore
import IBModel
import IBStore

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
    /// The words whose dates, parts and places scope the search (nil: `text`): a
    /// rewrite of the question (--expand) is searched where the question points.
    public var focusText: String? = nil
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
    /// How results, citations and JSON output name a chunk (ChunkRef is the library's own key).
    public var chunkID: String { "\(bookID):\(chunkIndex)" }
    public var startPage: Int
    public var endPage: Int
    /// Printed page labels, when the pages table has them.
    public var startLabel: String?
    public var endLabel: String?
    /// The library's own key of the chunk.
    public var chunkRef: ChunkRef
    public var text: String
    /// A window of the text with matched terms marked «».
    public var snippet: String
    /// 1-based rank in the vector list / text list (nil when not in it).
    public var vectorRank: Int?
    public var textRank: Int?
    public var vectorDistance: Double?
    public var bm25: Double?
    public var fusedScore: Double?
    /// Where the chunk begins in the book's structure, when it has one: the
    /// section's titles (outermost first), its dates ('YYYY-MM-DD', '--MM-DD'...)
    /// and whose voice it is in.
    public var section: [String]? = nil
    public var dateFrom: String? = nil
    public var dateTo: String? = nil
    public var voice: String? = nil
    /// Audio books: where the chunk's speech starts and ends, in seconds from the start.
    public var startTime: Double? = nil
    public var endTime: Double? = nil
    /// "1:02:30": how an audio book's passage is shown and cited instead of a page.
    public var timeLabel: String? { startTime.map(MediaTime.label) }
}

public final class SearchEngine {
    public static let defaultCandidates = 40
    /// Hybrid fusion: nil (the default) fuses standardized scores (see Standardized);
    /// a number fuses by reciprocal rank with this k (--rrf-k, for comparisons).
    public var rrfK: Double? = nil
    /// The vector list's weight against the text list's (1) in score fusion (SearchSettings.vectorWeight).
    public var vectorWeight: Double
    /// Text search ignores a query term found in more than this fraction of all chunks (when rarer terms remain).
    public var commonFraction: Double = 0.1
    /// Experimental, off by default (IB_SEARCH_EXPAND=1 turns it on): full-text queries add
    /// related words from the model's vocabulary (QueryExpansion.swift). On the evaluation set it
    /// raised text recall@5 from 0.59 to 0.63 but not hybrid (0.71 -> 0.70), and costs ~20-40 ms.
    public var expandQueries: Bool
    private var expansionLoaded = false
    private var expansionModel: QueryExpansion?
    var expansion: QueryExpansion? {
        if !expansionLoaded {
            expansionLoaded = true
            expansionModel = expandQueries ? QueryExpansion(directory: encoder?.directory ?? Config.modelDirectory(flag: modelDirectory)) : nil
        }
        return expansionModel
    }
    /// Synonyms for the full-text half (scripts/build-thesaurus's file, at
    /// settings.thesaurusPath; none when it is missing or turned off). Loaded on first use.
    public lazy var thesaurus: Thesaurus? = thesaurusPath.flatMap { Thesaurus(path: $0) }
    private let thesaurusPath: String?
    /// BM25 in a scope of a few books: the share of a word's rarity that is its
    /// rarity in those books rather than in the library (SearchSettings.bookIDFShare, BookRarity).
    public var bookIDFShare: Double
    /// Re-score vector candidates by their window vectors (IB_SEARCH_WINDOWS=0 turns it off, for comparisons).
    public var rescoreByWindows: Bool
    /// A scope of at most this many chunks (a book or a few) has every window
    /// vector scanned; a larger one re-scores the candidates' windows only. On the
    /// evaluation set the scan finds passages whose chunk vector ranks far below
    /// the candidates (vector recall@5 0.75 -> 0.86); the scan costs ~2 ms per
    /// 1,000 chunks (two thirds reading rows, one third arithmetic).
    /// IB_SEARCH_WINDOW_SCAN=N sets it (0: never scan).
    public var windowScanLimit: Int
    /// A scope of at most this many chunks has its full-text half search synonyms
    /// too. Separate from the scan's limit because they cost far less: on the
    /// long-book library (8,600 chunks) synonyms add ~0-2 ms where the scan adds
    /// ~10, and they are what lifted whole-library text recall to one book's
    /// (0.58 -> 0.62 on the tuning part). IB_SEARCH_SYNONYM_SCOPE=N sets it.
    public var synonymScopeLimit: Int
    /// Hybrid searches run the full-text half on a second connection and thread.
    /// IB_SEARCH_PARALLEL=0 turns it off (for benchmarks).
    public var parallel: Bool
    /// The model folder was named by $IB_MODEL_DIR (see SearchSettings.modelDirectoryChosen).
    let modelDirectoryChosen: Bool
    /// The query model being loaded on another thread (ib-search starts it before
    /// opening the library); taken on the first vector search when its folder is the one wanted.
    public var preload: ModelPreload?

    public let library: Library
    var encoder: SentenceEncoder?
    /// The vectors of recent query texts (VectorSearch.swift).
    var queryVectors = QueryVectorMemo()
    let modelDirectory: String?
    /// Notes for the user (e.g. the library's model is not available: text search only). Printed by ib-search on stderr.
    public private(set) var warnings: [String] = []
    func warn(_ message: String) { if !warnings.contains(message) { warnings.append(message) } }

    private var bookCache: [String: BookSummary] = [:]
    /// The ready books' ids as this search's scope() read them: the books of a
    /// whole-library search, for its focus and quoted titles (not read again).
    var readyAtScope: [String] = []
    /// Each book's structure as the focus reads it (FocusedSearch.structure).
    var structureCache: [String: [SearchSection]] = [:]
    /// Whether a chunk's text reads as the publisher's (OwnTextFirst.soundsLikeMatter).
    var matterCache: [ChunkRef: Bool] = [:]
    /// The library's version the caches above were filled at: a book indexed
    /// again, or removed, between a server's searches changes its structure.
    var cachedAt: LibraryVersion? = nil
    /// The full-text half's read connection, kept between searches (ParallelText).
    var textReader = Handoff(library: nil)
    /// A process that searches once and exits (ib-search with one QUERY): the page-table
    /// entries of the library's maps are cleared on another thread once a search's two
    /// halves are done, and those of the model's maps once the query is embedded, instead
    /// of at exit (MappedPages, SentenceEncoder.releaseMappedPages). Not for an engine
    /// that searches again.
    public var releasesMappedPages = false
    /// postingsMegabytes for an engine that serves many searches.
    public static let servingPostingsMegabytes = 128
    /// An engine that searches many times (ib-mcp, ib-search --queries) embeds its
    /// question, and scans vectors, on every core it may (IB_THREADS, else the
    /// cores). A process that searches once does not: its first embedding waits
    /// on the model's pages, not on arithmetic, and a second thread only costs it
    /// CPU (measured: 1.19x the CPU, no shorter).
    public var sharesCores = false
    /// The threads the query's embedding may use now: one while the full-text half
    /// runs on the other core (ParallelText gives them back when it is done).
    let embeddingThreads = ThreadShare(1)
    /// An engine that searches many times (ib-mcp, ib-search --queries): its
    /// connections keep the full-text postings they read, up to this many
    /// megabytes each, and rank later queries from memory (IBStore's
    /// PostingsMemo: the same hits, without walking FTS5's index again); 0: off.
    public var postingsMegabytes = 0 {
        didSet { library.keepPostings(megabytes: postingsMegabytes) }
    }
    /// Hybrid: how far (in the lists' standard deviations) a chunk inside what the
    /// question names rises, times its ranges' weight (StructureFocus; 0 turns it off).
    public var focusWeight: Double
    /// Hybrid: how far a chunk holding the words the reader quotes rises: past
    /// every other (a fused score stays within a few tens); 0 turns it off.
    public var phraseWeight: Double = 1000
    /// Hybrid, in a scope of several books: how far a chunk of a book whose author
    /// the question names rises (AuthorNames). Tuning parts of the seven long
    /// sets, whole library: 582 -> 586 of 793 at 2, 4 or 8 (the 181 questions
    /// naming an author found 152, as each in its own book's scope); 0.5 and 1
    /// changed nothing.
    public var authorWeight: Double = 2

    /// `encoder`: the model to embed queries; when nil it is loaded from
    /// `modelDirectory` (or Config.modelDirectory()) on the first vector search.
    /// `settings`: the defaults unless the caller read the environment (SearchSettings.fromEnvironment()).
    public init(library: Library, encoder: SentenceEncoder? = nil, modelDirectory: String? = nil, settings: SearchSettings = SearchSettings()) {
        self.library = library
        self.encoder = encoder
        self.modelDirectory = modelDirectory
        expandQueries = settings.expandQueries
        bookIDFShare = settings.bookIDFShare
        thesaurusPath = settings.thesaurusPath
        rescoreByWindows = settings.rescoreByWindows
        windowScanLimit = settings.windowScanLimit
        synonymScopeLimit = settings.synonymScopeLimit
        parallel = settings.parallel
        focusWeight = settings.focusWeight
        vectorWeight = settings.vectorWeight
        timing = settings.timing
        modelDirectoryChosen = settings.modelDirectoryChosen
    }

    // MARK: books in scope

    /// Ready books, with their reading positions as they are now (positions are
    /// never cached: an engine that lives long, as in ib-ask, sees every set-page).
    /// Two queries whatever the number of books.
    public func readyBooks() throws -> [BookSummary] {
        let books = try library.bookSummaries(readyOnly: true)
        for book in books { bookCache[book.id] = book }
        return books
    }

    func bookInfo(_ id: String) throws -> BookSummary? {
        if let cached = bookCache[id] { return cached }
        _ = try readyBooks()
        return bookCache[id]
    }

    /// The searched books with their page limits; nil when that is every book
    /// of the library without a limit (the queries then skip the scope).
    /// Empty when no ready book is searched.
    func scope(_ query: SearchQuery) throws -> SearchScope? {
        let ready = try readyBooks()
        readyAtScope = ready.map(\.id)
        var books = ready
        if let wanted = query.books {
            let set = Set(wanted)
            books = ready.filter { set.contains($0.id) }
        }
        let limits = books.map { book -> SearchScope.Book in
            switch query.pageLimit {
            case .none: return .init(id: book.id, lastPage: nil)
            case .page(let n): return .init(id: book.id, lastPage: n)
            case .readingPosition: return .init(id: book.id, lastPage: book.currentPage > 0 ? book.currentPage : nil)
            }
        }
        let allBooks = try query.books == nil && ready.count == library.bookCount()
        if allBooks && !limits.isEmpty && limits.allSatisfy({ $0.lastPage == nil }) { return nil }
        return SearchScope(limits)
    }

    // MARK: search

    /// IB_SEARCH_TIMING=1: phase times on stderr (for benchmarks).
    let timing: Bool
    private var lastMark = (wall: Timestamp.monotonic(), cpu: Timestamp.threadCPU())
    /// "ib-search timing: PHASE W ms (cpu C ms)": the wall time since the last
    /// mark and this thread's CPU time in it.
    func mark(_ what: String) {
        guard timing else { return }
        let now = (wall: Timestamp.monotonic(), cpu: Timestamp.threadCPU())
        func ms(_ seconds: Double) -> String { String(Double(Int((seconds * 1e4).rounded())) / 10) }
        printError("ib-search timing: \(what) \(ms(now.wall - lastMark.wall)) ms (cpu \(ms(now.cpu - lastMark.cpu)) ms)")
        lastMark = now
    }

    public func search(_ query: SearchQuery) throws -> [SearchResult] {
        warnings = []  // each search says what held for it (a server searches many times)
        guard query.k > 0 else { return [] }
        let version = try library.libraryVersion()
        if version != cachedAt { structureCache = [:]; matterCache = [:]; cachedAt = version }
        mark("start")
        let scope = try self.scope(query)
        mark("scope")
        if let scope, scope.books.isEmpty { return [] }
        // A small scope (a book or a few) is searched exhaustively: every window
        // vector scanned, every synonym of the query's words searched. In a large
        // library both would cost more than the 50 ms a search may take.
        let chunks = try library.chunkCount(in: scope, cap: max(windowScanLimit, synonymScopeLimit) + 1)
        let small = chunks <= windowScanLimit
        let withSynonyms = query.mode != .vector && chunks <= synonymScopeLimit
        let concepts = QueryConcepts.build(query.text, thesaurus: withSynonyms ? thesaurus : nil)
        let depth = max(query.k, query.candidates)

        var vectorHits: [ChunkHit] = []
        var textHits: [ChunkHit] = []
        var mode = query.mode
        var snippetTerms = QueryConcepts.terms(concepts)
        // Hybrid: the full-text search runs on its own read connection and thread
        // while this one embeds the query and scans the vectors.
        // The words the reader quotes are looked up there too (hybrid and text modes).
        let references = QueryReferences.parse(query.focusText ?? query.text)
        var phrases = mode == .vector || (mode == .hybrid && phraseWeight <= 0) ? [] : Self.quotedPhrases(query.text, references: references)
        if !references.phrases.isEmpty { phrases = try phrasesNamingNoSection(phrases, scope: scope) }
        var parallelText: ParallelText? = nil
        let cores = sharesCores ? Parallel.threads : 1
        embeddingThreads.set(cores)
        if mode == .hybrid && parallel {
            let plan = focusWeight > 0 ? try focusPlan(query, references: references, scope: scope) : nil
            embeddingThreads.set(1)
            parallelText = ParallelText(path: library.path, reader: textReader, postingsMegabytes: postingsMegabytes,
                                        whenDone: (embeddingThreads, cores), concepts: concepts, words: Self.plainWords(query.text),
                                        expansion: expansion, k: depth, scope: scope, commonFraction: commonFraction,
                                        bookShare: bookIDFShare, phrases: phrases, focus: plan)
        }
        // Never leave the search running behind (an error in the vector half); keep its connection.
        defer { if let parallelText { textReader = parallelText.reader() } }
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
        var quoted: Set<ChunkRef>? = nil
        var matches: [ChunkRef: Matched] = [:]
        var scored: ScoredConcepts? = nil
        var focused: Focus? = nil
        if let parallelResult = parallelText?.wait() {
            textHits = parallelResult.hits
            snippetTerms = QueryConcepts.terms(parallelResult.concepts)
            quoted = parallelResult.quoted
            matches = parallelResult.matches
            scored = parallelResult.scored
            if let (focus, read) = parallelResult.focus {
                focused = focus
                remember(read)
            }
            if timing, let spent = parallelText?.cost() {
                let steps = spent.steps.map { "\($0.0) \(Double(Int(($0.1 * 1e4).rounded())) / 10)" }.joined(separator: ", ")
                mark("fts (parallel; its thread \(Int((spent.wall * 1e3).rounded())) ms, cpu \(Int((spent.cpu * 1e3).rounded())) ms: \(steps))")
            }
        } else if mode != .vector {
            // Not in parallel, or the parallel half failed: on this connection.
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
                vectorHits = try Self.rescoreByWindows(vectorHits, extra: textHits, query: queryVector, library: library)
                if vectorHits.count > depth { vectorHits.removeLast(vectorHits.count - depth) }
                mark("windows")
            }
        }
        if mode == .vector && vectorHits.count > query.k { vectorHits.removeLast(vectorHits.count - query.k) }
        // Both halves are done, the vectors and windows read: the maps' page-table entries are
        // cleared on the other core (MappedPages), then handed back before this returns. A text
        // search, or a scope small enough to scan its windows, maps too little to gain from it
        // (measured: 2-5% slower).
        let released = releasesMappedPages && queryVector != nil && !small
            ? MappedPages(releasing: [library] + [parallelText?.reader().library].compactMap { $0 }) : nil
        defer { released?.finish() }

        // What the question names: its structure searched more deeply, and the words it quotes.
        let statistics = (vector: vectorHits.count, text: textHits.count)
        var focus = Focus([])
        if mode != .vector && quoted == nil {
            quoted = try Self.phraseHits(library, phrases, scope: scope)
            mark("phrases")
        }
        if mode == .hybrid {
            if focusWeight > 0 {
                focus = try focused ?? self.focus(query, references: references, scope: scope)
                focus.weighByBooks(Focus.bookShares(vectorHits, textHits))
            }
            if !focus.isEmpty {
                if let queryVector { vectorHits = Self.appending(try focusVectorHits(focus, query: queryVector, scope: scope, depth: depth, small: small), to: vectorHits) }
                textHits = Self.appending(try focusTextHits(focus, concepts: concepts, scored: scored, scope: scope, depth: depth, small: small),
                                          to: textHits)
                mark("focus (\(focus.ranges.count) ranges)")
            }
        }
        // In a scope of several books, the books whose author the question names.
        let namedBooks = mode == .hybrid && authorWeight > 0 ? try booksNamedByAuthor(query.text, scope: scope) : []
        if !namedBooks.isEmpty { mark("author (\(namedBooks.count) books)") }
        var candidates = try fuse(vectorHits, textHits, mode: mode, concepts: concepts, statistics: statistics,
                                  quoted: quoted ?? [], focus: focus, matches: matches, namedBooks: namedBooks)
        if mode == .hybrid { candidates = try ownTextFirst(candidates, question: query.text, k: query.k) }
        mark("fuse")
        var results: [SearchResult] = []
        for c in candidates.prefix(query.k) {
            guard let chunk = try library.chunk(c.ref) else { continue }
            let book = try bookInfo(c.bookID)
            results.append(SearchResult(
                rank: results.count + 1, score: c.score, bookID: c.bookID, title: book?.title ?? "",
                authors: book?.authors ?? [], chunkIndex: c.index, startPage: chunk.startPage, endPage: chunk.endPage,
                startLabel: try library.pageLabel(bookID: c.bookID, page: chunk.startPage),
                endLabel: try library.pageLabel(bookID: c.bookID, page: chunk.endPage),
                chunkRef: c.ref, text: chunk.text, snippet: Snippet.make(chunk.text, terms: snippetTerms),
                vectorRank: c.vectorRank, textRank: c.textRank, vectorDistance: c.distance, bm25: c.bm25,
                fusedScore: mode == .hybrid ? c.score : nil,
                startTime: chunk.extra["start_time"]?.doubleValue, endTime: chunk.extra["end_time"]?.doubleValue))
        }
        mark("results")
        try placeInStructure(&results)
        mark("structure")
        return results
    }

    /// Each result's section, dates and voice, from its book's structure.
    func placeInStructure(_ results: inout [SearchResult]) throws {
        let refs = results.map(\.chunkRef)
        let ords = try library.sectionOrds(forChunks: refs)
        for i in results.indices {
            guard let ord = ords[refs[i]], let unit = try structure(results[i].bookID).first(where: { $0.ord == ord }) else { continue }
            results[i].section = unit.path
            let dated = try datedUnit(unit)
            results[i].dateFrom = dated?.dateText.from
            results[i].dateTo = dated?.dateText.to
            results[i].voice = unit.voice
        }
    }

    /// The unit itself when it carries a date, else its nearest dated ancestor.
    func datedUnit(_ unit: SearchSection) throws -> SearchSection? {
        var current: SearchSection? = unit
        let book = try structure(unit.bookID)
        while let u = current {
            if u.dateText.from != nil { return u }
            current = u.parent.flatMap { p in book.first(where: { $0.ord == p }) }
        }
        return nil
    }
}
