import XCTest
import IBCore
@testable import IBTokenizer

/// The repository's own fixtures, found from this file's path.
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../shared/fixtures").standardized.path

func modelDirectory() throws -> String {
    let dir = Config.modelDirectory()
    guard FileManager.default.fileExists(atPath: dir + "/vocab.txt") else {
        throw XCTSkip("model not installed: run scripts/fetch-model")
    }
    return dir
}

final class TokenizerParityTests: XCTestCase {
    /// 80 texts with ids from the original tokenizer: every id must match.
    func testReferenceIdsMatchExactly() throws {
        let tokenizer = try WordPieceTokenizer(modelDirectory: modelDirectory())
        var checked = 0
        var mismatches: [String] = []
        try RecordReader.forEachJSON(path: fixtures + "/minilm/tokens.jsonl") { json in
            let text = json["text"]!.stringValue!
            let expected = json["input_ids"]!.arrayValue!.map { Int32($0.intValue!) }
            let got = tokenizer.encode(text, maxLength: 256)
            if got != expected {
                mismatches.append("\(text.prefix(60).debugDescription): got \(tokenizer.tokens(got).prefix(30)) expected \(tokenizer.tokens(expected).prefix(30))")
            }
            checked += 1
        }
        XCTAssertEqual(checked, 80)
        XCTAssertEqual(mismatches, [], mismatches.joined(separator: "\n"))
    }

    /// 2,417 more texts (book lines and random strings over many scripts,
    /// unassigned and private-use code points) with ids from the Hugging Face
    /// tokenizers library, untruncated.
    func testExtraReferenceIdsMatchExactly() throws {
        let tokenizer = try WordPieceTokenizer(modelDirectory: modelDirectory())
        var checked = 0, mismatches = 0
        try RecordReader.forEachJSON(path: fixtures + "/minilm/tokens-extra.jsonl") { json in
            let expected = json["input_ids"]!.arrayValue!.map { Int32($0.intValue!) }
            if tokenizer.encode(json["text"]!.stringValue!) != expected { mismatches += 1 }
            checked += 1
        }
        XCTAssertEqual(checked, 2417)
        XCTAssertEqual(mismatches, 0)
    }

    func testCountMatchesEncode() throws {
        let tokenizer = try WordPieceTokenizer(modelDirectory: modelDirectory())
        let text = "The Adventures of Sherlock Holmes — “A Scandal in Bohemia”. 我喜欢读书。"
        XCTAssertEqual(tokenizer.countTokens(text) + 2, tokenizer.encode(text).count)
    }

    func testTruncationKeepsSep() throws {
        let tokenizer = try WordPieceTokenizer(modelDirectory: modelDirectory())
        let ids = tokenizer.encode(String(repeating: "word ", count: 600), maxLength: 256)
        XCTAssertEqual(ids.count, 256)
        XCTAssertEqual(ids.first, tokenizer.clsID)
        XCTAssertEqual(ids.last, tokenizer.sepID)
    }

    func testMissingVocabularyNamesFetchModel() {
        XCTAssertThrowsError(try WordPieceTokenizer(modelDirectory: "/nonexistent")) { error in
            XCTAssertTrue("\(error)".contains("scripts/fetch-model"))
        }
    }
}

extension RecordReader {
    /// Test helper: each line of a JSONL file as JSON.
    static func forEachJSON(path: String, _ body: (JSON) throws -> Void) throws {
        try LineReader(path: path).forEachLine { line in
            if line.isEmpty { return }
            try body(JSON.parse(line))
        }
    }
}

final class CountingTests: XCTestCase {
    /// The marks countTokens(utf8:) takes on its fast path behave as it assumes.
    func testSimplePunctuationIsPunctuationUnchangedByNormalisation() {
        for v in UInt32(0xA0)...0xFFFF where WordPieceTokenizer.isSimplePunctuation(v) {
            let scalar = Unicode.Scalar(v)!
            XCTAssertEqual(CharacterRules.inputClass(scalar), .letter, "U+\(String(v, radix: 16))")
            var normalized: [Unicode.Scalar] = []
            CharacterRules.normalize(scalar, into: &normalized)
            XCTAssertEqual(normalized, [scalar], "U+\(String(v, radix: 16))")
            XCTAssertTrue(CharacterRules.isPunctuation(scalar), "U+\(String(v, radix: 16))")
        }
    }

    /// countTokens(utf8:) agrees with tokenize on words mixing ASCII, marks and other scripts.
    func testCountsMatchTokenize() throws {
        let tokenizer = try WordPieceTokenizer(modelDirectory: modelDirectory())
        var texts = ["“Hello,”", "’tis", "don’t—stop…", "«Bonjour»", "¿Qué?", "a。b，c！d？", "x\u{2011}y", "“[CLS]”",
                     "—", "‘’", "“Supercalifragilisticexpialidocious”", String(repeating: "a", count: 120) + "—b"]
        var generator = SystemRandomNumberGenerator()
        let alphabet: [String] = ["a", "Z", "q", "7", ".", ",", "'", "\"", "-", "[", "\u{1}", "\t", " ", "—", "“", "”", "’", "…",
                                  "«", "»", "。", "，", "é", "ß", "中", "😀", "\u{200B}", "\u{2044}", "\u{A0}", "ﬁ"]
        for _ in 0..<3000 {
            texts.append((0..<Int.random(in: 1...14, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined())
        }
        for text in texts {
            var copy = text
            let counted = copy.withUTF8 { tokenizer.countTokens(utf8: $0) }
            XCTAssertEqual(counted, tokenizer.tokenize(text).count, text.debugDescription)
        }
    }
}
