import XCTest
@testable import IBCore

final class JSONTests: XCTestCase {
    func testRoundTripKeepsKeyOrderAndEscapes() throws {
        let text = #"{"type":"page","z":1,"a":"line\nnext \"q\" \u00e9 \ud83d\ude00","n":-1.5e3,"b":[true,false,null]}"#
        let json = try JSON.parse(text)
        XCTAssertEqual(json.objectValue?.keys, ["type", "z", "a", "n", "b"])
        XCTAssertEqual(json["a"]?.stringValue, "line\nnext \"q\" é 😀")
        XCTAssertEqual(json["n"]?.doubleValue, -1500)
        XCTAssertEqual(try JSON.parse(json.serialized), json)
    }

    func testMalformedInputReportsPosition() {
        for bad in ["{", "{\"a\":}", "[1,]", "\"\\x\"", "{\"a\" 1}", "tru", "01x", "\"\\ud800\""] {
            XCTAssertThrowsError(try JSON.parse(bad), bad)
        }
    }

    /// Found by scripts/fuzz/run records: a number past Double's range read as
    /// infinity, so a passed-through record came out with null in its place.
    func testNumbersOutOfRangeAreRefusedNotNulled() throws {
        for line in [#"{"type":"note","x":1e400}"#, #"{"type":"note","x":-1E+309}"#, #"[123456789e400]"#] {
            XCTAssertThrowsError(try JSON.parse(line), line) { error in
                XCTAssertTrue("\(error)".contains("number out of range"), "\(error)")
            }
        }
        // Large but finite, and underflow to zero, still read and round-trip.
        let big = try JSON.parse(#"[1.7976931348623157e308,1e-400,-0.0]"#)
        XCTAssertEqual(try JSON.parse(big.serialized), big)
    }

    func testDeepNestingIsRefused() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        XCTAssertThrowsError(try JSON.parse(deep))
    }

    func testControlCharactersAreEscaped() throws {
        let s = "a\u{01}b\tc"
        let json = JSON.string(s)
        XCTAssertEqual(json.serialized, "\"a\\u0001b\\tc\"")
        XCTAssertEqual(try JSON.parse(json.serialized).stringValue, s)
    }
}

final class RecordTests: XCTestCase {
    func testChunkEmbeddingBothEncodings() throws {
        let chunk = ChunkRecord(bookID: "b1", index: 3, startPage: 2, endPage: 3, startOffset: 5, endOffset: 9,
                                tokenCount: 12, text: "hello", embedding: [0.25, -1, 3.5e-7], model: "m")
        for encoding in [EmbeddingEncoding.floats, .base64] {
            var out: [UInt8] = []
            chunk.write(to: &out, encoding: encoding)
            guard case .chunk(let back) = try Record(JSON.parse(out)) else { return XCTFail("not a chunk") }
            XCTAssertEqual(back.embedding, chunk.embedding)
            XCTAssertEqual(back.model, "m")
            XCTAssertEqual(back.endOffset, 9)
        }
    }

    func testChunkWindowsRoundTripAndAreChecked() throws {
        var chunk = ChunkRecord(bookID: "b1", index: 0, startPage: 1, endPage: 1, startOffset: 0, endOffset: 5,
                                tokenCount: 3, text: "hello", embedding: [0.5, -0.5, 0.5, -0.5], model: "m")
        chunk.windows = [127, -127, 3, 0, -1, 2, 127, -90]
        var out: [UInt8] = []
        chunk.write(to: &out)
        XCTAssertTrue(String(decoding: out, as: UTF8.self).contains(#""windows":"f4EDAP8Cf6Y=""#), String(decoding: out, as: UTF8.self))
        guard case .chunk(let back) = try Record(JSON.parse(out)) else { return XCTFail("not a chunk") }
        XCTAssertEqual(back, chunk)
        // Without windows the field is left out.
        chunk.windows = []
        out = []
        chunk.write(to: &out)
        XCTAssertFalse(String(decoding: out, as: UTF8.self).contains("windows"))
        // Codes must come whole windows at a time, and beside an embedding.
        let base = #"{"type":"chunk","book_id":"b","index":0,"start_page":1,"end_page":1,"text":"x""#
        XCTAssertThrowsError(try Record(JSON.parse(base + #","embedding":[1,0,0,0],"windows":"gYED"}"#))) { error in
            XCTAssertTrue("\(error)".contains("4 per window"), "\(error)")
        }
        XCTAssertThrowsError(try Record(JSON.parse(base + #","windows":"gYEDAA=="}"#))) { error in
            XCTAssertTrue("\(error)".contains("without an embedding"), "\(error)")
        }
        XCTAssertThrowsError(try Record(JSON.parse(base + #","embedding":[1,0,0,0],"windows":"not base64!"}"#)))
    }

    func testUnknownFieldsAndTypesPassThrough() throws {
        let line = #"{"type":"page","book_id":"b","page":1,"text":"t","mine":[1,2]}"#
        guard case .page(let page) = try Record(JSON.parse(line)) else { return XCTFail() }
        XCTAssertEqual(page.json["mine"], [1, 2])
        guard case .other(let type, _) = try Record(JSON.parse(#"{"type":"quote","x":1}"#)) else { return XCTFail() }
        XCTAssertEqual(type, "quote")
    }

    func testMissingFieldIsNamed() {
        XCTAssertThrowsError(try Record(JSON.parse(#"{"type":"page","page":1,"text":""}"#))) { error in
            XCTAssertTrue("\(error)".contains("book_id"), "\(error)")
        }
        XCTAssertThrowsError(try Record(JSON.parse(#"{"type":"chunk","book_id":"b","index":0,"start_page":1,"end_page":1,"text":"x","embedding":[1,"a"]}"#)))
    }
}

final class ReaderTests: XCTestCase {
    func write(_ bytes: [UInt8]) -> String {
        let path = NSTemporaryDirectory() + "ibcore-\(UUID().uuidString).jsonl"
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    func testBOMBlankLinesAndCRLF() throws {
        let text = "\u{FEFF}{\"type\":\"x\"}\r\n\n   \n{\"type\":\"y\"}"
        var types: [String] = []
        try RecordReader(path: write(Array(text.utf8))).forEach { record, _ in types.append(record.type) }
        XCTAssertEqual(types, ["x", "y"])
    }

    func testMalformedLineNamesFileAndLine() throws {
        let path = write(Array("{\"type\":\"x\"}\n\n{oops}\n".utf8))
        XCTAssertThrowsError(try RecordReader(path: path).forEach { _, _ in }) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(path):3: malformed JSON"), "\(error)")
        }
    }

    func testOverlongLineIsAnErrorNotACrash() throws {
        let path = write([UInt8](repeating: UInt8(ascii: "a"), count: 3 << 20))
        let reader = try LineReader(path: path, maxLineBytes: 1 << 20)
        XCTAssertThrowsError(try reader.forEachLine { _ in }) { error in
            XCTAssertTrue("\(error)".contains(":1: line is longer than"), "\(error)")
        }
    }

    /// With onOverlongLine set, a line past the cap is skipped and reported, and
    /// reading carries on: wherever it ends (in the buffer, past it, at the end of input).
    func testOverlongLinesCanBeSkipped() throws {
        let long = String(repeating: "x", count: 3 << 20), short = String(repeating: "y", count: 1_500)
        let path = write(Array("a\n\(long)\nb\n\(short)\nc\n\(long)".utf8))
        let reader = try LineReader(path: path, maxLineBytes: 1_000)
        var skipped: [Int] = [], lines: [String] = []
        reader.onOverlongLine = { skipped.append($0) }
        try reader.forEachLine { lines.append(String(decoding: $0, as: UTF8.self)) }
        XCTAssertEqual(lines, ["a", "b", "c"])
        XCTAssertEqual(skipped, [2, 4, 6])
    }

    func testLongLinesAcrossBufferBoundaries() throws {
        let long = String(repeating: "x", count: 200_000)
        let path = write(Array("a\n\(long)\nb".utf8))
        var lengths: [Int] = []
        try LineReader(path: path).forEachLine { lengths.append($0.count) }
        XCTAssertEqual(lengths, [1, 200_000, 1])
    }
}

final class SupportTests: XCTestCase {
    func testSHA256KnownVectors() {
        XCTAssertEqual(SHA256.hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(String(repeating: "a", count: 1000)),
                       "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    func testTimestampsReadEveryAcceptedForm() {
        let expected = 1_700_000_000.0
        for text in ["2023-11-14T22:13:20Z", "2023-11-14T22:13:20+00:00", "2023-11-14 22:13:20",
                     "2023-11-14T22:13:20.000000+00:00", "2023-11-14T23:13:20+01:00"] {
            XCTAssertEqual(Timestamp.parse(text), expected, text)
        }
        XCTAssertEqual(Timestamp.parse("2023-11-14T22:13:20.250Z"), expected + 0.25)
        XCTAssertNil(Timestamp.parse("yesterday"))
        XCTAssertEqual(Timestamp.iso8601(expected), "2023-11-14T22:13:20Z")
    }

    func testArguments() throws {
        let args = try Arguments(["-k", "5", "--book=x", "query", "--json", "--", "--literal"],
                                 options: [.init("top", short: "k", takesValue: true), .init("book", takesValue: true), .init("json")])
        XCTAssertEqual(try args.int("top", min: 1, max: 10), 5)
        XCTAssertEqual(args.value("book"), "x")
        XCTAssertTrue(args.has("json"))
        XCTAssertEqual(args.positionals, ["query", "--literal"])
        XCTAssertThrowsError(try Arguments(["--nope"], options: []))
    }

    func testBase64() {
        for n in 0..<10 {
            let bytes = (0..<n).map { UInt8($0 * 37 & 255) }
            XCTAssertEqual(Base64.decode(Base64.encode(bytes)), bytes)
        }
        XCTAssertNil(Base64.decode("a=b="))
    }
}
