// A forward pass whose products are split over threads (BertEncoder.productThreads, for
// a search's one question: by outputs over packed weights, else by rows) gives the
// vectors of one thread, bit for bit: each output is the same kernel's work on the
// same inputs, whichever thread does it.
import IBCore
@testable import IBModel
import XCTest

final class ProductThreadsTests: XCTestCase {
    func testSplitProductsGiveTheSameVectors() throws {
        let model: SentenceEncoder
        do { model = try ParityTests.model() } catch { throw XCTSkip("no model here: \(error)") }
        model.threads = 1
        let texts = try ParityTests.loadReference().map(\.text) + [
            "Near the end, where does Ahab ask the carpenter, hammering away at Queequeg's coffin, whether he sings while he works?",
            String(repeating: "a question long enough for many parts of eight rows each ", count: 12),
        ]
        XCTAssertGreaterThanOrEqual(model.productThreads.threads, 1)
        let one = texts.map { model.embed([$0])[0].map(\.bitPattern) }
        for packed in [false, true] {
            if packed { model.packWeights() }
            for threads in [2, 3, 8] {
                model.productThreads = ThreadShare(threads)
                XCTAssertEqual(texts.map { model.embed([$0])[0].map(\.bitPattern) }, one, "\(threads) threads, packed \(packed)")
            }
            // Shared and changed between products (a hybrid search's full-text half gives its core back).
            let share = ThreadShare(1)
            model.productThreads = share
            for (i, text) in texts.enumerated() {
                share.set(i % 2 == 0 ? 2 : 1)
                XCTAssertEqual(model.embed([text])[0].map(\.bitPattern), one[i])
            }
            model.productThreads = ThreadShare(1)
        }
    }
}
