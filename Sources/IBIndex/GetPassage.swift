// `ib-index get CHUNK_ID|BOOK:PAGE [--context N]`: a passage and its
// neighbours from the shell (qmd get's job), bounded by the reading position
// by the same rule as ib-mcp's get_passage (Library.passageWindow).
import IBCore
import IBStore

extension IndexCommand {
    static func get(_ c: Invocation) throws {
        guard c.positionals.count == 1 else { throw IBError.usage("get takes one CHUNK_ID (BOOK_ID:INDEX) or BOOK:PAGE") }
        let context = try c.args.value("context").map { try Arguments.parseInt($0, name: "--context", min: 0, max: 20) } ?? 0
        let asJSON = try c.format == .json
        let library = try Library.open(path: c.db, create: false)
        let (book, index) = try target(c.positionals[0], library)
        switch try described(library, { try library.passageWindow(book: book, index: index, context: context, allPages: c.args.has("all-pages")) }) {
        case .noSuchPassage:
            throw IBError("no passage \(index) in '\(book.title)' (\(book.id)): it has \(counted(book.chunkCount, "chunk"))")
        case .pastPosition(let endPage, let position):
            throw IBError("passage \(book.id):\(index) ends on page \(endPage), past the reading position (page \(position)) of '\(book.title)'; "
                          + "not shown, so as not to spoil the book (--all-pages shows it)")
        case .passages(let chunks, let moreHidden):
            for chunk in chunks {
                let asked = chunk.index == index
                if asJSON {
                    c.out.writeJSON(try record(chunk, book: book, asked: asked, library))
                } else {
                    c.out.write(try heading(chunk, book: book, asked: asked && context > 0, library) + "\n" + chunk.text + "\n\n")
                }
            }
            if moreHidden && !c.quiet {
                printError("ib-index: later passages are past the reading position (page \(book.currentPage)); --all-pages shows them")
            }
        }
    }

    /// The book and chunk index `text` names: BOOK_ID:INDEX (a stored book's
    /// whole id), else BOOK:PAGE (BOOK as everywhere; PAGE a number or a printed label).
    static func target(_ text: String, _ library: Library) throws -> (BookInfo, Int) {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex else {
            throw IBError.usage("get: '\(text)' is neither CHUNK_ID (BOOK_ID:INDEX) nor BOOK:PAGE")
        }
        let name = String(text[..<colon]), after = String(text[text.index(after: colon)...])
        if let book = try library.book(id: name) {
            guard let index = Int(after), index >= 0 else { throw IBError.usage("get: chunk index '\(after)' is not a number from 0") }
            return (book, index)
        }
        let book = try library.resolveBook(name)
        let labelled = try library.pageLabels(bookID: book.id).filter { $0.value.lowercased() == after.lowercased() }.keys.min()
        guard let page = labelled ?? Int(after), page >= 1, page <= book.pageCount else {
            throw IBError.usage("get: no page '\(after)' in '\(book.title)' (\(counted(book.pageCount, "page")))")
        }
        guard let index = try library.chunkIndex(bookID: book.id, page: page) else {
            throw IBError("'\(book.title)' has no passage on page \(page) (is it indexed?)")
        }
        return (book, index)
    }

    static func pages(_ chunk: ChunkRecord, _ bookID: String, _ library: Library) throws -> (String, String) {
        (try library.pageLabel(bookID: bookID, page: chunk.startPage) ?? String(chunk.startPage),
         try library.pageLabel(bookID: bookID, page: chunk.endPage) ?? String(chunk.endPage))
    }

    /// "── Hamlet · ff65375e160ca53e:12 · pp. 5-6 ──", "(asked)" on the one asked for among neighbours.
    static func heading(_ chunk: ChunkRecord, book: BookInfo, asked: Bool, _ library: Library) throws -> String {
        let (start, end) = try pages(chunk, book.id, library)
        let where_ = start == end ? "p. \(start)" : "pp. \(start)-\(end)"
        return "── \(book.title) · \(book.id):\(chunk.index) · \(where_)\(asked ? " (asked)" : "") ──"
    }

    static func record(_ chunk: ChunkRecord, book: BookInfo, asked: Bool, _ library: Library) throws -> JSON {
        let (start, end) = try pages(chunk, book.id, library)
        var o = JSONObject([("chunk_id", .string("\(book.id):\(chunk.index)")), ("book_id", .string(book.id)), ("title", .string(book.title)),
                            ("start_page", JSON(chunk.startPage)), ("end_page", JSON(chunk.endPage)),
                            ("start_label", .string(start)), ("end_label", .string(end))])
        if let time = chunk.extra["start_time"]?.doubleValue {
            o["start_time"] = .number(time)
            o["end_time"] = chunk.extra["end_time"] ?? .null
        }
        o["asked"] = .bool(asked)
        o["text"] = .string(chunk.text)
        return .object(o)
    }
}
