// IBAsk: cited answers about a book from a chat provider (Anthropic,
// OpenAI, Ollama) or none (extractive), with an agent loop over a
// `search_book` tool, spoiler-free retrieval, citation checks and stored
// conversations. ib-ask's main.swift parses arguments and calls `AskCommand`.
import IBCore

/// A retrieved piece of a book.
public struct Passage: Sendable, Equatable {
    public var bookID: String
    public var chunkIndex: Int
    public var startPage: Int
    public var endPage: Int
    public var text: String
    public var score: Double
    /// The section it starts in, outermost first (nil: not known).
    public var section: [String]?

    public init(bookID: String, chunkIndex: Int, startPage: Int, endPage: Int, text: String, score: Double = 0,
                section: [String]? = nil) {
        self.bookID = bookID; self.chunkIndex = chunkIndex; self.startPage = startPage
        self.endPage = endPage; self.text = text; self.score = score; self.section = section
    }

    /// "<book_id>:<index>", as everywhere in ib.
    public var chunkID: String { "\(bookID):\(chunkIndex)" }
}

/// Where passages come from. `maxPage` is the reader's current page: no
/// passage may end after it (nil: the whole book).
public protocol Retriever: AnyObject {
    func search(_ query: String, bookID: String, maxPage: Int?, k: Int) throws -> [Passage]
}

/// Turns sentences into unit vectors (the extractive provider).
public protocol SentenceEmbedder: AnyObject {
    var modelName: String { get }
    func embed(_ texts: [String]) throws -> [[Float]]
}

public struct ToolCall: Sendable, Equatable {
    public var id: String
    public var name: String
    public var arguments: JSON
    public init(id: String, name: String, arguments: JSON) { self.id = id; self.name = name; self.arguments = arguments }
}

public struct ToolResult: Sendable, Equatable {
    public var callID: String
    public var name: String
    public var content: String
}

/// A message in the provider-neutral conversation.
public enum ChatMessage: Sendable, Equatable {
    case user(String)
    case assistant(text: String, toolCalls: [ToolCall])
    case toolResults([ToolResult])
}

public struct ToolSpec: Sendable {
    public var name: String
    public var description: String
    /// JSON Schema of the arguments.
    public var parameters: JSON
}

public enum ToolChoice: Sendable { case auto, none }

public struct ChatRequest: Sendable {
    public var system: String
    public var messages: [ChatMessage]
    public var tools: [ToolSpec]
    public var toolChoice: ToolChoice
    public var maxTokens: Int
}

public struct TokenUsage: Sendable, Equatable {
    public var input: Int = 0
    public var output: Int = 0
    public init(input: Int = 0, output: Int = 0) { self.input = input; self.output = output }
    public static func + (a: TokenUsage, b: TokenUsage) -> TokenUsage { TokenUsage(input: a.input + b.input, output: a.output + b.output) }
}

/// One model response: text and/or tool calls.
public struct ChatTurn: Sendable {
    public var text: String = ""
    public var toolCalls: [ToolCall] = []
    public var usage = TokenUsage()
    public var stopReason: String?
}

/// A chat API. `complete` streams text through `onText` as it arrives.
public protocol ChatProvider: AnyObject {
    var name: String { get }
    var model: String { get }
    var supportsTools: Bool { get }
    func complete(_ request: ChatRequest, onText: (String) throws -> Void) throws -> ChatTurn
}
