// ib-chunk's stream: book and page records in, the same records out followed
// by each book's chunks. Other record types pass through where they stand.
// Page records go through PageDecoder, which puts their text straight into
// the book's buffer; any other line, or a page it declines, is read by the
// general record reader, with the same results and the same messages.
import IBCore

public final class ChunkStream {
    let chunker: Chunker
    let output: OutputStream
    let keepPages: Bool
    var bookID: String? = nil
    /// The book id's bytes when JSON writes them as they are, for PageDecoder.
    var plainBookID: [UInt8]? = nil
    let text = BookText(capacity: 1 << 20)
    let decoder = PageDecoder()
    /// Makes the current book's units while its pages are read, once it is large.
    var pipeline: UnitPipeline? = nil
    /// The current book's "structure" marks by page (pages with marks take the general reader).
    var structureMarks: [(page: Int, marks: [StructureMark])] = []
    /// The current book's page times (audio books), in page order.
    var times = ChunkTimes()

    public init(chunker: Chunker, output: OutputStream = .standardOutput, keepPages: Bool = true) {
        self.chunker = chunker
        self.output = output
        self.keepPages = keepPages
    }

    public func run(paths: [String]) throws {
        // A run stopped by bad input leaves no worker behind.
        defer {
            pipeline?.cancel()
            pipeline = nil
        }
        for path in paths.isEmpty ? ["-"] : paths {
            try RecordReader(path: path).forEach(claim: { [self] line in
                guard decoder.decode(line, bookID: plainBookID, after: text.pageNumbers.last, into: text) != nil else { return false }
                times.addUntimed()
                try pageAdded()
                if keepPages { output.writeRaw(line) }
                return true
            }) { record, line in try handle(record, line) }
        }
        flushBook()
    }

    func handle(_ record: Record, _ line: UnsafeBufferPointer<UInt8>) throws(RecordError) {
        switch record {
        case .book(let book):
            flushBook()
            bookID = book.id
            var id: [UInt8] = []
            JSON.writeString(book.id, to: &id)
            plainBookID = id.count == book.id.utf8.count + 2 ? Array(book.id.utf8) : nil
            output.writeRaw(line)
        case .page(let page):
            guard let bookID else {
                throw RecordError("page for book '\(page.bookID)', which no book record announced")
            }
            guard page.bookID == bookID else {
                throw RecordError("page for book '\(page.bookID)' inside book '\(bookID)', which no book record announced")
            }
            if let last = text.pageNumbers.last, page.page <= last {
                throw RecordError("page \(page.page) of book '\(bookID)' comes after page \(last)")
            }
            let marks = try StructureMark.marks(of: page)
            if !marks.isEmpty { structureMarks.append((page.page, marks)) }
            text.beginPage(page.page)
            times.add(page)
            var pageText = page.text
            pageText.withUTF8 { text.append($0) }
            try pageAdded()
            if keepPages { output.writeRaw(line) }
        default:
            output.writeRaw(line)
        }
    }

    func pageAdded() throws(RecordError) {
        // Units keep byte offsets in 32 bits.
        if text.count >= Int(Int32.max) - 2 { throw RecordError("book '\(bookID ?? "")' is larger than 2 GiB of text") }
        if let pipeline {
            pipeline.publish(text.count)
        } else if text.count >= Chunker.parallelThreshold && UnitPipeline.canRun(chunker, text) {
            pipeline = UnitPipeline(chunker: chunker, text: text)
            pipeline!.publish(text.count)
        }
    }

    func flushBook() {
        guard let bookID else { return }
        let units = pipeline?.finish(text.bytes)
        pipeline = nil
        chunker.writeChunks(bookID: bookID, text: text, units: units,
                            structure: ChunkStructure(marks: structureMarks, text: text), times: times.any ? times : nil, to: output)
        structureMarks.removeAll()
        times.removeAll()
        text.removeAll()
        self.bookID = nil
        plainBookID = nil
    }
}
