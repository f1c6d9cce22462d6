// The tools: each a name, a JSON Schema for its arguments, one for its
// structured output, and a body over LibraryAccess. Arguments are checked
// against the input schema before the body runs; a bad one is a tool error
// naming the argument, and nothing is read or written.
import IBCore

struct Tool: Sendable {
    var name: String
    var title: String
    var description: String
    var input: JSON
    var output: JSON
    var readOnly: Bool
    var run: @Sendable (ToolArguments, LibraryAccess) throws -> JSON

    /// The tools/list entry; `structured`: the client's protocol has titles, output schemas and annotations (2025-06-18 on).
    func listing(structured: Bool) -> JSON {
        var o = JSONObject([("name", .string(name))])
        if structured { o["title"] = .string(title) }
        o["description"] = .string(description)
        o["inputSchema"] = input
        if structured {
            o["outputSchema"] = output
        }
        var hints = JSONObject([("readOnlyHint", .bool(readOnly)), ("openWorldHint", false)])
        if !readOnly { hints["destructiveHint"] = false; hints["idempotentHint"] = false }
        if structured { hints["title"] = .string(title) }
        o["annotations"] = .object(hints)
        return .object(o)
    }
}

/// Arguments already checked against the tool's input schema.
struct ToolArguments: Sendable {
    let object: JSONObject
    func string(_ key: String) -> String? { object[key]?.stringValue }
    func int(_ key: String) -> Int? { object[key]?.intValue }
    func bool(_ key: String) -> Bool { object[key]?.boolValue ?? false }
    func double(_ key: String) -> Double? { object[key]?.doubleValue }
    func strings(_ key: String) -> [String] { object[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
}

enum Tools {
    // MARK: shared schema parts

    static let bookArgument = Schema.string("The book: its id, an id prefix (4+ characters) or its title (fuzzy). When several books match, the call fails with the candidates: ask the user which one, then call again with its id.")
    static let allPagesArgument = Schema.boolean("Lift the reading position: also return text past the page the reader has reached. Only when the user asks for it (spoilers).")

    static let passageRecord = Schema.object([
        ("type", Schema.string("\"result\"")), ("kind", Schema.string("\"chunk\"")),
        ("rank", Schema.integer("1 for the best match", minimum: 1)), ("score", Schema.number("Higher is better")),
        ("book_id", Schema.string("The book's id")), ("title", Schema.string("The book's title", minLength: nil)),
        ("start_page", Schema.integer("First page of the passage")), ("end_page", Schema.integer("Last page of the passage")),
        ("start_label", Schema.string("Printed label of the first page", minLength: nil, nullable: true)),
        ("end_label", Schema.string("Printed label of the last page", minLength: nil, nullable: true)),
        ("chunk_id", Schema.string("BOOK_ID:INDEX, for get_passage")),
        ("start_time", Schema.number("Audio books: seconds from the start of the audio where the passage is heard")),
        ("end_time", Schema.number("Audio books: seconds where the passage ends")),
        ("time_label", Schema.string("Audio books: the start as h:mm:ss (m:ss under an hour), shown and cited instead of a page")),
        ("text", Schema.string("The passage", minLength: nil)),
        ("snippet", Schema.string("Part of the passage, matched words marked «like this»", minLength: nil)),
        ("up_to_page", Schema.integer("The reading position that bounded this passage's book (absent when none did)")),
    ], required: ["rank", "score", "book_id", "title", "start_page", "end_page", "chunk_id", "text", "snippet"], closed: false)

    static let bookRecord = Schema.object([
        ("id", Schema.string("The book's id")), ("title", Schema.string("Title", minLength: nil)),
        ("authors", Schema.array(Schema.string("An author", minLength: nil), "Authors")),
        ("page_count", Schema.integer("Pages (0 when unknown)")),
        ("current_page", Schema.integer("The reading position (0: none set)")),
        ("status", Schema.string("ready (searchable), pending, ingesting or failed")),
        ("chunks", Schema.integer("Passages indexed for search")), ("embedded", Schema.integer("Passages with vectors")),
    ], required: ["id", "title", "authors", "page_count", "current_page", "status"], closed: false)

    static let passageText = Schema.object([
        ("chunk_id", Schema.string("BOOK_ID:INDEX")),
        ("start_time", Schema.number("Audio books: seconds from the start of the audio where the passage is heard")),
        ("end_time", Schema.number("Audio books: seconds where the passage ends")),
        ("time_label", Schema.string("Audio books: the start as h:mm:ss (m:ss under an hour), shown and cited instead of a page")),
        ("start_page", Schema.integer("First page")), ("end_page", Schema.integer("Last page")),
        ("start_label", Schema.string("Printed label of the first page", minLength: nil, nullable: true)),
        ("end_label", Schema.string("Printed label of the last page", minLength: nil, nullable: true)),
        ("text", Schema.string("The passage", minLength: nil)),
    ], required: ["chunk_id", "start_page", "end_page", "text"], closed: false)

    /// A page number argument (1 or more).
    static func pageArgument(_ description: String) -> JSON { Schema.integer(description, minimum: 1, maximum: 1_000_000_000) }

    /// A tool that writes one reader record and returns it.
    static func writer(_ name: String, _ title: String, _ description: String, input: JSON,
                       run: @escaping @Sendable (ToolArguments, LibraryAccess) throws -> JSON) -> Tool {
        Tool(name: name, title: title, description: description, input: input, output: captureRecord, readOnly: false, run: run)
    }

    static let captureRecord = Schema.object([
        ("type", Schema.string("What was stored: quote, note, question, progress, book or plan")),
    ], required: ["type"], closed: false)

    static let tagsArgument = Schema.array(Schema.string("A tag, without #"), "Tags")

    // MARK: the tools

    static let all: [Tool] = [
        Tool(name: "search_library", title: "Search the library",
             description: "Hybrid (meaning and words) search over the passages of the user's books, exactly as ib-search does. Each book is searched only up to the reader's current page, so nothing ahead is spoiled, unless all_pages is true.",
             input: Schema.object([
                ("query", Schema.string("What to look for: a question, a description or words, in any language")),
                ("book", bookArgument),
                ("k", Schema.integer("How many passages (default 10)", minimum: 1, maximum: 100)),
                ("mode", Schema.oneOf(["hybrid", "vector", "text"], "hybrid (default), vector (meaning only) or text (words only)")),
                ("all_pages", allPagesArgument),
                ("min_score", Schema.number("Leave out passages scoring below this (as ib-search --min-score). Without it, a hybrid search that matches no word of the query and nothing close in meaning returns no passage, with a warning saying so")),
             ], required: ["query"]),
             output: Schema.object([
                ("query", Schema.string("The query", minLength: nil)),
                ("page_limit", Schema.oneOf(["reading_position", "all_pages"], "How far into each book the search went")),
                ("results", Schema.array(passageRecord, "Passages, best first (ib-search --json's records)")),
                ("warnings", Schema.array(Schema.string("A warning", minLength: nil), "Notes on how the search ran")),
             ], required: ["query", "page_limit", "results", "warnings"]),
             readOnly: true, run: ToolBodies.search),
        Tool(name: "get_passage", title: "Read a passage",
             description: "The full text of a passage by its chunk_id (from search_library), with up to `context` neighbouring passages before and after it. Never past the reader's current page unless all_pages is true.",
             input: Schema.object([
                ("chunk_id", Schema.string("BOOK_ID:INDEX, as search_library returns it")),
                ("context", Schema.integer("Neighbouring passages on each side (default 0)", minimum: 0, maximum: 5)),
                ("all_pages", allPagesArgument),
             ], required: ["chunk_id"]),
             output: Schema.object([
                ("book_id", Schema.string("The book's id")), ("title", Schema.string("The book's title", minLength: nil)),
                ("chunk_id", Schema.string("The passage asked for")),
                ("reading_position", Schema.integer("The reader's page (0: none set)")),
                ("passages", Schema.array(passageText, "The passage and its neighbours, in book order")),
                ("more_hidden", Schema.boolean("Later neighbours were left out: they are past the reading position")),
             ], required: ["book_id", "title", "chunk_id", "reading_position", "passages", "more_hidden"]),
             readOnly: true, run: ToolBodies.passage),
        Tool(name: "list_books", title: "List the books",
             description: "Every book in the library: title, authors, pages, reading position and what is indexed (ib-index list).",
             input: Schema.object([]),
             output: Schema.object([("books", Schema.array(bookRecord, "The books, oldest first"))], required: ["books"]),
             readOnly: true, run: ToolBodies.listBooks),
        Tool(name: "book_status", title: "A book's status",
             description: "One book (default: the one being read): title, authors, pages, reading position and progress, and what is indexed (ib-index show's record).",
             input: Schema.object([("book", bookArgument)]),
             output: Schema.object([
                ("book", bookRecord),
                ("page", Schema.integer("The reading position (0: none set)")),
                ("page_count", Schema.integer("Pages (0 when unknown)")),
                ("percent", Schema.number("How far through, in percent", nullable: true)),
                ("searchable", Schema.boolean("Whether search_library searches it")),
             ], required: ["book", "page", "page_count", "percent", "searchable"]),
             readOnly: true, run: ToolBodies.bookStatus),
        Tool(name: "continue_reading", title: "Continue reading",
             description: "Where the reader is: the current book (or the one given), its page and progress, pages read today, the reading streak, the last quote saved, the passage where reading stopped, active plans, and suggestions from the reading history (the book usually read at this hour, a plan falling behind with the pages a day it needs, a book untouched for weeks, the quote of the day), each with its reason.",
             input: Schema.object([("book", bookArgument)]),
             output: Schema.object([
                ("book", Schema.anyObject("The book: id, title, authors, page, page_count, percent; null when none is being read", nullable: true)),
                ("pages_today", Schema.integer("Pages read today")),
                ("streak_days", Schema.integer("Days in a row with pages read")),
                ("last_quote", Schema.anyObject("The quote saved last (id, text, book_id, book_title, page)", nullable: true)),
                ("resume", Schema.anyObject("The passage ending at the reading position (chunk_id, pages, text)", nullable: true)),
                ("plans", Schema.array(Schema.anyObject("A plan, as in ib-capture status"), "Active reading plans")),
                ("suggestions", Schema.array(Schema.anyObject("A suggestion, as in ib-capture suggest --json: kind (continue, plan_behind, untouched, quote), text, reason, and its book or plan"),
                                             "What to read next and why, most pressing first")),
             ], required: ["book", "pages_today", "streak_days", "last_quote", "resume", "plans", "suggestions"]),
             readOnly: true, run: ToolBodies.continueReading),
        summarize,
        writer("capture", "Capture a line",
             "Stores one natural-language line in English or Chinese exactly as ib-capture takes it: a quote (Quote p. 47: \"...\"), a note or question, progress (read 20 pages; on page 120 of Meditations; finished Sapiens; 读了20页), a book being read (Reading Sapiens by Harari) or a plan (Plan: finish Meditations by 2027-01-31). Returns the stored record. An ambiguous book fails with the candidates: ask the user, then call again with `book`.",
             input: Schema.object([
                ("line", Schema.string("The line, as the user said it")),
                ("book", Schema.string("The book the line is about, when the line names none or an ambiguous one: an id, id prefix or title")),
             ], required: ["line"]),
             run: ToolBodies.captureLine),
        writer("add_quote", "Save a quote",
             "Saves a quote to a book (default: the one being read).",
             input: Schema.object([
                ("text", Schema.string("The quoted words")), ("book", bookArgument),
                ("page", pageArgument("The page it is on")),
                ("page_end", pageArgument("The last page, when it runs over several")),
                ("tags", tagsArgument),
             ], required: ["text"]),
             run: ToolBodies.addQuote),
        writer("add_note", "Add a note",
             "Adds a note (or, with question: true, a question) to a book (default: the one being read).",
             input: Schema.object([
                ("text", Schema.string("The note")), ("book", bookArgument), ("page", pageArgument("The page it is about")),
                ("chapter", Schema.string("The chapter it is about")), ("question", Schema.boolean("It is a question to come back to")),
                ("tags", tagsArgument),
             ], required: ["text"]),
             run: ToolBodies.addNote),
        writer("log_progress", "Log reading progress",
             "Records progress in a book (default: the one being read): exactly one of page (now on page N), pages_read (read N pages), percent, or finished: true. Moves the reading position.",
             input: Schema.object([
                ("book", bookArgument),
                ("page", pageArgument("The page the reader is now on")),
                ("pages_read", Schema.integer("Pages read since the last position", minimum: 1, maximum: 1_000_000)),
                ("percent", Schema.integer("How far through, in percent", minimum: 0, maximum: 100)),
                ("finished", Schema.boolean("The book is finished")),
             ]),
             run: ToolBodies.logProgress),
        writer("set_plan", "Set a reading plan",
             "Plans to finish books by a date (due), or a daily page goal (daily_pages), or both. Returns the pages per day needed.",
             input: Schema.object([
                ("books", Schema.array(bookArgument, "The books to finish")),
                ("due", Schema.string("The date to finish by, YYYY-MM-DD")),
                ("daily_pages", Schema.integer("Pages to read each day", minimum: 1, maximum: 100_000)),
             ]),
             run: ToolBodies.setPlan),
    ]

    static func named(_ name: String) -> Tool? { all.first { $0.name == name } }
}
