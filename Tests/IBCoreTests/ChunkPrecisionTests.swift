// The chunk record's "precision": written when set, read back; absent reads as
// fp32 (records from before the field, and HTTP providers' vectors); an unknown
// value is refused with the field named.
import XCTest
@testable import IBCore

final class ChunkPrecisionTests: XCTestCase {
    func chunk(precision: String?) -> ChunkRecord {
        var chunk = ChunkRecord(bookID: "b1", index: 0, startPage: 1, endPage: 1, startOffset: 0, endOffset: 5,
                                tokenCount: 3, text: "hello", embedding: [0.6, -0.8], model: "m")
        chunk.precision = precision
        return chunk
    }

    func written(_ chunk: ChunkRecord) -> String {
        var out: [UInt8] = []
        chunk.write(to: &out, encoding: .base64)
        return String(decoding: out, as: UTF8.self)
    }

    func testRoundTripWithThePrecision() throws {
        let int8 = chunk(precision: "int8")
        let line = written(int8)
        XCTAssertTrue(line.contains(#""model":"m","precision":"int8","dim":2"#), line)
        guard case .chunk(let back) = try Record(JSON.parse(Array(line.utf8))) else { return XCTFail("not a chunk") }
        XCTAssertEqual(back, int8)
        XCTAssertEqual(back.effectivePrecision, "int8")
        XCTAssertTrue(back.extra.entries.isEmpty, "precision is a known field, not an extra one")
    }

    func testRoundTripWithoutThePrecisionReadsAsFP32() throws {
        let plain = chunk(precision: nil)
        let line = written(plain)
        XCTAssertFalse(line.contains("precision"), line)
        guard case .chunk(let back) = try Record(JSON.parse(Array(line.utf8))) else { return XCTFail("not a chunk") }
        XCTAssertEqual(back, plain)
        XCTAssertNil(back.precision)
        XCTAssertEqual(back.effectivePrecision, "fp32")
    }

    func testAChunkWithoutAnEmbeddingWritesNoPrecision() {
        var bare = chunk(precision: "int8")
        bare.embedding = nil
        XCTAssertFalse(written(bare).contains("precision"))
    }

    func testUnknownPrecisionIsRefused() {
        let base = #"{"type":"chunk","book_id":"b","index":0,"start_page":1,"end_page":1,"text":"x","embedding":[1,0]"#
        XCTAssertThrowsError(try Record(JSON.parse(Array((base + #","precision":"int4"}"#).utf8)))) { error in
            XCTAssertTrue("\(error)".contains("'precision' is 'int4'"), "\(error)")
        }
        XCTAssertThrowsError(try Record(JSON.parse(Array((base + #","precision":8}"#).utf8)))) { error in
            XCTAssertTrue("\(error)".contains("'precision' must be a string"), "\(error)")
        }
    }
}
