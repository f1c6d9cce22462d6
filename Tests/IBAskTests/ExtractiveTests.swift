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

    /// A session (ib-ask reading questions from stdin) embeds a sentence once:
    /// the second question meeting the same passages embeds only what is new,
    /// and every answer is the one a fresh ib-ask gives.
    func testASessionEmbedsASentenceOnceAndAnswersAlike() throws {
        let counting = try CountingEmbedder()
        let session = try Self.offlineAsker(embedder: counting)
        let questions = ["What did Elena find washed up on the shore?", "Where was the wooden box found?",
                         "What did Elena find washed up on the shore?"]
        var embedded: [Int] = []
        for question in questions {
            let before = counting.texts
            let answer = try session.ask(question, history: []) { _ in }.answer
            embedded.append(counting.texts - before)
            XCTAssertEqual(answer, try Self.offlineAsker().ask(question, history: []) { _ in }.answer, question)
        }
        XCTAssertGreaterThan(embedded[0], 3, "the question and its passages' sentences")
        XCTAssertLessThan(embedded[1], embedded[0], "the same passages' sentences are not embedded again")
        XCTAssertEqual(embedded[2], 0, "a question asked again embeds nothing")
    }

    /// ib-ask's offline path (no provider) over the test library at page 4, with the real model;
    /// skips when the model is not installed.
    static func offlineAsker(embedder: SentenceEmbedder? = nil) throws -> Asker {
        let modelDir = Config.modelDirectory()
        try XCTSkipUnless(FileSystem.exists(modelDir + "/model.safetensors"), "run scripts/fetch-model")
        let lib = try TestLibrary(currentPage: 4)
        let embedder = try embedder ?? ModelEmbedder(directory: modelDir)
        return Asker(book: try lib.context(), provider: nil, retriever: { FullTextRetriever(db: lib.library.db) },
                     embedder: { embedder })
    }
}

/// The real encoder, counting the texts it is asked to embed.
final class CountingEmbedder: SentenceEmbedder {
    let inner: ModelEmbedder
    var texts = 0
    init() throws {
        let modelDir = Config.modelDirectory()
        try XCTSkipUnless(FileSystem.exists(modelDir + "/model.safetensors"), "run scripts/fetch-model")
        inner = try ModelEmbedder(directory: modelDir)
    }
    var modelName: String { inner.modelName }
    func embed(_ texts: [String]) throws -> [[Float]] {
        self.texts += texts.count
        return try inner.embed(texts)
    }
}
