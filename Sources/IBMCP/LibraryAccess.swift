// Every call ib-mcp makes into the stage libraries, in one file: the search
// engine (as ib-search runs it), the capture engine (as ib-capture runs it),
// the status report (ib-capture status --json) and the library's books,
// chunks and contents (as ib-index show reads them). The rest of IBMCP sees
// JSON and the few plain values below.
//
// The library opens on first use and stays open; so does the search engine,
// which loads the model on its first vector search and keeps it. Reading
// positions are read afresh on every call (the engine never caches them), so
// a set-page or a captured page elsewhere applies to the next search.
import IBCapture
import IBCore
import IBSearch
import IBStore

/// A failure a tool reports to the assistant (isError), with structured detail when there is some.
struct ToolError: Error {
    var message: String
    var detail: JSON? = nil
    init(_ message: String, detail: JSON? = nil) { self.message = message; self.detail = detail }
}

/// One chunk, as get_passage shows it.
struct PassageFacts {
    var index: Int
    var startPage: Int
    var endPage: Int
    var text: String
    /// Audio books: seconds from the start of the audio.
    var startTime: Double? = nil
    var endTime: Double? = nil

    init(_ chunk: ChunkRecord) {
        index = chunk.index; startPage = chunk.startPage; endPage = chunk.endPage; text = chunk.text
        startTime = chunk.extra["start_time"]?.doubleValue; endTime = chunk.extra["end_time"]?.doubleValue
    }
}

final class LibraryAccess {
    let path: String
    let modelDirectory: String?
    private var openLibrary: Library?
    let settings: SearchSettings
    /// $IB_TODAY, read once at start; nil: the real date, each time it is needed.
    let todayOverride: Day?
    /// $IB_NOW (checked by the command), the time suggestions are made for; nil: the clock.
    let nowOverride: Double? = (try? Suggestions.nowFromEnvironment()) ?? nil
    private var engine: SearchEngine?

    init(databasePath: String?, modelDirectory: String?, settings: SearchSettings, today: Day?) {
        path = Config.databasePath(flag: databasePath)
        self.modelDirectory = modelDirectory
        self.settings = settings
        todayOverride = today
    }

    /// The library, opened once; a missing file is a tool error (ib-mcp never creates one).
    func library() throws -> Library {
        if let openLibrary { return openLibrary }
        guard FileSystem.exists(path) else {
            throw ToolError("no library at \(path) (add a book: ib-parse FILE | ib-chunk | ib-embed | ib-index)")
        }
        let library = try Library.open(path: path, create: false)
        openLibrary = library
        return library
    }

    /// Runs `body`, turning the stage libraries' errors into tool errors.
    func guarded<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as ToolError {
            throw e
        } catch let e as RPCError {
            throw e
        } catch let f as CaptureFailure {
            guard let json = f.json else { throw ToolError(f.error.message) }
            // ib-capture's hint (answer with the next line) is for its shell; here the book argument settles it.
            let hint = "\n" + Messages.text("settle_hint")
            let message = f.error.message.hasSuffix(hint) ? String(f.error.message.dropLast(hint.count)) : f.error.message
            throw ToolError(message + "\n" + Self.askHint, detail: Self.ambiguityDetail(json))
        } catch let e as IBError {
            throw ToolError(e.message)
        } catch {
            if let openLibrary { throw ToolError(openLibrary.describe(error).message) }
            throw ToolError("\(error)")
        }
    }

    // MARK: books

    /// Every book, ready or not, oldest first (ib-index list's records).
    func books() throws -> [BookInfo] {
        try guarded { try library().books(all: true) }
    }

    /// BOOK as every tool takes it: an id, an id prefix or a (fuzzy) title. Several
    /// matches: a tool error listing the candidates, never a guess.
    func book(_ query: String) throws -> BookInfo {
        try guarded {
            let library = try library()
            do {
                return try library.resolveBook(query)
            } catch let e as IBError where e.code == .ambiguous {
                throw ToolError(e.message + "\n" + Self.askHint,
                                detail: Self.ambiguityDetail(query: query, candidates: try candidates(query, library)))
            }
        }
    }

    /// The candidates an ambiguous BOOK stands for (the same rule as Library.resolveBook).
    private func candidates(_ query: String, _ library: Library) throws -> [JSON] {
        let books = try library.books(all: true)
        let q = String(query.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()).lowercased()
        var ids: [String] = []
        if q.count >= 4, q.allSatisfy(\.isHexDigit) { ids = books.filter { $0.id.lowercased().hasPrefix(q) }.map(\.id) }
        if ids.count < 2 {
            let matcher = TitleMatcher(books.map { TitleMatcher.Entry(id: $0.id, title: $0.title, authors: $0.authors) })
            let result = matcher.match(q)
            ids = result.candidates.map(\.id)
            if case .none = result { ids = matcher.byAuthor(q).map(\.id) }
        }
        return ids.compactMap { id in books.first { $0.id == id } }.map { b in
            ["id": .string(b.id), "title": .string(b.title), "authors": JSON(b.authors),
             "format": .string(b.format), "source": .string(b.source), "pages": JSON(b.pageCount)]
        }
    }

    static let askHint = "Ask the user which one is meant, then call again with its id as book."

    static func ambiguityDetail(query: String, candidates: [JSON]) -> JSON {
        ["error": "ambiguous", "query": .string(query), "candidates": .array(candidates)]
    }

    /// ib-capture's ambiguity record ({"type":"ambiguous",...}) in the same shape.
    static func ambiguityDetail(_ captureJSON: JSON) -> JSON {
        ambiguityDetail(query: captureJSON["query"]?.stringValue ?? "",
                        candidates: (captureJSON["candidates"]?.arrayValue ?? []).map { c in
                            ["id": c["id"] ?? .null, "title": c["title"] ?? .null, "authors": c["authors"] ?? []]
                        })
    }

    /// The book ib-capture takes as current (the one being read), if any.
    func currentBook() throws -> BookInfo? {
        try guarded {
            let library = try library()
            guard let ref = try CaptureStore(library: library).currentBook(), let b = try library.book(id: ref.id) else { return nil }
            return b
        }
    }

    /// The book's sections with their page ranges.
    func contents(_ bookID: String) throws -> [JSON] {
        try guarded {
            try library().contents(bookID: bookID).map { s in
                ["index": JSON(s.index), "title": JSON(s.title), "start_page": JSON(s.startPage), "end_page": JSON(s.endPage),
                 "start_label": JSON(s.startLabel), "end_label": JSON(s.endLabel)]
            }
        }
    }

    /// One chunk of a book, nil when there is none at that index.
    func passage(_ bookID: String, _ index: Int) throws -> PassageFacts? {
        try guarded {
            try library().chunk(bookID: bookID, index: index).map(PassageFacts.init)
        }
    }

    /// A passage and its neighbours, bounded by the reading position as every read is.
    func passageWindow(_ book: BookInfo, index: Int, context: Int, allPages: Bool) throws -> PassageWindow {
        try guarded { try library().passageWindow(book: book, index: index, context: context, allPages: allPages) }
    }

    /// Every chunk of a book that ends on or before `page`: the last one (where reading stopped).
    func lastPassage(_ bookID: String, upTo page: Int) throws -> PassageFacts? {
        try guarded {
            try library().chunks(bookID: bookID).last { $0.endPage <= page }.map(PassageFacts.init)
        }
    }

    func pageLabel(_ bookID: String, _ page: Int) throws -> String? {
        try guarded { try library().pageLabel(bookID: bookID, page: page) }
    }

    // MARK: search

    /// ib-search's passage search: each book bounded by its reading position
    /// unless `allPages`. The records are ib-search --json's, in its order.
    /// search_library: ib-search's records, each marked with the reading position
    /// that bounded its book (`up_to_page`), `minScore` applied as --min-score is;
    /// a hybrid search about nothing in the library returns no passage and says why.
    func search(_ text: String, bookIDs: [String]?, allPages: Bool, k: Int, mode: String,
                minScore: Double? = nil) throws -> (results: [JSON], warnings: [String]) {
        try guarded {
            let library = try library()
            let engine = self.engine ?? {
                let made = SearchEngine(library: library, modelDirectory: modelDirectory, settings: settings)
                made.postingsMegabytes = SearchEngine.servingPostingsMegabytes
                made.sharesCores = true
                return made
            }()
            self.engine = engine
            let ready = try engine.readyBooks()
            if ready.isEmpty {
                return ([], ["the library \(path) has no books yet (add one: ib-parse FILE | ib-chunk | ib-embed | ib-index)"])
            }
            let searchMode = SearchMode(rawValue: mode) ?? .hybrid
            let query = SearchQuery(text: text, books: bookIDs, pageLimit: allPages ? .none : .readingPosition, k: k,
                                    mode: searchMode)
            let results = try engine.search(query)
            var warnings = engine.warnings
            if minScore == nil && searchMode == .hybrid && Relevance.unrelated(results) {
                return ([], warnings + [Relevance.unrelatedReason(override: "min_score -1000000")])
            }
            let boundAt = allPages ? [:] : Dictionary(ready.filter(\.isReadPartWay).map { ($0.id, $0.currentPage) },
                                                       uniquingKeysWith: { a, _ in a })
            let kept = results.filter { minScore == nil || $0.score >= minScore! }
            if kept.isEmpty, let minScore, !results.isEmpty { warnings.append("no passage scored min_score \(minScore) or more") }
            return (kept.map { Render.json($0, explain: false, upToPage: boundAt[$0.bookID]) }, warnings)
        }
    }

    // MARK: capture and status

    private func captureEngine(bookID: String?) throws -> CaptureEngine {
        var options = CaptureOptions()
        if let d = todayOverride { options.today = d }
        let engine = CaptureEngine(options: options, store: CaptureStore(library: try library()))
        engine.forcedBookID = bookID
        return engine
    }

    /// One line as ib-capture takes it; `bookID` (already resolved) settles the book.
    /// One transaction: stored whole or not at all. Returns ib-capture's record.
    func capture(line: String, bookID: String?) throws -> JSON {
        try guarded { try captureEngine(bookID: bookID).capture(line) }
    }

    /// The typed forms: the capture built here instead of parsed from a line.
    func capture(_ typed: TypedCapture, bookID: String?) throws -> JSON {
        try guarded {
            let intents: [TypedCapture.Kind: Capture.Intent] = [.quote: .quote, .note: .note, .question: .question,
                                                                .progress: .progress, .plan: .plan]
            var c = Capture(intent: intents[typed.kind] ?? .unknown)
            c.text = typed.text
            c.page = typed.page
            c.pageEnd = typed.pageEnd
            c.pagesRead = typed.pagesRead
            c.percent = typed.percent
            c.finished = typed.finished
            c.chapter = typed.chapter
            c.tags = typed.tags
            c.books = typed.books
            c.dailyPages = typed.dailyPages
            if let due = typed.due {
                guard let day = Day(iso: due), due.count == 10 else { throw ToolError("due: not a date (YYYY-MM-DD): \(due)") }
                c.due = day
            }
            return try captureEngine(bookID: bookID).capture(c, line: typed.summary)
        }
    }

    /// `ib-capture status --json`'s report.
    func status() throws -> JSON {
        try guarded { try StatusReport.build(CaptureStore(library: try library()), today: today(), privateMode: false, now: nowOverride) }
    }

    private func today() -> Day {
        todayOverride ?? Day(seconds: nowOverride ?? Timestamp.now())
    }

    /// The quote stored last, with its book.
    func lastQuote() throws -> JSON {
        try guarded {
            let records = ReaderRecords(try library())
            let count = try records.quoteCount()
            guard count > 0, let q = try records.quote(atOffset: count - 1) else { return .null }
            return ["id": JSON(q.id), "text": .string(q.text), "book_id": .string(q.bookID), "book_title": .string(q.bookTitle),
                    "page": JSON(q.page)]
        }
    }
}

/// A capture given field by field (add_quote, add_note, log_progress, set_plan).
struct TypedCapture {
    enum Kind { case quote, note, question, progress, plan }
    var kind: Kind
    var text: String? = nil
    var page: Int? = nil
    var pageEnd: Int? = nil
    var pagesRead: Int? = nil
    var percent: Int? = nil
    var finished = false
    var chapter: String? = nil
    var tags: [String] = []
    var books: [String] = []
    var due: String? = nil
    var dailyPages: Int? = nil
    /// What stands for the capture in messages.
    var summary: String
}
