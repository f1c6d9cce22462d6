// What each tool does with its (checked) arguments. No spoilers: search and
// passages stop at each book's reading position unless all_pages is set.
import IBCapture
import IBCore
import IBStore

enum ToolBodies {

    // MARK: reading

    static func search(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        let query = a.string("query") ?? ""
        guard !query.allSatisfy(\.isWhitespace) else { throw ToolError("query: must not be blank") }
        let bookIDs = try a.string("book").map { [try access.book($0).id] }
        let allPages = a.bool("all_pages")
        let (results, warnings) = try access.search(query, bookIDs: bookIDs, allPages: allPages, k: a.int("k") ?? 10,
                                                    mode: a.string("mode") ?? "hybrid", minScore: a.double("min_score"))
        return ["query": .string(query), "page_limit": allPages ? "all_pages" : "reading_position",
                "results": .array(results), "warnings": JSON(warnings)]
    }

    static func passage(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        let id = a.string("chunk_id") ?? ""
        guard let colon = id.lastIndex(of: ":"), let index = Int(id[id.index(after: colon)...]), index >= 0 else {
            throw ToolError("chunk_id: expected BOOK_ID:INDEX (as search_library returns it), got \"\(id)\"")
        }
        let book = try access.book(String(id[..<colon]))
        let passages: [PassageFacts], moreHidden: Bool
        switch try access.passageWindow(book, index: index, context: a.int("context") ?? 0, allPages: a.bool("all_pages")) {
        case .noSuchPassage:
            throw ToolError("no passage \(index) in '\(book.title)' (\(book.id))")
        case .pastPosition(let endPage, let position):
            throw ToolError("passage \(book.id):\(index) ends on page \(endPage), past the reading position (page \(position)) of '\(book.title)'; it is not shown, so as not to spoil the book. Call again with all_pages: true only if the user asks to read ahead.")
        case .passages(let found, let hidden):
            (passages, moreHidden) = (found.map(PassageFacts.init), hidden)
        }
        return ["book_id": .string(book.id), "title": .string(book.title), "chunk_id": .string("\(book.id):\(index)"),
                "reading_position": JSON(book.currentPage), "passages": .array(try passages.map { try passageJSON(book.id, $0, access) }),
                "more_hidden": .bool(moreHidden)]
    }

    static func passageJSON(_ bookID: String, _ p: PassageFacts, _ access: LibraryAccess) throws -> JSON {
        var o = JSONObject([("chunk_id", .string("\(bookID):\(p.index)")), ("start_page", JSON(p.startPage)), ("end_page", JSON(p.endPage)),
                            ("start_label", JSON(try access.pageLabel(bookID, p.startPage))),
                            ("end_label", JSON(try access.pageLabel(bookID, p.endPage)))])
        if let start = p.startTime {
            o["start_time"] = .number(start)
            o["end_time"] = p.endTime.map { .number($0) } ?? .null
            o["time_label"] = .string(MediaTime.label(start))
        }
        o["text"] = .string(p.text)
        return .object(o)
    }

    static func listBooks(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        ["books": .array(try access.books().map(\.json))]
    }

    /// The book named, else the one being read; neither: a tool error that says what to do.
    static func bookOrCurrent(_ a: ToolArguments, _ access: LibraryAccess) throws -> BookInfo? {
        if let name = a.string("book") { return try access.book(name) }
        return try access.currentBook()
    }

    static func bookStatus(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        guard let book = try bookOrCurrent(a, access) else {
            throw ToolError("no book is being read: name one (book), or call list_books to see them")
        }
        let searchable = book.json["status"]?.stringValue == "ready" && (book.json["chunks"]?.intValue ?? 0) > 0
        return ["book": book.json, "page": JSON(book.currentPage), "page_count": JSON(book.pageCount),
                "percent": StatusReport.percent(book.currentPage, of: book.pageCount), "searchable": .bool(searchable)]
    }

    static func continueReading(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        let status = try access.status()
        var out = JSONObject()
        let book = try bookOrCurrent(a, access)
        if let book {
            out["book"] = ["id": .string(book.id), "title": .string(book.title), "authors": JSON(book.authors),
                           "page": JSON(book.currentPage), "page_count": book.pageCount > 0 ? JSON(book.pageCount) : .null,
                           "percent": StatusReport.percent(book.currentPage, of: book.pageCount)]
        } else {
            out["book"] = .null
        }
        out["pages_today"] = status["pages_today"] ?? 0
        out["streak_days"] = status["streak_days"] ?? 0
        out["last_quote"] = try access.lastQuote()
        // Where reading stopped: the passage ending at the position (the first one when none is set).
        var resume: JSON = .null
        if let book {
            let p = book.currentPage > 0 ? try access.lastPassage(book.id, upTo: book.currentPage) : try access.passage(book.id, 0)
            if let p { resume = try passageJSON(book.id, p, access) }
        }
        out["resume"] = resume
        out["plans"] = status["plans"] ?? []
        out["suggestions"] = status["suggestions"] ?? []
        return .object(out)
    }

    // MARK: capture

    /// The book a capture names, resolved before anything is written (ambiguous: candidates, nothing written).
    static func bookID(_ a: ToolArguments, _ access: LibraryAccess) throws -> String? {
        try a.string("book").map { try access.book($0).id }
    }

    static func captureLine(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        let line = a.string("line") ?? ""
        guard !line.allSatisfy(\.isWhitespace) else { throw ToolError("line: must not be blank") }
        return try access.capture(line: line, bookID: try bookID(a, access))
    }

    static func addQuote(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        if let start = a.int("page"), let end = a.int("page_end"), end < start {
            throw ToolError("page_end (\(end)) is before page (\(start))")
        }
        var c = try textCapture(.quote, summary: "quote", a)
        c.pageEnd = a.int("page_end")
        return try access.capture(c, bookID: try bookID(a, access))
    }

    static func addNote(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        var c = try textCapture(a.bool("question") ? .question : .note, summary: "note", a)
        c.chapter = a.string("chapter")
        return try access.capture(c, bookID: try bookID(a, access))
    }

    /// A quote or note from its text, page and tags (what add_quote and add_note share).
    static func textCapture(_ kind: TypedCapture.Kind, summary: String, _ a: ToolArguments) throws -> TypedCapture {
        var c = TypedCapture(kind: kind, summary: summary)
        c.text = try nonBlank(a, "text")
        c.page = a.int("page")
        c.tags = a.strings("tags")
        return c
    }

    static func logProgress(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        let given = ["page", "pages_read", "percent"].filter { a.object[$0] != nil } + (a.bool("finished") ? ["finished"] : [])
        guard given.count == 1 else {
            throw ToolError(given.isEmpty ? "give one of page, pages_read, percent or finished: true"
                                          : "give only one of page, pages_read, percent or finished: true (got \(given.joined(separator: ", ")))")
        }
        var c = TypedCapture(kind: .progress, summary: "progress")
        c.page = a.int("page")
        c.pagesRead = a.int("pages_read")
        c.percent = a.int("percent")
        c.finished = a.bool("finished")
        return try access.capture(c, bookID: try bookID(a, access))
    }

    static func setPlan(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        guard a.string("due") != nil || a.int("daily_pages") != nil else {
            throw ToolError("give due (YYYY-MM-DD), daily_pages, or both")
        }
        var c = TypedCapture(kind: .plan, summary: "plan")
        // Each book named once, and resolved first: an ambiguous one stops the plan before anything is written.
        var named = Set<String>()
        let books = a.strings("books").filter { named.insert($0).inserted }
        if books.count > CaptureEngine.maxPlanBooks {
            throw ToolError("books: \(books.count) books; a plan holds at most \(CaptureEngine.maxPlanBooks)")
        }
        var ids = Set<String>()
        c.books = try books.map { try access.book($0).id }.filter { ids.insert($0).inserted }
        c.due = a.string("due")
        c.dailyPages = a.int("daily_pages")
        if c.books.isEmpty { c.summary = "Plan: \(c.dailyPages ?? 0) pages a day" }
        return try access.capture(c, bookID: nil)
    }

    static func nonBlank(_ a: ToolArguments, _ key: String) throws -> String {
        let s = a.string(key) ?? ""
        guard !s.allSatisfy(\.isWhitespace) else { throw ToolError("\(key): must not be blank") }
        return s
    }
}
