// Window vectors (SentenceEncoder.embedWithWindows): the chunk vectors are the
// very ones embed() gives, windows cover the tokens in runs of about 32 and then
// paragraph by paragraph, and a window is closest to the sentence it was pooled from.
import IBCore
@testable import IBModel
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

    func testParagraphSpansAddUpToTheTokens() throws {
        let encoder = try model()
        let s = Self.sentences
        // Three paragraphs; the last (two sentences, over 64 tokens) is cut after its first sentence.
        let text = s[0] + "\n\n" + s[1] + "\n  \n" + s[2] + " " + s[3]
        let n = encoder.tokenize(text).ids.count - 2
        let spans = PassageSpans.spans(text, tokenizer: encoder.tokenizer, maxTokens: SentenceEncoder.paragraphTokens, limit: n + 1)
        func count(_ t: String) -> Int { encoder.tokenize(t).ids.count - 2 }
        var expected: [(Int, Int)] = []
        var at = 1
        for sentence in s { expected.append((at, at + count(sentence))); at += count(sentence) }
        XCTAssertEqual(spans.map { [$0.start, $0.end] }, expected.map { [$0.0, $0.1] })
        XCTAssertEqual(spans.last?.end, n + 1, "the spans end at [SEP]")
        // Clipped at a truncated sequence's [SEP]; one paragraph alone makes no spans.
        XCTAssertEqual(PassageSpans.spans(text, tokenizer: encoder.tokenizer, maxTokens: 64, limit: expected[1].1 - 3).last?.end, expected[1].1 - 3)
        XCTAssertTrue(PassageSpans.spans(s[0] + " " + s[1], tokenizer: encoder.tokenizer, maxTokens: 64, limit: n + 1).isEmpty)
        XCTAssertEqual(PassageSpans.sentences("He left. \"Why?\" she asked (twice.) Then 3.5 m."[...]).map(String.init),
                       ["He left.", " \"Why?\"", " she asked (twice.)", " Then 3.5 m."])
    }

    func testParagraphWindowsFollowTheFixedOnes() throws {
        let encoder = try model()
        let text = Self.sentences.joined(separator: "\n\n")
        let codes = encoder.embedWithWindows([text])[0].windows
        let dim = encoder.dimension
        let n = encoder.tokenize(text).ids.count - 2
        let fixed = (n + SentenceEncoder.windowTokens - 1) / SentenceEncoder.windowTokens
        XCTAssertEqual(codes.count, (fixed + Self.sentences.count) * dim, "fixed windows, then one per paragraph")
        let windows = stride(from: 0, to: codes.count, by: dim).map { Self.dequantize(codes[$0..<($0 + dim)]) }
        let query = encoder.embed(["the keeper of the lighthouse saved shipwrecked seamen in a gale"])[0]
        let scores = windows.map { Self.dot($0, query) }
        let best = scores.indices.max { scores[$0] < scores[$1] }!
        XCTAssertEqual(best, fixed + 2, "the lighthouse paragraph's own window matches best: \(scores)")
        // Each paragraph window is that paragraph pooled in context: nearer to it embedded alone than to any other paragraph.
        let alone = encoder.embed(Self.sentences)
        for p in alone.indices {
            let own = Self.dot(windows[fixed + p], alone[p])
            for q in alone.indices where q != p { XCTAssertGreaterThan(own, Self.dot(windows[fixed + p], alone[q]) + 0.2) }
        }
    }

    /// One int8 rule for the whole toolchain: window codes round ties to even, the bytes
    /// ibvec's vec_quantize_i8 gives for the same vector (IBVecTests.testInt8TiesRoundToEven,
    /// scripts/e2e/ibvec.sh). The row's norm is 128, so pooling leaves it exact and every
    /// component but the largest lands on a tie: 12.5, -8.5, 4.5, -2.5.
    func testWindowCodesRoundTiesToEven() {
        let row: [Float] = [127, 12.5, -8.5, 4.5, -2.5]
        let codes = row.withUnsafeBufferPointer {
            SentenceEncoder.windowCodes(states: $0.baseAddress!, dim: row.count, spans: [(start: 0, end: 1)])
        }
        XCTAssertEqual(codes, [127, 12, -8, 4, -2], "half away from zero would give [127, 13, -9, 5, -3]")
    }
}
