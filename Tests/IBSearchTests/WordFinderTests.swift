// WordFinder answers as splitting the text into QueryText's words would: the
// same whole words and word starts, on English, accented, CJK-adjoining and
// punctuated text, and on random mixtures of them.
import XCTest
@testable import IBSearch

final class WordFinderTests: XCTestCase {
    /// The old way: the set of the text's lowercased non-CJK words.
    private func reference(_ text: String, _ word: String, prefix: Bool) -> Bool {
        let words = Set(QueryText.words(text).filter { !$0.cjk }.map { $0.text.lowercased() })
        return prefix ? words.contains { $0.hasPrefix(word) } : words.contains(word)
    }

    func testWholeWordsAndPrefixes() {
        let text = "The Whale’s jaw—WHALING in 1851; naïve Ahab met 白鯨whale at sea-side. Whitby"
        let finder = WordFinder(text)
        XCTAssertTrue(finder.contains(word: "whale", prefix: false))
        XCTAssertTrue(finder.contains(word: "whal", prefix: true))        // whale, whaling
        XCTAssertFalse(finder.contains(word: "whal", prefix: false))
        XCTAssertTrue(finder.contains(word: "naïve", prefix: false))
        XCTAssertTrue(finder.contains(word: "1851", prefix: false))
        XCTAssertFalse(finder.contains(word: "hab", prefix: true))          // inside "ahab"
        XCTAssertFalse(finder.contains(word: "whit", prefix: false))
        XCTAssertTrue(finder.contains(word: "whit", prefix: true))
        XCTAssertTrue(finder.contains(word: "side", prefix: false))
        XCTAssertTrue(finder.contains(phrase: "at sea"))
        XCTAssertFalse(finder.contains(word: "", prefix: true))
    }

    func testAgreesWithSplittingIntoWords() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["whale", "Whal", "ing", "İ", "ΣΑΣ", "Ǆ", "WHALE", "s", " ", " ", "—", "’", "-", "é", "naïve", "白", "鯨", "1", "85", ".", "Σ", "straße", "\n", "ahab", "hab", "🐋", "𝔄", "€"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...14, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let finder = WordFinder(text)
            for word in ["whale", "whal", "ing", "hab", "ahab", "naïve", "1", "85", "s", "straße", "é", "σας", "ǆ", "i̇"] {
                for prefix in [false, true] {
                    XCTAssertEqual(finder.contains(word: word, prefix: prefix), reference(text, word, prefix: prefix),
                                   "\(word) prefix \(prefix) in \(text.debugDescription)")
                }
            }
        }
    }
}
