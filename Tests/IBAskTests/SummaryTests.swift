import XCTest
import IBCore
import IBStore
@testable import IBAsk
import IBTestSupport

/// ib-ask --summarize / --recap: the reading-position bound, the provider's
/// map-reduce over real HTTP (every request recorded), the cache, and the
/// offline summary with the real sentence encoder.
final class SummaryTests: XCTestCase {
    /// A 30-page book whose every sentence names its page ("tower7x" on page 7),
    /// so a request holding text past the position is caught by a word.
    final class PagedBook {
        let directory = "/tmp/ib-summary-test-\(UInt32.random(in: 0 ... .max))"
        let library: Library
        let bookID = "5a5a5a5a5a5a5a5a"
        static func text(_ page: Int) -> String {
            "On that day Marta walked to the old tower\(page)x by the river. She counted \(page * 3) boats below the bridge and wrote them down. "
                + "The keeper of tower\(page)x told her a story about the winter of year \(1800 + page)."
        }

        init(pages: Int = 30, position: Int) throws {
            try FileSystem.createDirectories(directory)
            library = try Library.open(path: directory + "/library.db")
            let indexer = Indexer(library: library)
            _ = try indexer.add(.book(BookRecord(id: bookID, title: "Towers", authors: ["B. Author"], language: "en", format: "txt",
                                                 source: "/books/towers.txt", sha256: String(repeating: bookID, count: 4), pageCount: pages)))
            for p in 1...pages { _ = try indexer.add(.page(PageRecord(bookID: bookID, page: p, text: Self.text(p)))) }
            for p in 1...pages {
                let t = Self.text(p)
                _ = try indexer.add(.chunk(ChunkRecord(bookID: bookID, index: p - 1, startPage: p, endPage: p, startOffset: 0,
                                                       endOffset: t.unicodeScalars.count, tokenCount: 40, text: t)))
            }
            try indexer.finish()
            try library.setPage(bookID: bookID, page: position)
        }

        func context() throws -> BookContext {
            try BookLookup.context(library.db, book: BookLookup.resolveBook(library, nil), pageOverride: nil)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    static func embedder() throws -> ModelEmbedder {
        let modelDir = Config.modelDirectory()
        try XCTSkipUnless(FileSystem.exists(modelDir + "/model.safetensors"), "run scripts/fetch-model")
        return try ModelEmbedder(directory: modelDir)
    }

    /// Pages named anywhere in a request: the tower words and the (p. N) labels.
    static func pagesNamed(_ body: String) -> [Int] {
        var pages: [Int] = []
        for p in 1...30 where body.contains("tower\(p)x") || body.contains("(p. \(p))") { pages.append(p) }
        return pages
    }

    func testProviderSummaryStaysBeforeThePageIsKeptAndExtends() throws {
        let server = try TestHTTPServer { _ in Anthropic.answer(["Marta counts boats (p. 2). ", "The keeper tells a story (p. 3)."]) }
        defer { server.stop() }
        let book = try PagedBook(position: 15)
        let provider = try settings("anthropic", server).makeProvider()!
        let first = try Summarizer(library: book.library, book: try book.context(), provider: provider, embedder: { try Self.embedder() })
            .run(SummaryRequest())
        // Pages 1-10 and 11-15, then their combination.
        XCTAssertEqual(server.requests.count, 3)
        XCTAssertEqual(first.sections.map(\.title), ["Pages 1-10", "Pages 11-15"])
        XCTAssertTrue(first.sections[1].partial)
        XCTAssertFalse(first.cached)
        XCTAssertTrue(first.usedLanguageModel)
        for request in server.requests {
            XCTAssertLessThanOrEqual(Self.pagesNamed(request.bodyText).max() ?? 0, 15, "a request holds text past p. 15")
        }
        XCTAssertTrue(server.requests[0].bodyText.contains("tower1x") && server.requests[1].bodyText.contains("tower15x"))
        XCTAssertEqual(first.citations.map(\.supported), [true, true])

        // The same call again sends nothing.
        let again = try Summarizer(library: book.library, book: try book.context(), provider: provider, embedder: { try Self.embedder() })
            .run(SummaryRequest())
        XCTAssertEqual(server.requests.count, 3)
        XCTAssertTrue(again.cached)
        XCTAssertEqual(again.summary, first.summary)

        // Later: pages 1-10 come from the library; 11-20 grew, 21-25 is new, then the combination.
        try book.library.setPage(bookID: book.bookID, page: 25)
        let later = try Summarizer(library: book.library, book: try book.context(), provider: provider, embedder: { try Self.embedder() })
            .run(SummaryRequest())
        let sent = server.requests.dropFirst(3)
        XCTAssertEqual(sent.count, 3)
        XCTAssertEqual(later.sections.map(\.cached), [true, false, false])
        XCTAssertFalse(sent.contains { $0.bodyText.contains("tower4x") }, "pages 1-10 were sent again")
        for request in sent { XCTAssertLessThanOrEqual(Self.pagesNamed(request.bodyText).max() ?? 0, 25) }
        XCTAssertEqual(try book.library.db.scalarInt("SELECT count(*) FROM section_summaries WHERE kind = 'section'"), 4)
    }

    func testRecapSendsTheLastPassageAndNothingPastIt() throws {
        let server = try TestHTTPServer { _ in Anthropic.answer(["Marta is at the tower (p. 12)."]) }
        defer { server.stop() }
        let book = try PagedBook(position: 12)
        let provider = try settings("anthropic", server).makeProvider()!
        let result = try Summarizer(library: book.library, book: try book.context(), provider: provider, embedder: { try Self.embedder() })
            .run(SummaryRequest(recap: true))
        XCTAssertEqual(server.requests.count, 3)
        let recap = server.requests[2].bodyText
        XCTAssertTrue(recap.contains("where the reader stopped (page 12)") && recap.contains("tower12x"), recap)
        XCTAssertFalse(server.requests.contains { $0.bodyText.contains("tower13x") })
        XCTAssertEqual(result.summary, "Marta is at the tower (p. 12).")
    }

    func testFailedProviderWarnsOnceAndSummarisesOffline() throws {
        let embedder = try Self.embedder()
        let server = try TestHTTPServer { _ in .status(500, body: "overloaded") }
        defer { server.stop() }
        let book = try PagedBook(position: 15)
        let provider = try settings("anthropic", server, retries: 0).makeProvider()!
        let summarizer = Summarizer(library: book.library, book: try book.context(), provider: provider, embedder: { embedder })
        var warnings: [String] = []
        summarizer.warn = { warnings.append($0) }
        let result = try summarizer.run(SummaryRequest())
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings[0].contains("Anthropic") && warnings[0].contains("offline"), warnings[0])
        XCTAssertEqual(server.requests.count, 1, "the failed provider was asked again")
        XCTAssertFalse(result.usedLanguageModel)
        XCTAssertTrue(result.summary.contains("No language model was used"), result.summary)
    }

    func testOfflineSummaryCitesEverySectionUpToThePage() throws {
        let embedder = try Self.embedder()
        let book = try PagedBook(position: 25)
        let result = try Summarizer(library: book.library, book: try book.context(), provider: nil, embedder: { embedder }).run(SummaryRequest())
        XCTAssertTrue(result.summary.hasPrefix("Extractive summary of \"Towers\" up to p. 25. No language model was used"), result.summary)
        XCTAssertEqual(result.sections.map(\.title), ["Pages 1-10", "Pages 11-20", "Pages 21-25"])
        // Each heading carries the number --section takes, and the partial one says so.
        XCTAssertTrue(result.summary.contains("\n1. Pages 1-10\n“") && result.summary.contains("\n3. Pages 21-25 (so far)\n“"), result.summary)
        XCTAssertFalse(result.citations.isEmpty)
        XCTAssertTrue(result.citations.allSatisfy { $0.supported && $0.pages.allSatisfy { $0 <= 25 } }, "\(result.citations)")
        for s in result.sections {
            let cited = Citations.check(s.summary, book: try book.context(), retrieved: Set(1...25))
            XCTAssertFalse(cited.isEmpty, "section \(s.title) has no cited sentence")
            XCTAssertTrue(cited.allSatisfy { $0.pages.allSatisfy { (s.startPage...s.endPage).contains($0) } }, "\(s.title): \(s.summary)")
        }
        for p in 26...30 { XCTAssertFalse(result.summary.contains("tower\(p)x"), "page \(p) quoted") }
        // In book order.
        let pages = result.citations.flatMap(\.pages)
        XCTAssertEqual(pages, pages.sorted())
    }

    func testBoundsAreUsageErrors() throws {
        let book = try PagedBook(position: 10)
        func usage(_ args: [String], _ fragment: String) {
            XCTAssertThrowsError(try AskCommand.run(["--db", book.directory + "/library.db", "--provider", "extractive"] + args)) { error in
                let e = error as? IBError
                XCTAssertEqual(e?.code, .usage, "\(args): \(error)")
                XCTAssertTrue(e?.message.contains(fragment) ?? false, "\(args): \(e?.message ?? "")")
            }
        }
        usage(["--summarize", "--pages", "5-12"], "past the reading position")
        usage(["--summarize", "--pages", "9-3"], "--pages")
        usage(["--summarize", "--section", "3"], "past the reading position")
        usage(["--summarize", "--section", "9"], "no section 9")
        usage(["--recap", "--pages", "1-3"], "--recap")
        usage(["--pages", "1-3"], "need --summarize")
        usage(["--summarize", "who is Marta?"], "takes no question")
    }
}
