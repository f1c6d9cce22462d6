// A provider's summary, map-reduce: each section summarised from its chunks
// (only those ending by the reading position), then the section summaries
// combined (in groups of `fanIn`, then again, for a long book). Every result is
// kept in the library under a digest of (book, kind, model, prompt, input), so
// the same call again sends nothing, and a later position re-sends only the
// sections that grew or are new, and the combination.
import IBCore
import IBStore

struct SummaryProvider {
    let summarizer: Summarizer
    let provider: ChatProvider
    static let fanIn = 30

    init(_ summarizer: Summarizer, provider: ChatProvider) { self.summarizer = summarizer; self.provider = provider }

    var book: BookContext { summarizer.book }
    var library: Library { summarizer.library }

    /// A summary of `text` under `kind`: from the library, else from the provider (and then kept).
    func summary(kind: String, prompt: String, input: String, title: String, section: Int, pages: ClosedRange<Int>, chunks: ClosedRange<Int>,
                 retrieved: Set<Int>, result: inout SummaryResult) throws -> (text: String, cached: Bool) {
        let system = Prompts.fill(Prompts.file("summarize-system.md"), Prompts.bookValues(book))
        // The prompt as written, not as filled: the reading position in the system prompt
        // changes nothing in a section that ends before it, so it must not miss the cache.
        let promptDigest = SHA256.hex(Prompts.file("summarize-system.md") + "\u{1}" + prompt)
        let id = SHA256.hex([book.id, kind, provider.name, provider.model, promptDigest, SHA256.hex(input)].joined(separator: "\u{1}"))
        if let stored = try library.storedSummary(id: id) {
            summarizer.log?("summary: \(kind) '\(title)' from the library")
            return (stored.summary, true)
        }
        let request = ChatRequest(system: system, messages: [.user(input)], tools: [], toolChoice: .auto, maxTokens: summarizer.maxTokens)
        let turn = try provider.complete(request) { _ in }
        result.calls += 1
        let text = turn.text.trimmed
        guard !text.isEmpty else { throw IBError("\(providerLabel(provider.name)) returned an empty summary", code: .provider) }
        summarizer.log?("summary: \(kind) '\(title)': \(turn.usage.input) tokens in, \(turn.usage.output) out")
        let citations = Citations.check(text, book: book, retrieved: retrieved)
        if !library.db.isReadOnly {
            try library.storeSummary(id: id, bookID: book.id, kind: kind, title: title, sectionIndex: section, pages: pages, chunks: chunks,
                                     model: provider.name + "/" + provider.model, prompt: promptDigest, summary: text,
                                     citations: JSON.array(citations.map(\.json)).serialized)
        }
        return (text, false)
    }

    func run(_ plans: [PlannedSection], first: Int, last: Int, recap: Bool) throws -> SummaryResult {
        var result = SummaryResult()
        result.provider = provider.name
        result.model = provider.model
        result.usedLanguageModel = true
        result.upToPage = last
        var allPages = Set<Int>()
        var parts: [Part] = []
        var lastPassage: SummaryChunkText?
        for plan in plans {
            let section = try summarizer.bounded(plan, first: first, last: last)
            guard let a = section.chunks.first, let b = section.chunks.last else { continue }
            lastPassage = b
            let pages = section.pages
            allPages.formUnion(pages)
            let passages = section.chunks.map { Passage(bookID: book.id, chunkIndex: $0.index, startPage: $0.startPage, endPage: $0.endPage, text: $0.text) }
            let title = summarizer.title(section)
            let template = Prompts.file("summarize-section.md")
            let input = Prompts.fill(template, ["section": title, "length": "three to six sentences",
                                                "passages": Prompts.formatPassages(passages, book: book)])
            let (text, cached) = try summary(kind: "section", prompt: template, input: input, title: title, section: plan.number,
                                             pages: section.startPage...section.endPage, chunks: a.index...b.index, retrieved: pages, result: &result)
            result.sections.append(SummarySectionResult(number: plan.number, title: title, startPage: section.startPage, endPage: section.endPage,
                                                        summary: text, partial: section.partial, cached: cached))
            parts.append((title, section.startPage...section.endPage, a.index...b.index, text))
        }
        guard !parts.isEmpty else { throw IBError("nothing in '\(book.title)' up to p. \(book.display(last)) to summarise") }
        var text: String
        if recap {
            text = try combine(parts, recap: lastPassage, retrieved: allPages, result: &result)
        } else if parts.count == 1 {
            text = parts[0].text
        } else {
            // A long book: groups of fanIn, then their summaries, until one is left.
            var level = parts
            while level.count > 1 {
                var next: [Part] = []
                for start in stride(from: 0, to: level.count, by: Self.fanIn) {
                    let group = Array(level[start..<min(level.count, start + Self.fanIn)])
                    if group.count == 1 { next.append(group[0]); continue }
                    let combined = try combine(group, recap: nil, retrieved: allPages, result: &result)
                    next.append(("\(group[0].title) to \(group[group.count - 1].title)",
                                 group[0].pages.lowerBound...group[group.count - 1].pages.upperBound,
                                 group[0].chunks.lowerBound...group[group.count - 1].chunks.upperBound, combined))
                }
                level = next
            }
            text = level[0].text
        }
        result.summary = text
        result.citations = Citations.check(text, book: book, retrieved: allPages)
        result.cached = result.calls == 0
        return result
    }

    typealias Part = (title: String, pages: ClosedRange<Int>, chunks: ClosedRange<Int>, text: String)

    /// One summary of several: the book so far, or (with the last passage) a recap.
    func combine(_ group: [Part], recap last: SummaryChunkText?, retrieved: Set<Int>, result: inout SummaryResult) throws -> String {
        let summaries = group.map { "## \($0.title) (\(book.citation($0.pages.lowerBound, $0.pages.upperBound)))\n\($0.text)" }.joined(separator: "\n\n")
        let kind = last == nil ? "book" : "recap"
        let template = Prompts.file(last == nil ? "summarize-combine.md" : "summarize-recap.md")
        var values = ["summaries": summaries, "length": "two to four paragraphs"]
        if let last {
            values["page"] = book.display(group[group.count - 1].pages.upperBound)
            values["passage"] = "(\(book.citation(last.startPage, last.endPage)))\n\(last.text)"
        }
        let pages = group[0].pages.lowerBound...group[group.count - 1].pages.upperBound
        let chunks = group[0].chunks.lowerBound...group[group.count - 1].chunks.upperBound
        return try summary(kind: kind, prompt: template, input: Prompts.fill(template, values), title: book.title, section: -1,
                           pages: pages, chunks: chunks, retrieved: retrieved, result: &result).text
    }
}
