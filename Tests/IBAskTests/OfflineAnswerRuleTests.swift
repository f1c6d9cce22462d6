import XCTest
import IBCore
@testable import IBAsk

/// What the offline answer may quote, when it declines, and the --page bound.
final class OfflineAnswerRuleTests: XCTestCase {
    func testFrontAndBackMatterSectionsAreNotTheBook() {
        XCTAssertTrue(ExtractiveRules.isMatter(section: ["Dramatis Personae"]))
        XCTAssertTrue(ExtractiveRules.isMatter(section: ["Contents"]))
        XCTAssertTrue(ExtractiveRules.isMatter(section: ["Uncopyright"]))
        XCTAssertTrue(ExtractiveRules.isMatter(section: ["Back matter", "Colophon"]))
        XCTAssertTrue(ExtractiveRules.isMatter(section: ["THE FULL PROJECT GUTENBERG LICENSE"]))
        XCTAssertFalse(ExtractiveRules.isMatter(section: ["Act I", "Scene V"]))
        XCTAssertFalse(ExtractiveRules.isMatter(section: ["Chapter 1. Loomings."]))
        XCTAssertFalse(ExtractiveRules.isMatter(section: nil))
        let imprint = Passage(bookID: "b", chunkIndex: 0, startPage: 1, endPage: 1,
                              text: "This ebook is based on a transcription from Project Gutenberg. It is in the public domain.")
        XCTAssertTrue(ExtractiveRules.isMatter(imprint), "a book without sections: its licence words")
        let story = Passage(bookID: "b", chunkIndex: 5, startPage: 9, endPage: 9, text: "He wrote his will and left the copyright to his son.")
        XCTAssertFalse(ExtractiveRules.isMatter(story))
    }

    func testListEntriesHeadingsAndLicenceTextAreNotQuoted() {
        XCTAssertFalse(ExtractiveRules.isQuotable("Ghost of Hamlet’s father"), "a cast-list entry")
        XCTAssertFalse(ExtractiveRules.isQuotable("Chapter 42 The Whiteness of the Whale"), "a contents line")
        XCTAssertFalse(ExtractiveRules.isQuotable("This ebook is the product of many hours of hard work by volunteers."))
        XCTAssertFalse(ExtractiveRules.isQuotable("They may still be copyrighted in other countries."))
        XCTAssertTrue(ExtractiveRules.isQuotable("The serpent that did sting thy father’s life now wears his crown."))
        XCTAssertTrue(ExtractiveRules.isQuotable("“Who’s there?”"))
        XCTAssertTrue(ExtractiveRules.isQuotable("她走了。"))
    }

    func testRepeatsAreFoundThroughCaseQuotesAndCutEdges() {
        let whole = ExtractiveRules.key("“Call me Ishmael,” he said, and sat down by the fire.")
        XCTAssertTrue(ExtractiveRules.repeats(ExtractiveRules.key("call me Ishmael he said and sat down by the fire"), [whole]))
        XCTAssertTrue(ExtractiveRules.repeats(ExtractiveRules.key("he said, and sat down by the fire."), [whole]), "a chunk cut mid-sentence")
        XCTAssertFalse(ExtractiveRules.repeats(ExtractiveRules.key("The fire went out before dawn."), [whole]))
        // Moby-Dick, p. 609: two overlapping chunks, the second cut mid-sentence; the
        // build before quoted both. The whole sentence replaces its fragment.
        let fragment = "to that spot, and sustained there by the rope; under these circumstances, its fastened end on deck is always given in strict charge to some one man."
        let sentence = "When in working with his hands at some lofty almost isolated place in the rigging, the sailor at sea is hoisted up " + fragment
        var picked: [(index: Int, key: String)] = []
        for (i, s) in [fragment, sentence, "Because in such a wilderness of running rigging the ends are cast down.", fragment].enumerated() {
            ExtractiveRules.pick(i, key: ExtractiveRules.key(s), into: &picked)
        }
        XCTAssertEqual(picked.map(\.index), [1, 2], "the whole sentence once, then the other one")
    }

    func testAWeakBestSentenceShowsThePassagesInstead() throws {
        let asker = try ExtractiveTests.offlineAsker()
        // Shares words with the book (found by the full-text search) but asks about something else.
        let weak = try asker.ask("Which harpooner kept the white whale's head on the lamp deck?", history: []) { _ in }
        XCTAssertFalse(weak.answered, weak.answer)
        XCTAssertTrue(weak.answer.hasPrefix("No offline answer"), weak.answer)
        XCTAssertFalse(weak.answer.contains("“"), "no quoted sentence passed off as an answer: \(weak.answer)")
        XCTAssertTrue(weak.answer.contains("(p. "), "the passages are shown with their pages: \(weak.answer)")
        let good = try asker.ask("What did Elena find washed up on the shore?", history: []) { _ in }
        XCTAssertTrue(good.answered, good.answer)
        let json = AskCommand.output(weak, answer: weak.answer, question: "q", conversationID: "c", book: asker.book, strict: false)
        XCTAssertEqual(json["answered"], .bool(false))
        XCTAssertEqual(AskCommand.output(good, answer: good.answer, question: "q", conversationID: "c", book: asker.book, strict: false)["answered"], .bool(true))
    }

    func testPagePastTheEndIsAUsageErrorNamingTheOptionAndPageCount() throws {
        let lib = try TestLibrary(currentPage: 4)
        XCTAssertThrowsError(try lib.context(page: "999")) { error in
            let e = error as? IBError
            XCTAssertEqual(e?.code, .usage)
            XCTAssertTrue(e?.message.contains("--page") == true && e?.message.contains("6 pages") == true, "\(error)")
        }
        XCTAssertEqual(try lib.context(page: "5").currentPage, 6, "label 5 is physical page 6, the last")
    }
}
