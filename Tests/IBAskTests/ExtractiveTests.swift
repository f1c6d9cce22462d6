import XCTest
import IBCore
@testable import IBAsk

/// The offline answer: the real sentence encoder over a real library.
final class ExtractiveTests: XCTestCase {
    func testPicksTheClosestSentencesAndCitesTheirPages() throws {
        let asker = try Self.offlineAsker()
        var streamed = ""
        let result = try asker.ask("What did Elena find washed up on the shore?", history: []) { streamed += $0 }
        XCTAssertEqual(streamed, result.answer)
        XCTAssertTrue(result.answer.hasPrefix("Extractive answer"), "honest about being extractive: \(result.answer)")
        XCTAssertTrue(result.answer.contains("“Elena found a wooden box washed up on the shore.” (p. 2)"), result.answer)
        let quoted = result.answer.split(separator: "\n").dropFirst()
        XCTAssertTrue((1...3).contains(quoted.count), result.answer)
        XCTAssertFalse(result.answer.contains("chapel"), "nothing past the page")
        XCTAssertTrue(result.citations.allSatisfy(\.supported))
        XCTAssertEqual(result.provider, "extractive")
        XCTAssertEqual(result.calls, 0)

        let nothing = try asker.ask("zebra quantum", history: []) { _ in }
        XCTAssertTrue(nothing.answer.contains("Nothing in the book up to page 3"), nothing.answer)
    }

    /// ib-ask's offline path (no provider) over the test library at page 4, with the real model;
    /// skips when the model is not installed.
    static func offlineAsker() throws -> Asker {
        let modelDir = Config.modelDirectory()
        try XCTSkipUnless(FileSystem.exists(modelDir + "/model.safetensors"), "run scripts/fetch-model")
        let lib = try TestLibrary(currentPage: 4)
        let embedder = try ModelEmbedder(directory: modelDir)
        return Asker(book: try lib.context(), provider: nil, retriever: { FullTextRetriever(db: lib.library.db) },
                     embedder: { embedder })
    }
}
