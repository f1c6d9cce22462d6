// The book a conversation is about: title, authors, the reader's current
// page, printed page labels. Loaded from the library with a few small queries
// (the first provider request must not wait for more).
import IBCore
import IBStore

public struct BookContext: Sendable {
    public var id: String
    public var title: String
    public var authors: [String]
    public var pageCount: Int
    /// The reader's current physical page; nil when not set (the whole book may be used).
    public var currentPage: Int?
    /// Printed labels by physical page, where the book has them.
    public var labels: [Int: String]
    /// An audio book: its page labels are clock times ("1:02:30"), cited without "p.".
    public var isAudio = false

    public init(id: String, title: String, authors: [String] = [], pageCount: Int = 0, currentPage: Int? = nil, labels: [Int: String] = [:]) {
        self.id = id; self.title = title; self.authors = authors; self.pageCount = pageCount
        self.currentPage = currentPage; self.labels = labels
    }

    /// How a page is shown and cited: its printed label, else its number.
    public func display(_ page: Int) -> String { labels[page] ?? String(page) }

    /// "p. 12" or "pp. 12-13" (with labels); an audio book's "1:02:30" or "1:02:30-1:03:31".
    public func citation(_ start: Int, _ end: Int) -> String {
        let a = display(start), b = display(end)
        if isAudio { return start == end || a == b ? a : "\(a)-\(b)" }
        return start == end || a == b ? "p. \(a)" : "pp. \(a)-\(b)"
    }

    /// Physical pages whose label (or, without one, number) is `text`. In an audio book a
    /// time that is no page's label names the page being heard then.
    public func pages(forLabel text: String) -> [Int] {
        let t = text.trimmingCharacters(in: " ").lowercased()
        var found = labels.filter { $0.value.lowercased() == t }.map(\.key).sorted()
        if found.isEmpty && isAudio && t.contains(":"), let seconds = MediaTime.seconds(t) {
            let heard = labels.compactMap { page, label in MediaTime.seconds(label).map { (page, $0) } }
                .filter { $0.1 <= seconds }.max { $0.1 < $1.1 }
            return heard.map { [$0.0] } ?? []
        }
        if found.isEmpty, let n = Int(t), n >= 1, labels[n] == nil || labels.isEmpty { found = [n] }
        return found
    }

    /// Resolves a page given on the command line (a label or a number).
    public func page(forArgument text: String) -> Int? {
        if let exact = pages(forLabel: text).first { return exact }
        return Int(text)
    }
}

public enum BookLookup {
    public struct BookRow: Sendable { public var id: String; public var title: String; public var authors: [String] }

    /// Finds BOOK as every tool does (Library.resolveBook: an id, a unique id
    /// prefix, a fuzzy title or an author; several matches are exit 3).
    /// With no BOOK, the only book in the library.
    public static func resolveBook(_ library: Library, _ query: String?) throws -> BookRow {
        let all = try library.bookSummaries(readyOnly: false).map { BookRow(id: $0.id, title: $0.title, authors: $0.authors) }
        guard let query = query?.trimmed, !query.isEmpty else {
            guard !all.isEmpty else {
                throw IBError("the library \(library.path) has no books yet (add one with ib-parse | ib-chunk | ib-embed | ib-index)")
            }
            guard all.count == 1 else {
                throw IBError("the library has \(all.count) books; choose one with --book (or ask on the command line: the question picks the book):\n" + all.map { "  \($0.id)  \($0.title)" }.joined(separator: "\n"), code: .ambiguous)
            }
            return all[0]
        }
        // One resolver for every tool (Library.resolveBook): the same fuzziness, authors and candidate lists.
        let book = try library.resolveBook(query)
        return BookRow(id: book.id, title: book.title, authors: book.authors)
    }

    public static func context(_ db: Database, book: BookRow, pageOverride: String?) throws -> BookContext {
        let library = Library(db: db)
        let position = try library.readingPosition(bookID: book.id)
        var context = BookContext(id: book.id, title: book.title, authors: book.authors,
                                  pageCount: position?.pageCount ?? 0, currentPage: nil, labels: try library.pageLabels(bookID: book.id))
        context.isAudio = try db.scalarText("SELECT format FROM books WHERE id = ?", book.id) == "audio"
        if let override = pageOverride {
            guard let page = context.page(forArgument: override), page >= 1 else {
                throw IBError.usage("--page: no page '\(override)' in \(book.title)")
            }
            // A page past the end would lift the spoiler bound without saying so.
            if context.pageCount > 0 && page > context.pageCount {
                throw IBError.usage("--page: page \(override) is past the end of \(book.title) (\(context.pageCount) page\(context.pageCount == 1 ? "" : "s"))")
            }
            context.currentPage = page
        } else if let current = position?.currentPage, current > 0 {
            context.currentPage = current
        } else if let logged = try? library.lastLoggedPage(bookID: book.id), logged > 0 {
            context.currentPage = logged
        }
        return context
    }
}
