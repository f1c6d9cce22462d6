// Titles heard wrong, matched by sound (SoundAlikeNames.swift): taken only when
// one book is a clear winner; unknown books stay unknown, two close ones are
// two readings. Written against the spoken set's test library.
import XCTest
import IBCore
@testable import IBCapture

final class SoundAlikeNamesTests: XCTestCase {
    let parser = CaptureParser(today: Day(year: 2026, month: 11, day: 28)!)
    let names = SpokenNames(titles: ["Moby Dick", "Persuasion", "Sense and Sensibility", "Emma", "Crime and Punishment",
                                     "The Idiot", "The Odyssey", "The Odyssey", "Meditations"],
                            authors: ["Herman Melville", "Jane Austen", "Fyodor Dostoevsky", "Robert Fagles", "Emily Wilson", "Marcus Aurelius"])

    func testKeysMergeWhatSoundsAlike() {
        XCTAssertEqual(PhoneticKey.key("Persuasion"), PhoneticKey.key("persuation"))
        XCTAssertEqual(PhoneticKey.key("Moby Dick"), PhoneticKey.key("mobey dik"))
        XCTAssertEqual(PhoneticKey.key("Meditations"), PhoneticKey.key("meditasions"))
        XCTAssertNotEqual(PhoneticKey.key("Middlemarch"), PhoneticKey.key("Meditations"))
        XCTAssertEqual(PhoneticKey.key(""), "")
    }

    func testATitleHeardWrongIsTheBookItSoundsLike() {
        XCTAssertEqual(parser.parseSpoken("note for persuation anne has learned to trust her judgment", names: names).summary,
                       parser.parseSpoken("note for persuasion anne has learned to trust her judgment", names: names).summary)
        let c = parser.parseSpoken("Quote from Mobey Dik, page 3. Call me Ishmael. End quote.", names: names)
        XCTAssertEqual(c.book, "Moby Dick")
        XCTAssertEqual(c.page, 3)
        XCTAssertEqual(c.text, "Call me Ishmael.")
        XCTAssertEqual(parser.parseSpoken("question for crime and punishmant why the axe", names: names).book, "Crime and Punishment")
    }

    func testBooksNotInTheLibraryStayUnknown() {
        for said in ["note for middlemarch a narrow mind", "note for anna karenina all happy families",
                     "quote from the great gatsby so we beat on end quote", "note for dracula the count",
                     "question for war and peace why does pierre", "note for emmet a rose", "note for medication is hard"] {
            XCTAssertEqual(parser.parseSpoken(said, names: names).reason, "spoken_unknown_book", said)
        }
    }

    func testTwoBooksThatSoundAlikeAreTwoReadings() {
        let close = SpokenNames(titles: ["Sense and Sensibility", "Sons and Sensibility", "Dune"], authors: [])
        let c = parser.parseSpoken("note for sence and sensibility elinor is calm", names: close)
        XCTAssertEqual(c.reason, "two_readings")
        XCTAssertEqual(Set(c.readings), ["book=Sense and Sensibility", "book=Sons and Sensibility"])
        XCTAssertEqual(parser.parseSpoken("note for sense and sensibility elinor is calm", names: close).book, "Sense and Sensibility")
    }
}

/// A header heard wrong leaves its page among the words: refused, never stored on the current book.
final class MisheardHeaderTests: XCTestCase {
    let parser = CaptureParser(today: Day(year: 2026, month: 11, day: 28)!)

    func testAPageAmongTheFirstWordsIsRefused() {
        let names = SpokenNames(titles: ["Persuasion"], authors: ["Jane Austen"])
        let heard = "Quot. Flamaste in page 12. One half of the world can not understand the pleasures of the other end. Quot."
        XCTAssertEqual(parser.parseSpoken(heard, names: names).reason, "spoken_page_in_words")
        XCTAssertEqual(parser.parseSpoken("quote page twelve one half of the world end quote", names: names).page, 12)
        XCTAssertEqual(parser.parseSpoken("note the page turns slowly in this chapter", names: names).intent, .note)
        XCTAssertEqual(parser.parseSpoken("Question for", names: names).reason, "spoken_unknown_book")
        XCTAssertEqual(parser.parseSpoken("quote page 12 from", names: names).reason, "spoken_unknown_book")
    }
}
