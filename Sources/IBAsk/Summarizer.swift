// Summaries and recaps of a book that stop at the reader's page (issue 26):
// what is summarised (the book so far, a section, a page range), bounded by
// the reading position before any text is read; then a provider's
// map-reduce (SummaryProvider), or, offline or when the provider fails, the
// book's own sentences (SummaryExtractive). ib-ask --summarize / --recap and
// ib-mcp's summarize tool call `run`.
import IBCore
import IBStore

public struct SummaryRequest: Sendable {
    public enum Scope: Sendable { case book, section(String), pages(Int, Int) }
    public var scope: Scope = .book
    /// The short version for picking the book up again.
    public var recap = false
    public init(scope: Scope = .book, recap: Bool = false) { self.scope = scope; self.recap = recap }
}

/// One section of a summary.
public struct SummarySectionResult: Sendable {
    public var number: Int
    public var title: String
    public var startPage: Int
    public var endPage: Int
    public var summary: String
    /// Cut short by the reading position (or the page range).
    public var partial: Bool
    public var cached: Bool
}

public struct SummaryResult: Sendable {
    public var summary = ""
    public var citations: [Citation] = []
    public var sections: [SummarySectionResult] = []
    /// Nothing was sent: every part came from the library.
    public var cached = false
    public var usedLanguageModel = false
    public var provider = "extractive"
    public var model = ""
    public var upToPage: Int?
    public var calls = 0

    public func json(book: BookContext) -> JSON {
        .object(JSONObject([
            ("summary", .string(summary)),
            ("citations", .array(citations.map(\.json))),
            ("sections", .array(sections.map { s in
                .object(JSONObject([("number", JSON(s.number)), ("title", .string(s.title)),
                                    ("start_page", JSON(s.startPage)), ("end_page", JSON(s.endPage)),
                                    ("pages", .string(book.citation(s.startPage, s.endPage))),
                                    ("summary", .string(s.summary)), ("partial", .bool(s.partial)), ("cached", .bool(s.cached))]))
            })),
            ("cached", .bool(cached)),
            ("language_model", .bool(usedLanguageModel)),
            ("provider", .string(provider)), ("model", .string(model)),
            ("book_id", .string(book.id)), ("title", .string(book.title)),
            ("up_to_page", upToPage.map { JSON($0) } ?? .null),
            ("requests", JSON(calls)),
        ]))
    }
}

/// A planned section with the text it may use (nothing past the bound).
struct BoundedSection {
    var plan: PlannedSection
    var chunks: [SummaryChunkText]
    var startPage: Int { chunks.first?.startPage ?? plan.startPage }
    var endPage: Int { chunks.map(\.endPage).max() ?? plan.endPage }
    var partial: Bool { endPage < plan.endPage || (chunks.last?.index ?? plan.lastChunk) < plan.lastChunk }
    var pages: Set<Int> { Set(chunks.flatMap { Array($0.startPage...$0.endPage) }) }
}

public final class Summarizer {
    let library: Library
    let book: BookContext
    let provider: ChatProvider?
    let makeEmbedder: () throws -> SentenceEmbedder
    public var log: ((String) -> Void)?
    /// The one warning a failed provider gives.
    public var warn: (String) -> Void = { printError("ib-ask: " + $0) }
    public var maxTokens = 1024

    public init(library: Library, book: BookContext, provider: ChatProvider?, embedder: @escaping () throws -> SentenceEmbedder) {
        self.library = library; self.book = book; self.provider = provider; self.makeEmbedder = embedder
    }

    public func run(_ request: SummaryRequest) throws -> SummaryResult {
        let (plans, first, last) = try bounds(request)
        log?("summary: \(plans.count) section(s), pp. \(first)-\(last)")
        if let provider {
            do {
                return try SummaryProvider(self, provider: provider).run(plans, first: first, last: last, recap: request.recap)
            } catch {
                // One warning, then the offline summary: the reader still gets one.
                let message = (error as? IBError)?.message ?? "\(error)"
                warn("\(providerLabel(provider.name)) failed (\(message)); an offline (extractive) summary instead")
            }
        }
        return try offline(plans, first: first, last: last, recap: request.recap, section: isSection(request))
    }

    func isSection(_ request: SummaryRequest) -> Bool {
        if case .section = request.scope { return true }
        return false
    }

    /// The sections to summarise and the pages they may use: never past the reading position.
    func bounds(_ request: SummaryRequest) throws -> ([PlannedSection], Int, Int) {
        let all = try SummaryPlan.sections(library, bookID: book.id)
        guard !all.isEmpty else { throw IBError("'\(book.title)' has no indexed text to summarise") }
        let position = book.currentPage ?? Int.max
        let bookEnd = all.map(\.endPage).max() ?? 1
        var first = 1, last = min(position, bookEnd)
        var chosen = all.filter { !$0.isMatter }
        switch request.scope {
        case .book:
            break
        case .section(let text):
            let section = try SummaryPlan.find(text, in: all)
            guard section.startPage <= position else {
                throw IBError.usage("--section: '\(section.title)' starts on p. \(book.display(section.startPage)), past the reading position (p. \(book.display(position))); --all-pages lifts it")
            }
            chosen = [section]
        case .pages(let a, let b):
            guard a >= 1, b >= a else { throw IBError.usage("--pages: expected A-B with 1 <= A <= B, got \(a)-\(b)") }
            guard b <= position else {
                throw IBError.usage("--pages: p. \(book.display(b)) is past the reading position (p. \(book.display(position))); --all-pages lifts it")
            }
            first = a; last = b
        }
        chosen = chosen.filter { $0.startPage <= last && $0.endPage >= first }
        if request.recap, chosen.isEmpty { throw IBError("nothing read yet in '\(book.title)' to recap (set the page with ib-index set-page)") }
        return (chosen, first, last)
    }

    /// A section's chunks within `first...last`, with their text.
    func bounded(_ plan: PlannedSection, first: Int, last: Int) throws -> BoundedSection {
        let chunks = try library.summaryChunks(bookID: book.id, indices: plan.firstChunk...plan.lastChunk, firstPage: first, lastPage: last)
        return BoundedSection(plan: plan, chunks: chunks.map { SummaryChunkText(index: $0.index, startPage: $0.startPage, endPage: $0.endPage, text: $0.text) })
    }

    // MARK: offline

    /// Sentences per section: more for the section asked for and a recap's last two.
    static func sentenceCount(chunks: Int, section: Bool, detailed: Bool, recap: Bool) -> Int {
        if section { return min(8, max(2, (chunks + 3) / 4)) }
        if recap { return detailed ? min(5, max(2, (chunks + 4) / 5)) : 1 }
        // A whole book is many sections: two sentences for a chapter of 25 chunks keeps it readable,
        // and the encoder's work (the cost of the summary) to a few sentences a page.
        return min(2, max(1, (chunks + 11) / 12))
    }

    func offline(_ plans: [PlannedSection], first: Int, last: Int, recap: Bool, section: Bool) throws -> SummaryResult {
        let embedder = try makeEmbedder()
        var result = SummaryResult()
        result.model = embedder.modelName
        result.upToPage = last
        // The library's chunk vectors, when they are this encoder's, read a batch of sections at a time.
        let sameModel = try library.embeddingModel()?.model == embedder.modelName
        if !sameModel { log?("summary: the library's vectors are not \(embedder.modelName)'s: chunks chosen evenly") }
        var carried = Set<String>()
        var encodedCount = 0, encodingSeconds = 0.0
        var retrieved = Set<Int>()
        var blocks: [String] = []
        var lastChunk: SummaryChunkText?
        // Sections are encoded a batch at a time: the encoder's threads stay busy, memory stays flat.
        let batchSize = 24
        for start in stride(from: 0, to: plans.count, by: batchSize) {
            var batch: [(BoundedSection, SectionCandidates)] = []
            let slice = plans[start..<min(plans.count, start + batchSize)]
            var vectors: [Int: [Float]] = [:]
            if sameModel, let a = slice.first?.firstChunk, let b = slice.last?.lastChunk {
                for entry in try VectorBlocks.read(library.db, bookID: book.id, keys: a...b) where entry.endPage <= last { vectors[entry.key] = entry.vector }
            }
            for (offset, plan) in slice.enumerated() {
                let bounded = try bounded(plan, first: first, last: last)
                let usable = bounded.chunks.filter {
                    !ExtractiveRules.isMatter(Passage(bookID: book.id, chunkIndex: $0.index, startPage: $0.startPage, endPage: $0.endPage, text: $0.text))
                }
                guard !usable.isEmpty else { continue }
                lastChunk = usable.last
                let detailed = start + offset >= plans.count - 2
                let count = Self.sentenceCount(chunks: usable.count, section: section, detailed: detailed, recap: recap)
                // Overlapping chunks repeat sentences only with their neighbours: the keys of
                // the section before are enough (a refrain may come back in a later one).
                var seen = carried
                batch.append((bounded, SummaryExtractive.candidates(usable, vectors: vectors, count: count, seen: &seen)))
                carried = seen.subtracting(carried)
            }
            let texts = batch.flatMap { $0.1.sentences.map(\.text) }
            let started = Timestamp.monotonic()
            let encoded = texts.isEmpty ? [] : try embedder.embed(texts)
            encodedCount += texts.count
            encodingSeconds += Timestamp.monotonic() - started
            var offset = 0
            for (bounded, candidates) in batch {
                let vs = Array(encoded[offset..<(offset + candidates.sentences.count)])
                offset += candidates.sentences.count
                var chosen = SummaryExtractive.choose(candidates, vectors: vs).map { pick -> ChosenSentence in
                    let s = candidates.sentences[pick.sentence], chunk = candidates.targets[s.target].chunk
                    let (a, b) = pages(of: s.text, in: chunk)
                    return ChosenSentence(text: s.text, chunk: chunk.index, order: s.order, startPage: a, endPage: b)
                }
                chosen.sort { ($0.chunk, $0.order) < ($1.chunk, $1.order) }
                guard !chosen.isEmpty else { continue }
                let lines = chosen.map { quote($0) }
                for c in chosen { retrieved.formUnion(c.startPage...c.endPage) }
                // The heading names the pages without the citation's parentheses: it claims nothing.
                let header = heading(bounded) + (bounded.partial ? " (so far)" : "")
                blocks.append(header + "\n" + lines.joined(separator: "\n"))
                result.sections.append(SummarySectionResult(number: bounded.plan.number, title: title(bounded), startPage: bounded.startPage,
                                                            endPage: bounded.endPage, summary: lines.joined(separator: " "),
                                                            partial: bounded.partial, cached: false))
            }
        }
        log?("summary: \(encodedCount) sentences encoded in \(Double(Int(encodingSeconds * 10)) / 10) s (wall) for \(result.sections.count) sections")
        let what = recap ? "recap" : "summary"
        let bound = book.currentPage != nil || first > 1 || last < (plans.last?.endPage ?? last)
            ? (first > 1 ? ", pp. \(book.display(first))-\(book.display(last))" : " up to p. \(book.display(last))") : ""
        var text = Prompts.fill(Prompts.file("summary-offline-intro.md"), ["what": what, "title": book.title, "bound": bound, "model": embedder.modelName]).trimmed
        if blocks.isEmpty { text += "\n\nNothing in the book" + bound + " has whole sentences to quote." }
        text += blocks.isEmpty ? "" : "\n\n" + blocks.joined(separator: "\n\n")
        if recap, let lastChunk {
            let people = try SummaryRecap.people(library, bookID: book.id, lastPage: last)
            if !people.isEmpty {
                text += "\n\nPeople who matter so far: " + people.map { "\($0.name) (\($0.mentions) mentions, first \(book.citation($0.firstPage, $0.firstPage)))" }.joined(separator: "; ") + "."
                for p in people { retrieved.insert(p.firstPage) }
            }
            if let stop = SummaryRecap.lastSentence(lastChunk.text) {
                let (a, b) = pages(of: stop, in: lastChunk)
                retrieved.formUnion(a...b)
                text += "\n\nYou stopped at p. \(book.display(last)): " + quote(ChosenSentence(text: stop, chunk: lastChunk.index, order: 0, startPage: a, endPage: b))
            }
        }
        result.summary = text
        result.citations = Citations.check(text, book: book, retrieved: retrieved)
        return result
    }

    /// A section's title: its own, else the pages it covers within the bound.
    func title(_ section: BoundedSection) -> String {
        guard section.plan.path.isEmpty else { return section.plan.title }
        let a = book.display(section.startPage), b = book.display(section.endPage)
        return a == b ? "Page \(a)" : "Pages \(a)-\(b)"
    }

    /// "3. Title, pp. 3-12" (no parentheses: a heading claims nothing), or "3. Pages 21-30": the
    /// number is the one --section takes.
    func heading(_ section: BoundedSection) -> String {
        "\(section.plan.number). " + (section.plan.path.isEmpty ? title(section) : "\(section.plan.title), \(book.citation(section.startPage, section.endPage))")
    }

    func quote(_ s: ChosenSentence) -> String {
        "“\(s.text.trimmingCharacters(in: "\"“”„«»‘’' "))” (\(book.citation(s.startPage, s.endPage)))"
    }

    /// The page(s) of a sentence inside a chunk, from the page texts.
    func pages(of sentence: String, in chunk: SummaryChunkText) -> (Int, Int) {
        guard chunk.startPage < chunk.endPage else { return (chunk.startPage, chunk.endPage) }
        let words = sentence.split(whereSeparator: \.isWhitespace)
        let head = words.prefix(6).joined(separator: " "), tail = words.suffix(4).joined(separator: " ")
        var start: Int?
        for page in chunk.startPage...chunk.endPage {
            guard let text = try? library.pageText(bookID: book.id, page: page) else { continue }
            let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if start == nil, flat.contains(head) { start = page }
            if let start, flat.contains(tail) { return (start, page) }
        }
        return start.map { ($0, min($0 + 1, chunk.endPage)) } ?? (chunk.startPage, chunk.endPage)
    }
}
