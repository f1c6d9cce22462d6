// One question, answered: the agent loop for providers with tools, retrieve-
// then-answer for providers without, the extractive answer for no provider.
// Every search is bounded by the reader's page; citations are checked
// against the pages actually retrieved.
import IBCore

public struct AskResult: Sendable {
    public var answer: String
    public var citations: [Citation]
    /// The passages this turn retrieved (deduplicated, in retrieval order).
    public var sources: [Passage]
    public var searches: [StoredSearch]
    public var usage: TokenUsage
    /// Model calls made.
    public var calls: Int
    public var provider: String
    public var model: String
    /// False when the offline answer found nothing close enough to answer
    /// and showed the nearest passages instead.
    public var answered = true

    public var unsupported: [Citation] { citations.filter { !$0.supported } }
}

public final class Asker {
    public let book: BookContext
    public let provider: ChatProvider?
    private let makeRetriever: () throws -> Retriever
    private var retrieverInstance: Retriever?
    private let makeEmbedder: () throws -> SentenceEmbedder
    private var embedderInstance: SentenceEmbedder?
    /// Sentences embedded by earlier questions of this session (a book's
    /// questions meet the same passages again): a text's vector does not depend
    /// on what it was embedded with, so a kept one is the one embedding gives.
    private var sentenceVectors: [String: [Float]] = [:]
    static let keptSentences = 8192   // ~12 MB of 384-dimension vectors
    /// Physical page texts, for placing an extractive sentence on its page.
    public var pageText: ((Int) -> String?)?

    public var maxRounds = 3
    public var k = 6
    public var maxTokens = 1024
    public var window = HistoryWindow()
    /// Verbose diagnostics (never given secrets).
    public var log: ((String) -> Void)?
    /// Falls back to retrieve-then-answer when the model refuses tools.
    private var toolsRefused = false

    public init(book: BookContext, provider: ChatProvider?, retriever: @escaping () throws -> Retriever,
                embedder: @escaping () throws -> SentenceEmbedder = { throw IBError("no sentence encoder") }) {
        self.book = book; self.provider = provider; self.makeRetriever = retriever; self.makeEmbedder = embedder
    }

    func retriever() throws -> Retriever {
        if let r = retrieverInstance { return r }
        let r = try makeRetriever()
        retrieverInstance = r
        return r
    }

    /// Searches the book up to the reader's page.
    func search(_ query: String, k: Int) throws -> StoredSearch {
        let limit = book.currentPage
        let found = try retriever().search(query, bookID: book.id, maxPage: limit, k: k)
        // Defence in depth: nothing past the page, whatever the retriever did.
        let passages = found.filter { $0.bookID == book.id && (limit == nil || $0.endPage <= limit!) }
        log?("search_book(\"\(query)\", k: \(k))" + (limit.map { " up to p. \(book.display($0))" } ?? "") + " -> "
             + (passages.isEmpty ? "nothing" : passages.map { book.citation($0.startPage, $0.endPage) }.joined(separator: ", ")))
        return StoredSearch(query: query, maxPage: limit, passages: passages)
    }

    /// Answers `question` given the conversation so far. `onText` receives the
    /// answer as it streams (the extractive answer arrives in one piece).
    public func ask(_ question: String, history: [Turn], onText: (String) throws -> Void) throws -> AskResult {
        // Earlier turns that saw pages past the reader's current page (asked
        // with a later --page, or before the position moved back) stay out of
        // the prompt: their passages and answers could spoil.
        var safe = history
        if let page = book.currentPage {
            safe = history.filter { turn in turn.searches.allSatisfy { $0.maxPage != nil && $0.maxPage! <= page } }
            if safe.count < history.count {
                log?("history: \(history.count - safe.count) earlier turn(s) saw pages past p. \(book.display(page)) and are left out")
            }
        }
        let window = self.window.select(safe, book: book)
        if window.count < safe.count { log?("history: \(window.count) of \(safe.count) earlier turns fit the window") }
        var result: AskResult
        if let provider {
            if provider.supportsTools && !toolsRefused {
                do {
                    result = try agent(provider, question: question, history: window, onText: onText)
                } catch is ToolsUnsupported {
                    log?("\(provider.model) does not support tools: retrieving first instead")
                    toolsRefused = true
                    result = try retrieveThenAnswer(provider, question: question, history: window, onText: onText)
                }
            } else {
                result = try retrieveThenAnswer(provider, question: question, history: window, onText: onText)
            }
        } else {
            result = try extractive(question, onText: onText)
        }
        // Citations may point at pages retrieved this turn or replayed from the window.
        var retrieved = Set<Int>()
        for p in result.searches.flatMap(\.passages) + window.flatMap({ $0.searches.flatMap(\.passages) }) {
            retrieved.formUnion(p.startPage...p.endPage)
        }
        result.citations = Citations.check(result.answer, book: book, retrieved: retrieved)
        log?("tokens: \(result.usage.input) in, \(result.usage.output) out (\(result.calls) call\(result.calls == 1 ? "" : "s"))")
        return result
    }

    private func newResult(_ provider: ChatProvider?) -> AskResult {
        AskResult(answer: "", citations: [], sources: [], searches: [], usage: TokenUsage(), calls: 0,
                  provider: provider?.name ?? "extractive", model: provider?.model ?? "")
    }

    private func addSources(_ search: StoredSearch, to result: inout AskResult) {
        result.searches.append(search)
        for p in search.passages where !result.sources.contains(where: { $0.chunkID == p.chunkID }) {
            result.sources.append(p)
        }
    }

    // MARK: agent loop

    func agent(_ provider: ChatProvider, question: String, history: [Turn], onText: (String) throws -> Void) throws -> AskResult {
        var result = newResult(provider)
        let system = Prompts.system(tools: true, book: book)
        var messages = HistoryWindow.messages(history, book: book) + [.user(question)]
        var round = 0
        var printedText = false
        func stream(_ text: String) throws {
            if !text.isEmpty { printedText = true }
            try onText(text)
        }
        while true {
            let last = round >= maxRounds
            if last { log?("round limit (\(maxRounds)) reached: asking for the answer without further searches") }
            // The final call keeps the tool definitions (the history holds tool
            // calls) and forbids new calls with tool_choice none.
            if printedText { try onText("\n\n") ; printedText = false }
            let request = ChatRequest(system: system, messages: messages, tools: [Prompts.searchTool],
                                      toolChoice: last ? .none : .auto, maxTokens: maxTokens)
            let turn = try provider.complete(request, onText: stream)
            result.calls += 1
            result.usage = result.usage + turn.usage
            log?("call \(result.calls): \(turn.usage.input) tokens in, \(turn.usage.output) out, stop: \(turn.stopReason ?? "?")")
            if !turn.text.isEmpty {
                result.answer += (result.answer.isEmpty ? "" : "\n\n") + turn.text
            }
            if turn.toolCalls.isEmpty || last {
                if last && !turn.toolCalls.isEmpty { log?("ignoring \(turn.toolCalls.count) tool call(s) after the round limit") }
                break
            }
            round += 1
            var results: [ToolResult] = []
            for call in turn.toolCalls {
                log?("tool call: \(call.name)(\(call.arguments.serialized))")
                results.append(ToolResult(callID: call.id, name: call.name, content: try runTool(call, result: &result)))
            }
            messages.append(.assistant(text: turn.text, toolCalls: turn.toolCalls))
            messages.append(.toolResults(results))
        }
        result.answer = result.answer.trimmed
        return result
    }

    func runTool(_ call: ToolCall, result: inout AskResult) throws -> String {
        guard call.name == Prompts.searchTool.name else {
            return "error: unknown tool '\(call.name)'; the only tool is search_book"
        }
        guard let query = call.arguments["query"]?.stringValue?.trimmed, !query.isEmpty else {
            return "error: search_book needs a non-empty \"query\" string"
        }
        let k = min(10, max(1, call.arguments["k"]?.intValue ?? self.k))
        let search = try search(query, k: k)
        addSources(search, to: &result)
        guard !search.passages.isEmpty else {
            return "No passages found" + (book.currentPage.map { " up to page \(book.display($0))" } ?? "") + " for \"\(query)\"."
        }
        return Prompts.formatPassages(search.passages, book: book)
    }

    // MARK: without tools

    func retrieveThenAnswer(_ provider: ChatProvider, question: String, history: [Turn], onText: (String) throws -> Void) throws -> AskResult {
        var result = newResult(provider)
        var query = question
        if !history.isEmpty {
            var context = ""
            for turn in history.suffix(3) {
                context += "Reader: \(turn.question)\nAnswer: \(String(turn.answer.prefix(600)))\n\n"
            }
            let request = ChatRequest(system: Prompts.rewrite(book: book),
                                      messages: [.user(context + "Follow-up question: " + question)],
                                      tools: [], toolChoice: .auto, maxTokens: 100)
            let turn = try provider.complete(request) { _ in }
            result.calls += 1
            result.usage = result.usage + turn.usage
            let line = turn.text.split(whereSeparator: \.isNewline).map { String($0).trimmed }.first { !$0.isEmpty } ?? ""
            let cleaned = line.trimmingCharacters(in: "\"'“”` ")
            if !cleaned.isEmpty { query = cleaned }
            log?("standalone query: \(query)")
        }
        let search = try search(query, k: k)
        addSources(search, to: &result)
        let messages = HistoryWindow.messages(history, book: book)
            + [.user(Prompts.withPassages(search.passages, question: question, book: book))]
        let turn = try provider.complete(ChatRequest(system: Prompts.system(tools: false, book: book), messages: messages,
                                                     tools: [], toolChoice: .auto, maxTokens: maxTokens), onText: onText)
        result.calls += 1
        result.usage = result.usage + turn.usage
        log?("call \(result.calls): \(turn.usage.input) tokens in, \(turn.usage.output) out, stop: \(turn.stopReason ?? "?")")
        result.answer = turn.text.trimmed
        return result
    }

    // MARK: extractive

    func embedder() throws -> SentenceEmbedder {
        if let e = embedderInstance { return e }
        let e = try makeEmbedder()
        embedderInstance = e
        return e
    }

    /// `texts`' vectors, embedding only those no earlier question of the session embedded.
    func embedKeeping(_ texts: [String], _ encoder: SentenceEmbedder) throws -> [[Float]] {
        var missing: [String] = []
        var asked = Set<String>()
        for text in texts where sentenceVectors[text] == nil && asked.insert(text).inserted { missing.append(text) }
        let made = missing.isEmpty ? [] : try encoder.embed(missing)
        guard made.count == missing.count else { throw IBError("the encoder gave \(made.count) vectors for \(missing.count) sentences") }
        let fresh = Dictionary(zip(missing, made), uniquingKeysWith: { a, _ in a })
        let out = texts.map { sentenceVectors[$0] ?? fresh[$0]! }
        if sentenceVectors.count + missing.count > Self.keptSentences { sentenceVectors = [:] }
        sentenceVectors.merge(fresh, uniquingKeysWith: { a, _ in a })
        return out
    }

    func extractive(_ question: String, onText: (String) throws -> Void) throws -> AskResult {
        var result = newResult(nil)
        let search = try search(question, k: max(k, 5))
        addSources(search, to: &result)
        let encoder = try embedder()
        result.model = encoder.modelName
        let upTo = book.currentPage.map { " up to page \(book.display($0))" } ?? ""
        // Front and back matter (cast lists, contents, licences) is not the book's text.
        let usable = search.passages.indices.filter { !ExtractiveRules.isMatter(search.passages[$0]) }
        if usable.count < search.passages.count { log?("extractive: \(search.passages.count - usable.count) passage(s) of front or back matter left out") }
        var candidates: [(sentence: String, passage: Int, order: Int)] = []
        var seen = Set<String>()
        for i in usable {
            // Overlapping chunks repeat sentences: keep each once.
            for (j, s) in Sentences.split(search.passages[i].text).enumerated()
            where s.count >= 12 && ExtractiveRules.isQuotable(s) && seen.insert(ExtractiveRules.key(s)).inserted {
                candidates.append((s, i, j))
            }
        }
        guard !candidates.isEmpty else {
            result.answered = false
            result.answer = Prompts.extractiveIntro + "\nNothing in the book\(upTo) matches the question."
            try onText(result.answer)
            return result
        }
        let vectors = try embedKeeping([question] + candidates.map(\.sentence), encoder)
        let q = vectors[0]
        var scored: [(index: Int, score: Float)] = []
        for i in candidates.indices {
            let v = vectors[i + 1]
            var dot: Float = 0
            for d in 0..<min(q.count, v.count) { dot += q[d] * v[d] }
            // An answer states something: a question or a fragment echoes the
            // question more than it answers it.
            let sentence = candidates[i].sentence.trimmingCharacters(in: "\"“”‘’' ")
            if sentence.hasSuffix("?") || sentence.hasSuffix("？") { dot -= 0.15 }
            if sentence.count < 40 { dot -= 0.05 }
            // The search's ranking counts too: a sentence of the best-ranked passage
            // beats a slightly closer one from the fifth (long-book set, tuning
            // part: the answer holds the passage 0.50 -> 0.55; 0.2 gave 0.52).
            dot += 0.1 / Float(1 + candidates[i].passage)
            scored.append((i, dot))
        }
        scored.sort { $0.score > $1.score }
        let best = scored[0].score
        log?("extractive: best sentence similarity \(String(best))")
        guard best >= ExtractiveRules.weakBelow else {
            result.answered = false
            result.answer = weakAnswer(best, passages: usable.prefix(3).map { search.passages[$0] }, upTo: upTo)
            try onText(result.answer)
            return result
        }
        var picked: [(index: Int, key: String)] = []
        for s in scored where s.index == scored[0].index || (picked.count < 3 && s.score >= best - 0.08 && s.score > 0.2) {
            ExtractiveRules.pick(s.index, key: ExtractiveRules.key(candidates[s.index].sentence), into: &picked)
        }
        var chosen = picked.map(\.index)
        // In book order, each with its page.
        chosen.sort {
            let a = search.passages[candidates[$0].passage], b = search.passages[candidates[$1].passage]
            return (a.chunkIndex, candidates[$0].order) < (b.chunkIndex, candidates[$1].order)
        }
        var lines: [String] = []
        for c in chosen {
            let candidate = candidates[c]
            let passage = search.passages[candidate.passage]
            let (start, end) = pages(of: candidate.sentence, in: passage)
            // Stray quotes of the dialogue around it would double up with ours.
            let quoted = candidate.sentence.trimmingCharacters(in: "\"“”„«»‘’' ")
            lines.append("“\(quoted)” (\(book.citation(start, end)))")
        }
        result.answer = Prompts.extractiveIntro + "\n" + lines.joined(separator: "\n")
        try onText(result.answer)
        return result
    }

    /// No answer: says so, with the score and the rule, and shows the nearest
    /// passages (the start of each) for the reader to judge.
    func weakAnswer(_ best: Float, passages: [Passage], upTo: String) -> String {
        let score = String(Double(Int((best * 100).rounded())) / 100)
        var text = "No offline answer: nothing in the book\(upTo) answers the question closely enough "
            + "(best sentence \(score), an answer needs \(ExtractiveRules.weakBelowText)). "
            + "The passages nearest the question:"
        for p in passages {
            let flat = p.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            text += "\n(\(book.citation(p.startPage, p.endPage))) " + (flat.count > 300 ? String(flat.prefix(300)) + "…" : flat)
        }
        return text
    }

    /// The page(s) of a sentence inside a passage: found in the page texts
    /// when they are available, else the passage's range.
    func pages(of sentence: String, in passage: Passage) -> (Int, Int) {
        guard passage.startPage < passage.endPage, let pageText else { return (passage.startPage, passage.endPage) }
        let probe = String(sentence.prefix(40))
        for page in passage.startPage...passage.endPage {
            if let text = pageText(page), text.contains(probe) {
                let tail = String(sentence.suffix(30))
                if text.contains(tail) { return (page, page) }
                return (page, min(page + 1, passage.endPage))
            }
        }
        return (passage.startPage, passage.endPage)
    }
}

/// Sentence splitting for extractive answers: ends at . ! ? … and their CJK
/// forms when followed by a space, a quote or the end; blank lines also end one.
enum Sentences {
    static func split(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        let chars = Array(text)
        var i = 0
        func flush() {
            let s = current.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            if !s.isEmpty { out.append(s) }
            current = ""
        }
        while i < chars.count {
            let c = chars[i]
            current.append(c)
            if "。！？".contains(c) {
                flush()
            } else if ".!?…".contains(c) {
                var j = i + 1
                while j < chars.count, "\"'”’)]".contains(chars[j]) { current.append(chars[j]); j += 1 }
                if j >= chars.count || chars[j].isWhitespace {
                    // Not after a lone initial or a common abbreviation.
                    let words = current.split(separator: " ")
                    let lastWord = words.last.map(String.init) ?? ""
                    let abbreviations: Set<String> = ["Mr.", "Mrs.", "Ms.", "Dr.", "St.", "p.", "pp.", "e.g.", "i.e.", "cf.", "vs.", "No."]
                    if !(lastWord.count == 2 && lastWord.first!.isUppercase) && !abbreviations.contains(lastWord) { flush() }
                }
                i = j
                continue
            } else if c == "\n", i + 1 < chars.count, chars[i + 1] == "\n" {
                flush()
            }
            i += 1
        }
        flush()
        return out.map { $0.count > 400 ? String($0.prefix(400)) + "…" : $0 }
    }
}
