// The chat providers as IBSearch's SearchAssistant: --expand asks for searches
// in the book's words (shared/prompts/search-expand.md), --rerank for the
// numbers of the relevant candidates, best first (search-rerank.md). Used by
// `ib-search --expand/--rerank` (through `ib-ask --search`) and by ib-ask
// itself whenever a provider is configured.
import IBCore
import IBSearch

public final class ProviderAssistant: SearchAssistant {
    let provider: ChatProvider
    /// " (\"Title\" by Author)" when the search is about one book, else "".
    let book: String
    /// Passages longer than this are cut for the ranking prompt (characters).
    static let passageLimit = 1_200

    public init(provider: ChatProvider, book: String = "") {
        self.provider = provider
        self.book = book
    }

    public func expand(_ question: String) throws -> [String] {
        let system = Prompts.fill(Prompts.file("search-expand.md"), ["book": book])
        let turn = try provider.complete(ChatRequest(system: system, messages: [.user(question)], tools: [],
                                                     toolChoice: .none, maxTokens: 300), onText: { _ in })
        let searches = Self.searches(in: turn.text)
        guard !searches.isEmpty else { throw IBError("\(provider.name) answered with no search") }
        return searches
    }

    public func rerank(_ question: String, passages: [String]) throws -> [Int] {
        let numbered = passages.enumerated().map { i, text in
            let cut = text.count > Self.passageLimit ? String(text.prefix(Self.passageLimit)) + "…" : text
            return "[\(i + 1)] \(cut)"
        }.joined(separator: "\n\n")
        let prompt = Prompts.fill(Prompts.file("search-rerank.md"), ["question": question, "passages": numbered])
        let turn = try provider.complete(ChatRequest(system: "You rank search results. Reply with numbers only.",
                                                     messages: [.user(prompt)], tools: [], toolChoice: .none,
                                                     maxTokens: 100), onText: { _ in })
        let order = Self.numbers(in: turn.text, count: passages.count)
        guard !order.isEmpty else { throw IBError("\(provider.name) answered with no passage number") }
        return order
    }

    /// The non-empty lines of an answer, without list markers or quotes.
    static func searches(in text: String) -> [String] {
        var out: [String] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let body = line.drop { $0 == "-" || $0 == "*" || $0 == "•" || $0.isNumber || $0 == "." || $0 == ")" || $0 == " " }
            let cleaned = String(body).trimmingCharacters(in: "\"“”'` \t")
            if !cleaned.isEmpty { out.append(cleaned) }
        }
        return out
    }

    /// The 1-based passage numbers in an answer, as 0-based indexes below
    /// `count`, first mention kept.
    static func numbers(in text: String, count: Int) -> [Int] {
        var out: [Int] = []
        for run in text.split(whereSeparator: { !($0.isASCII && $0.isNumber) }) {
            if let n = Int(run), n >= 1, n <= count, !out.contains(n - 1) { out.append(n - 1) }
        }
        return out
    }

    /// For `SearchCommand.run`: the configured provider as an assistant, or nil
    /// with the reason (none configured, a key missing).
    public static func make(_ choice: SearchCommand.AssistantChoice) throws -> (SearchAssistant?, String?) {
        let resolved: Result<ProviderSettings, IBError>
        do {
            resolved = .success(try ProviderSettings.resolve(provider: choice.provider, model: choice.model))
        } catch {
            resolved = .failure(error)
        }
        var settings: ProviderSettings
        switch resolved {
        case .success(let s): settings = s
        case .failure(let error):
            if error.code == .usage { throw error }
            return (nil, "--expand/--rerank: \(error.message)")
        }
        settings.timeout = choice.timeout
        settings.maxRetries = 1
        guard let provider = settings.makeProvider() else {
            return (nil, "--expand/--rerank need a provider (ANTHROPIC_API_KEY, OPENAI_API_KEY, or --provider ollama)")
        }
        return (ProviderAssistant(provider: provider), nil)
    }
}
