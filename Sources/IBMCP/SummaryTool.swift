// ib-mcp's summarize tool: ib-ask --summarize / --recap over the same library,
// with the same bound (the reader's position, unless all_pages), the same
// provider choice (IB_PROVIDER and the API keys in ib-mcp's environment; none:
// the offline extractive summary) and the same cache.
import IBAsk
import IBCore
import IBStore

extension Tools {
    static let summarize = Tool(
        name: "summarize", title: "Summarise a book so far",
        description: "A summary of a book (default: the one being read) up to the reader's current page, never past it: the whole book so far, one section (section: its number or title), or a page range (start_page, end_page); recap: true gives the short version for picking the book up again (earlier sections briefly, the last two in detail, the people who matter, where the reader stopped). Every claim is cited (p. N). With a provider configured for ib-mcp (IB_PROVIDER, ANTHROPIC_API_KEY...) it is written by that model and kept in the library; otherwise it quotes the book's own sentences (language_model: false).",
        input: Schema.object([
            ("book", bookArgument),
            ("section", Schema.string("One section: its number (as listed in a summary's sections) or its title")),
            ("start_page", pageArgument("First page of a range to summarise")),
            ("end_page", pageArgument("Last page of the range (at most the reading position)")),
            ("recap", Schema.boolean("The short version for picking the book up again")),
            ("all_pages", allPagesArgument),
        ]),
        output: Schema.object([
            ("summary", Schema.string("The summary, each claim cited (p. N)", minLength: nil)),
            ("citations", Schema.array(Schema.anyObject("A citation: text, pages, supported"), "Its citations, checked against the pages summarised")),
            ("sections", Schema.array(Schema.anyObject("A section: number, title, start_page, end_page, summary, partial, cached"), "The sections, in book order")),
            ("cached", Schema.boolean("Nothing was sent to a provider: it all came from the library")),
            ("language_model", Schema.boolean("Whether a language model wrote it (false: the book's own sentences)")),
            ("up_to_page", Schema.integer("The last page the summary may use")),
            ("warnings", Schema.array(Schema.string("A warning", minLength: nil), "A provider that failed, and the like")),
        ], required: ["summary", "citations", "sections", "cached", "language_model", "warnings"], closed: false),
        readOnly: false, run: ToolBodies.summarize)
}

extension ToolBodies {
    static func summarize(_ a: ToolArguments, _ access: LibraryAccess) throws -> JSON {
        guard let book = try bookOrCurrent(a, access) else {
            throw ToolError("no book is being read: name one (book), or call list_books to see them")
        }
        var request = SummaryRequest(recap: a.bool("recap"))
        let start = a.int("start_page"), end = a.int("end_page")
        if request.recap && (a.string("section") != nil || start != nil || end != nil) {
            throw ToolError("recap covers the book so far: give no section, start_page or end_page")
        }
        if let section = a.string("section") {
            guard start == nil && end == nil else { throw ToolError("give a section or a page range, not both") }
            request.scope = .section(section)
        } else if start != nil || end != nil {
            guard let start, let end else { throw ToolError("a page range needs both start_page and end_page") }
            guard end >= start else { throw ToolError("end_page (\(end)) is before start_page (\(start))") }
            request.scope = .pages(start, end)
        }
        return try access.summarize(bookID: book.id, request, allPages: a.bool("all_pages"))
    }
}

extension LibraryAccess {
    func summarize(bookID: String, _ request: SummaryRequest, allPages: Bool) throws -> JSON {
        try guarded {
            let library = try library()
            var context = try BookLookup.context(library.db, book: BookLookup.resolveBook(library, bookID), pageOverride: nil)
            if allPages { context.currentPage = nil }
            let settings = try ProviderSettings.resolve(provider: nil, model: nil)
            let modelDir = Config.modelDirectory(flag: modelDirectory)
            let summarizer = Summarizer(library: library, book: context, provider: settings.makeProvider(),
                                        embedder: { try ModelEmbedder(directory: modelDir) })
            var warnings: [String] = []
            summarizer.warn = { warnings.append($0) }
            let result = try summarizer.run(request)
            guard case .object(var object) = result.json(book: context) else { return result.json(book: context) }
            object["warnings"] = JSON(warnings)
            return .object(object)
        }
    }
}
