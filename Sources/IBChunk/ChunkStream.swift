// ib-chunk's stream: book and page records in, the same records out followed
// by each book's chunks. Other record types pass through where they stand.
import IBCore

public final class ChunkStream {
    let chunker: Chunker
    let output: OutputStream
    let keepPages: Bool
    var bookID: String? = nil
    var pages: [PageRecord] = []

    public init(chunker: Chunker, output: OutputStream = .standardOutput, keepPages: Bool = true) {
        self.chunker = chunker
        self.output = output
        self.keepPages = keepPages
    }

    public func run(paths: [String]) throws {
        try RecordReader.forEach(paths: paths) { record, line in
            switch record {
            case .book(let book):
                flushBook()
                bookID = book.id
                output.writeRaw(line)
            case .page(let page):
                guard let bookID else {
                    throw RecordError("page for book '\(page.bookID)', which no book record announced")
                }
                guard page.bookID == bookID else {
                    throw RecordError("page for book '\(page.bookID)' inside book '\(bookID)', which no book record announced")
                }
                if let last = pages.last, page.page <= last.page {
                    throw RecordError("page \(page.page) of book '\(bookID)' comes after page \(last.page)")
                }
                pages.append(page)
                if keepPages { output.writeRaw(line) }
            default:
                output.writeRaw(line)
            }
        }
        flushBook()
    }

    func flushBook() {
        guard let bookID else { return }
        for chunk in chunker.chunks(bookID: bookID, pages: pages) {
            output.writeLine { chunk.write(to: &$0) }
        }
        pages.removeAll()
        self.bookID = nil
    }
}
