// Conversations, kept by IBStore in the `conversations` and `chat_messages` tables.
// A turn is stored as: the user's question, one `tool_result` message per
// search (JSON: query, max_page, passages), the assistant's answer — all in
// one transaction once the answer is complete, so a failure leaves nothing
// half-written. API keys never reach these tables.
import IBCore
import IBStore

public struct StoredSearch: Sendable, Equatable {
    public var query: String
    public var maxPage: Int?
    public var passages: [Passage]

    public var json: JSON {
        ["query": .string(query), "max_page": maxPage.map { .number(Double($0)) } ?? .null,
         "passages": .array(passages.map {
             ["chunk": .string($0.chunkID), "book_id": .string($0.bookID), "index": .number(Double($0.chunkIndex)),
              "start_page": .number(Double($0.startPage)), "end_page": .number(Double($0.endPage)), "text": .string($0.text)]
         })]
    }

    public init(query: String, maxPage: Int?, passages: [Passage]) {
        self.query = query; self.maxPage = maxPage; self.passages = passages
    }

    init?(json: JSON) {
        guard let query = json["query"]?.stringValue else { return nil }
        self.query = query
        self.maxPage = json["max_page"]?.intValue
        self.passages = (json["passages"]?.arrayValue ?? []).compactMap { p in
            guard let book = p["book_id"]?.stringValue, let index = p["index"]?.intValue,
                  let start = p["start_page"]?.intValue, let end = p["end_page"]?.intValue,
                  let text = p["text"]?.stringValue else { return nil }
            return Passage(bookID: book, chunkIndex: index, startPage: start, endPage: end, text: text)
        }
    }
}

/// One question and its answer, with the searches made for it.
public struct Turn: Sendable, Equatable {
    public var question: String
    public var searches: [StoredSearch]
    public var answer: String
    public init(question: String, searches: [StoredSearch], answer: String) {
        self.question = question; self.searches = searches; self.answer = answer
    }
}

/// A conversation as listed (IBStore's row).
public typealias ConversationInfo = ConversationSummary

public final class ConversationStore {
    let tables: ConversationTables
    public init(_ db: Database) { tables = ConversationTables(db) }

    /// A new random id: 16 hex characters.
    public static func newID() -> String {
        var out = ""
        for _ in 0..<2 { out += String(UInt32.random(in: .min ... .max), radix: 16).leftPadded(8) }
        return out
    }

    /// A title from the first question: one line, at most 60 characters, cut at a word.
    public static func title(from question: String) -> String {
        let line = question.split(whereSeparator: { $0.isNewline }).first.map(String.init)?.trimmed ?? ""
        let words = line.split(separator: " ")
        var title = ""
        for word in words {
            if title.count + word.count + 1 > 60 { break }
            title += (title.isEmpty ? "" : " ") + word
        }
        if title.isEmpty { title = String(line.prefix(60)) }
        if title.count < line.count { title += "…" }
        return title.isEmpty ? "Untitled" : title
    }

    /// Most recent conversation (optionally of one book).
    public func latest(bookID: String? = nil) throws -> ConversationInfo? {
        try list(bookID: bookID, limit: 1).first
    }

    public func list(bookID: String? = nil, limit: Int = 1000) throws -> [ConversationInfo] {
        try tables.list(bookID: bookID, limit: limit)
    }

    /// A conversation by id or unique id prefix.
    public func find(_ id: String) throws -> ConversationInfo {
        let all = try list()
        if let exact = all.first(where: { $0.id == id }) { return exact }
        let prefixed = all.filter { $0.id.hasPrefix(id) }
        if prefixed.count == 1 { return prefixed[0] }
        if prefixed.count > 1 { throw IBError("conversation '\(id)' is ambiguous: \(prefixed.map(\.id).joined(separator: ", "))", code: .ambiguous) }
        throw IBError("no conversation '\(id)' (see ib-ask --list)")
    }

    /// The turns of a conversation, oldest first.
    public func turns(_ conversationID: String) throws -> [Turn] {
        var turns: [Turn] = []
        var current: Turn?
        for (role, content) in try tables.messages(of: conversationID) {
            switch role {
            case "user":
                if let c = current { turns.append(c) }
                current = Turn(question: content, searches: [], answer: "")
            case "tool_result":
                if let json = try? JSON.parse(content), let search = StoredSearch(json: json) { current?.searches.append(search) }
            case "assistant":
                current?.answer = content
                if let c = current { turns.append(c) }
                current = nil
            default: break
            }
        }
        // A question without an answer (written by another tool) is not replayed.
        return turns
    }

    /// Writes one complete turn in one transaction; creates the conversation
    /// (titled from the question) when `conversationID` is new.
    public func append(_ turn: Turn, conversationID: String, bookID: String, create: Bool) throws {
        var messages = [ChatMessageRow(id: Self.newID(), role: "user", content: turn.question)]
        for search in turn.searches {
            messages.append(ChatMessageRow(id: Self.newID(), role: "tool_result", content: search.json.serialized))
        }
        messages.append(ChatMessageRow(id: Self.newID(), role: "assistant", content: turn.answer))
        try tables.append(messages, conversationID: conversationID, bookID: bookID,
                          newTitle: create ? Self.title(from: turn.question) : nil,
                          createdAt: Timestamp.iso8601(fractional: true))
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// The history a model sees: the latest turns that fit the budget. Stored
/// search results count toward the budget (they are replayed with their turn).
public struct HistoryWindow {
    public var maxTurns: Int = 8
    /// Characters (about 4 per token).
    public var maxCharacters: Int = 24_000

    public init(maxTurns: Int = 8, maxCharacters: Int = 24_000) {
        self.maxTurns = maxTurns; self.maxCharacters = maxCharacters
    }

    public func select(_ turns: [Turn], book: BookContext) -> [Turn] {
        var kept: [Turn] = []
        var used = 0
        for turn in turns.reversed() {
            if kept.count >= maxTurns { break }
            let size = HistoryWindow.render(turn, book: book).count + turn.answer.count
            if used + size > maxCharacters { break }
            used += size
            kept.append(turn)
        }
        return kept.reversed()
    }

    /// The user message a past turn is replayed as: its search results, then the question.
    public static func render(_ turn: Turn, book: BookContext) -> String {
        let passages = turn.searches.flatMap(\.passages)
        guard !passages.isEmpty else { return turn.question }
        return "Passages retrieved for this question earlier:\n\n" + Prompts.formatPassages(passages, book: book)
            + "\n\nQuestion: " + turn.question
    }

    /// Provider messages for the windowed history.
    public static func messages(_ turns: [Turn], book: BookContext) -> [ChatMessage] {
        turns.flatMap { [ChatMessage.user(render($0, book: book)), .assistant(text: $0.answer, toolCalls: [])] }
    }
}
