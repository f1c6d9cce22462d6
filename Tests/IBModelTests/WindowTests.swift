// Window vectors (SentenceEncoder.embedWithWindows): the chunk vectors are the
// very ones embed() gives, windows cover the tokens in runs of about 32, and a
// window is closest to the sentence it was pooled from.
import IBCore
import IBModel
import XCTest

final class WindowTests: XCTestCase {
    static let sentences = [
        "The baker kneaded the heavy dough long before dawn, shaped it into round loaves, dusted them with flour and left them to rise slowly beside the warm brick oven while the kitchen filled with the smell of yeast.",
        "Astronomers at the mountain observatory pointed their great telescope at a faint distant comet, measured its glowing tail night after night and argued about the orbit that had carried it across the winter sky.",
        "The old lighthouse keeper rowed his small boat out through the roaring storm, reached the wreck on the rocks and pulled the drowning sailors one by one from the broken ship before the waves could take them.",
        "A committee of tired accountants argued for hours about the interest rates, the quarterly dividends and the misprinted tables in the annual banking report until the chairman finally closed the meeting.",
    ]

    func model() throws -> SentenceEncoder {
        let dir = Config.modelDirectory()
        guard FileSystem.isDirectory(dir) else { throw XCTSkip("no model at \(dir): run scripts/fetch-model") }
        return try SentenceEncoder(directory: dir)
    }

    static func dequantize(_ codes: ArraySlice<Int8>) -> [Float] {
        let v = codes.map(Float.init)
        let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return v.map { $0 / norm }
    }

    static func dot(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } }

    func testVectorsAreEmbedsAndWindowsCoverTheTokens() throws {
        let encoder = try model()
        let long = Self.sentences.joined(separator: " ")
        let texts = [long, "A short line.", Self.sentences[2]]
        let plain = encoder.embed(texts)
        let windowed = encoder.embedWithWindows(texts)
        XCTAssertEqual(windowed.map(\.vector), plain, "the chunk vectors must not change")
        let tokens = encoder.tokenize(long).ids.count - 2
        XCTAssertGreaterThan(tokens, SentenceEncoder.windowTokens)
        let expected = (tokens + SentenceEncoder.windowTokens - 1) / SentenceEncoder.windowTokens
        XCTAssertEqual(windowed[0].windows.count, expected * encoder.dimension)
        XCTAssertEqual(windowed[1].windows, [], "a text of few tokens has no windows")
        // Codes use the int8 range: each window's largest component is +-127.
        for w in 0..<expected {
            let slice = windowed[0].windows[(w * encoder.dimension)..<((w + 1) * encoder.dimension)]
            XCTAssertEqual(slice.map { abs(Int($0)) }.max(), 127)
        }
    }

    func testWindowIsClosestToItsOwnSentence() throws {
        let encoder = try model()
        let long = Self.sentences.joined(separator: " ")
        let codes = encoder.embedWithWindows([long])[0].windows
        let dim = encoder.dimension
        let windows = stride(from: 0, to: codes.count, by: dim).map { Self.dequantize(codes[$0..<($0 + dim)]) }
        let chunk = encoder.embed([long])[0]
        let query = encoder.embed(["the keeper of the lighthouse saved shipwrecked seamen in a gale"])[0]
        // The best window overlaps the lighthouse sentence's tokens, and it beats the whole chunk.
        let scores = windows.map { Self.dot($0, query) }
        let best = scores.indices.max { scores[$0] < scores[$1] }!
        func count(_ text: String) -> Int { encoder.tokenize(text).ids.count - 2 }
        let first = count(Self.sentences[0]) + count(Self.sentences[1])
        let last = first + count(Self.sentences[2])
        let n = encoder.tokenize(long).ids.count - 2, m = windows.count
        let (from, to) = (best * n / m, (best + 1) * n / m)
        XCTAssertTrue(from < last && to > first, "best window \(best) [\(from), \(to)) misses the sentence [\(first), \(last)): \(scores)")
        XCTAssertGreaterThan(scores[best], Self.dot(chunk, query) + 0.03, "window \(scores[best]) vs chunk \(Self.dot(chunk, query))")
    }
}
