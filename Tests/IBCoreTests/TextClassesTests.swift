import XCTest
@testable import IBCore

/// The one definition of each character class: where they differ on purpose.
final class TextClassesTests: XCTestCase {
    func testSpacesAndTrimming() {
        XCTAssertEqual(TextClasses.trim(" \t\u{3000}读了20页\u{00A0}\r\n"), "读了20页")
        XCTAssertTrue(TextClasses.isSpace("\r\n"), "a CR LF pair is one Character and a space")
        XCTAssertFalse(TextClasses.isSpace(" \u{301}"), "a space with a combining mark is no space")
        XCTAssertEqual(TextClasses.trim(" a\u{00A0}", where: TextClasses.isASCIISpace), "a\u{00A0}")
        XCTAssertEqual(TextClasses.trim("\tkey: value\n", where: TextClasses.isBlank), "key: value\n")
        XCTAssertEqual(TextClasses.trim("  "), "")
    }

    func testHanCJKAndBERT() {
        for v: UInt32 in [0x4E2D, 0x3400, 0xF900, 0x20000, 0x2CEB0, 0x30000] { XCTAssertTrue(TextClasses.isHan(v), String(v, radix: 16)) }
        for v: UInt32 in [0x3042, 0x30A2, 0xAC00, 0x1100, 0x41] { XCTAssertFalse(TextClasses.isHan(v), String(v, radix: 16)) }
        // Kana and Hangul are CJK (matched character by character), not Han.
        for v: UInt32 in [0x3042, 0x30A2, 0x31F0, 0xAC00, 0x1100, 0x4E2D] { XCTAssertTrue(TextClasses.isCJK(v), String(v, radix: 16)) }
        XCTAssertFalse(TextClasses.isCJK(0x41))
        // BERT's table is the model's, not Unicode's: no Ext. F or G, no kana.
        XCTAssertTrue(TextClasses.isBERTChineseCharacter(0x4E2D))
        XCTAssertTrue(TextClasses.isBERTChineseCharacter(0x2F800))
        for v: UInt32 in [0x2CEB0, 0x30000, 0x3042] { XCTAssertFalse(TextClasses.isBERTChineseCharacter(v), String(v, radix: 16)) }
        XCTAssertTrue(TextClasses.containsHan("Sapiens 人类简史"))
        XCTAssertFalse(TextClasses.containsHan("ノルウェイの森".filter { !TextClasses.isHan($0) }))
    }

    /// The ASCII shortcuts answer exactly as the Unicode property tables do, on every scalar.
    func testWordAndWhitespaceScalarsMatchUnicodeProperties() {
        for v in UInt32(0)...0x10FFFF {
            guard let s = Unicode.Scalar(v) else { continue }
            XCTAssertEqual(TextClasses.isWordScalar(s), s.properties.isAlphabetic || s.properties.numericType != nil, "U+\(String(v, radix: 16))")
            XCTAssertEqual(TextClasses.isWhitespaceScalar(s), s.properties.isWhitespace, "U+\(String(v, radix: 16))")
        }
    }
}

/// Counts agree with their nouns in messages ("1 books stored" was one slip).
final class CountedTests: XCTestCase {
    func testOneIsSingularOthersPlural() {
        XCTAssertEqual(counted(1, "book") + " stored", "1 book stored")
        XCTAssertEqual(counted(0, "book"), "0 books")
        XCTAssertEqual(counted(2, "reader record"), "2 reader records")
        XCTAssertEqual(counted(1, "progress event"), "1 progress event")
        XCTAssertEqual(counted(3, "child", "children"), "3 children")
    }
}

/// Unknown subcommands get a suggestion only when one subcommand is close.
final class SubcommandSuggestionTests: XCTestCase {
    let index = ["delete", "export", "list", "quantize", "set-page", "show", "stats", "store", "vacuum"]

    func testSlipsNameTheSubcommand() {
        XCTAssertEqual(Subcommands.suggestion("lst", among: index), "list")
        XCTAssertEqual(Subcommands.suggestion("shwo", among: index), "show")
        XCTAssertEqual(Subcommands.suggestion("vacum", among: index), "vacuum")
        XCTAssertEqual(Subcommands.suggestion("setpage", among: index), "set-page")
        XCTAssertEqual(Subcommands.suggestion("statsu", among: ["status", "export", "import"]), "status")
        XCTAssertEqual(Subcommands.unknown("lst", suggestion: "list").message, "unknown command 'lst'; did you mean list?")
    }

    func testFilesLinesAndFarWordsAreLeftAlone() {
        XCTAssertNil(Subcommands.suggestion("list", among: index), "a subcommand itself")
        XCTAssertNil(Subcommands.suggestion("books.jsonl", among: index), "a file name")
        XCTAssertNil(Subcommands.suggestion("read 40 pages", among: ["status", "export", "import"]), "a capture line")
        XCTAssertNil(Subcommands.suggestion("zebra", among: index))
        XCTAssertNil(Subcommands.suggestion("st", among: index), "stats and store: not one")
    }
}
