// The book's structure in ib-index: `show` prints it as a table of contents,
// and `--restructure` rebuilds it for stored books from fresh page records.
import IBCore
import IBStore

extension IndexCommand {
    /// The table of contents under `show`: one line per section, indented by depth,
    /// with its dates, voice and place, and the page it starts on.
    static func contentsLines(_ sections: [SectionRow]) -> String {
        var out = ""
        for s in sections {
            var line = String(repeating: "  ", count: s.depth) + s.title
            var notes: [String] = []
            if let from = s.dateFrom { notes.append(s.dateTo.map { $0 == from ? from : "\(from) to \($0)" } ?? from) }
            if let voice = s.voice { notes.append(voice) }
            if let place = s.place { notes.append(place) }
            if !notes.isEmpty { line += "  [" + notes.joined(separator: "; ") + "]" }
            out += line + "  p. \(s.startPage)\n"
        }
        return out
    }

    /// `ib-index --restructure`: page records in (book records name the books);
    /// each named book's structure is rebuilt from its pages' marks. No vector is touched.
    static func restructure(_ c: Invocation) throws {
        if c.positionals.isEmpty && Terminal.stdinIsTerminal {
            throw IBError.usage("--restructure: pipe page records in (ib-parse BOOK | ib-index --restructure)")
        }
        let library = try Library.open(path: c.db)
        var bookID: String?
        var pages: [PageRecord] = []
        func flush() throws {
            guard let id = bookID else { return }
            var count = 0
            try described(library) { count = try library.restructure(bookID: id, pages: pages) }
            if !c.quiet { printError("ib-index: \(id): \(counted(count, "section"))") }
            bookID = nil; pages = []
        }
        try RecordReader.forEach(paths: c.positionals) { record, _ in
            switch record {
            case .book(let book): try flush(); bookID = book.id
            case .page(let page):
                if bookID == nil { bookID = page.bookID }
                guard page.bookID == bookID else { throw IBError("--restructure: page for book \(page.bookID) inside book \(bookID ?? "")") }
                pages.append(page)
            default: break
            }
        }
        try flush()
    }
}
