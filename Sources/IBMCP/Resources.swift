// The resources: ib://status (ib-capture status --json's versioned report)
// and ib://book/ID for each book (ib-index show's record and the table of
// contents with page ranges). Both are JSON.
import IBCore

enum Resources {
    static let statusURI = "ib://status"
    static let bookPrefix = "ib://book/"

    static func list(_ access: LibraryAccess) throws -> JSON {
        var resources: [JSON] = [[
            "uri": .string(statusURI), "name": "status", "title": "Reading status",
            "description": "The reading status: current book and page, pages today, streak, quote of the day, latest note, plans (the JSON of ib-capture status --json)",
            "mimeType": "application/json",
        ]]
        for book in try access.books() {
            var description = "'\(book.title)'"
            if !book.authors.isEmpty { description += " by " + book.authors.joined(separator: ", ") }
            description += ": metadata and table of contents with page ranges"
            resources.append(["uri": .string(bookPrefix + book.id), "name": .string("book-" + book.id), "title": .string(book.title),
                              "description": .string(description), "mimeType": "application/json"])
        }
        return ["resources": .array(resources)]
    }

    static func templates() -> JSON {
        ["resourceTemplates": [[
            "uriTemplate": .string(bookPrefix + "{id}"), "name": "book", "title": "A book",
            "description": "A book's metadata and table of contents with page ranges, by id",
            "mimeType": "application/json",
        ]]]
    }

    static func read(_ uri: String, _ access: LibraryAccess) throws -> JSON {
        let body: JSON
        if uri == statusURI {
            body = try access.status()
        } else if uri.hasPrefix(bookPrefix), !uri.dropFirst(bookPrefix.count).isEmpty {
            let id = String(uri.dropFirst(bookPrefix.count))
            guard let book = try access.books().first(where: { $0.id == id }) else {
                throw RPCError(.resourceNotFound, "resource not found: \(uri) (no book with that id; see resources/list)", data: ["uri": .string(uri)])
            }
            guard case .object(var o) = book.json else { throw ToolError("bad book record") }
            o["contents"] = .array(try access.contents(book.id))
            body = .object(o)
        } else {
            throw RPCError(.resourceNotFound, "resource not found: \(uri) (ib-mcp has ib://status and ib://book/ID)", data: ["uri": .string(uri)])
        }
        return ["contents": [["uri": .string(uri), "mimeType": "application/json", "text": .string(body.serialized)]]]
    }
}
