// How many of the reader's own rows belong to a book: what `ib-index delete`
// keeps detached, or removes with --purge, and says it did.
import IBCore
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
        [counted(quotes, "quote"), counted(notes, "note"), counted(progressEvents, "progress event"),
         counted(readingStates, "reading state"), counted(conversations, "conversation")]
        .joined(separator: ", ")
    }
}
