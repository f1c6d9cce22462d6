// ib-ask's conversations: the `conversations` and `chat_messages` tables.
// What a message means (a question, a search's results, an answer) is ib-ask's
// business; the store keeps rows and writes a turn's rows in one transaction.

/// A conversation as listed: its book, title and how many messages it has.
public struct ConversationSummary: Sendable, Equatable {
    public var id: String
    public var bookID: String
    public var bookTitle: String
    public var title: String
    public var createdAt: String
    public var messageCount: Int
    public init(id: String, bookID: String, bookTitle: String, title: String, createdAt: String, messageCount: Int) {
        self.id = id; self.bookID = bookID; self.bookTitle = bookTitle; self.title = title
        self.createdAt = createdAt; self.messageCount = messageCount
    }
}

/// One stored message: its id, its role (user, tool_result, assistant) and content.
public struct ChatMessageRow: Sendable, Equatable {
    public var id: String
    public var role: String
    public var content: String
    public init(id: String, role: String, content: String) { self.id = id; self.role = role; self.content = content }
}

/// The conversation tables of one library connection.
public struct ConversationTables {
    let db: Database
    public init(_ db: Database) { self.db = db }

    /// Conversations (of one book, or all), the one with the latest message first.
    public func list(bookID: String?, limit: Int) throws -> [ConversationSummary] {
        let sql = """
            SELECT c.id, c.book_id, b.title AS book_title, c.title, c.created_at,
                   (SELECT count(*) FROM chat_messages m WHERE m.conversation_id = c.id) AS n,
                   COALESCE((SELECT max(m.rowid) FROM chat_messages m WHERE m.conversation_id = c.id), 0) AS last
            FROM conversations c JOIN books b ON b.id = c.book_id
            \(bookID == nil ? "" : "WHERE c.book_id = ?")
            ORDER BY last DESC, c.created_at DESC, c.rowid DESC LIMIT \(limit)
            """
        let rows = try bookID.map { try db.query(sql, $0) } ?? db.query(sql)
        return rows.map {
            ConversationSummary(id: $0.text("id") ?? "", bookID: $0.text("book_id") ?? "", bookTitle: $0.text("book_title") ?? "",
                                title: $0.text("title") ?? "", createdAt: $0.text("created_at") ?? "", messageCount: $0.int("n") ?? 0)
        }
    }

    /// A conversation's messages as (role, content), oldest first.
    public func messages(of conversationID: String) throws -> [(role: String, content: String)] {
        try db.query("SELECT role, content FROM chat_messages WHERE conversation_id = ? ORDER BY created_at, rowid", conversationID).map {
            ($0.text("role") ?? "", $0.text("content") ?? "")
        }
    }

    /// Writes `messages` in one transaction, all stamped `createdAt`; first
    /// creates the conversation of `bookID` when `newTitle` is given.
    public func append(_ messages: [ChatMessageRow], conversationID: String, bookID: String, newTitle: String?, createdAt: String) throws {
        try db.write {
            if let newTitle {
                try db.run("INSERT INTO conversations (id, book_id, title, created_at) VALUES (?, ?, ?, ?)",
                           conversationID, bookID, newTitle, createdAt)
            }
            for message in messages {
                try db.run("INSERT INTO chat_messages (id, conversation_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
                           message.id, conversationID, message.role, message.content, createdAt)
            }
        }
    }
}
