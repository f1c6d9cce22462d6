// How many of the reader's own rows belong to a book: what `ib-index delete`
// keeps detached, or removes with --purge, and says it did.

public struct ReaderWordCounts: Sendable, Equatable {
    public var quotes = 0
    public var notes = 0
    public var progressEvents = 0
    public var readingStates = 0
    public var conversations = 0

    public init(quotes: Int = 0, notes: Int = 0, progressEvents: Int = 0, readingStates: Int = 0, conversations: Int = 0) {
        self.quotes = quotes; self.notes = notes; self.progressEvents = progressEvents
        self.readingStates = readingStates; self.conversations = conversations
    }

    public var total: Int { quotes + notes + progressEvents + readingStates + conversations }

    /// "3 quotes, 1 note, 0 progress events, 1 reading state, 0 conversations"
    public var description: String {
        func n(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
        return [n(quotes, "quote", "quotes"), n(notes, "note", "notes"), n(progressEvents, "progress event", "progress events"),
                n(readingStates, "reading state", "reading states"), n(conversations, "conversation", "conversations")]
            .joined(separator: ", ")
    }
}
