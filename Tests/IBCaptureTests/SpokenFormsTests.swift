// Spoken forms (issue 31, part 3): numbers and times in words, keyword lines
// without punctuation, book names split off with the library's titles, and
// the refusals that keep a spoken line from ever landing on a wrong book.
import XCTest
import IBCore
import IBStore
@testable import IBCapture

final class SpokenFormsTests: XCTestCase {
    let parser = CaptureParser(today: Day(year: 2026, month: 11, day: 28)!)
    let names = SpokenNames(titles: ["Moby Dick", "Dune", "Dune Messiah", "The Idiot"], authors: ["Herman Melville"])

    func words(_ s: String) -> [String] { Text.words(s) }

    func testNumbersInWords() {
        let cases: [(String, Int?, Int, Bool)] = [
            ("two hundred and twelve", 212, 4, false), ("forty seven", 47, 2, false), ("forty-seven", 47, 1, false),
            ("forty-seventh", 47, 1, true), ("a hundred and four", 104, 4, false), ("one hundred fifty", 150, 3, false),
            ("ninety first", 91, 2, true), ("twenty one", 21, 2, false), ("47", 47, 1, false), ("47th", 47, 1, true),
            ("three", 3, 1, false), ("twelve one", 12, 1, false), ("one thousand two hundred and five", 1205, 6, false),
            ("two hundredth", 200, 2, true), ("200 and 12", 212, 3, false), ("300 and ten", 310, 3, false), ("200 and 150", 200, 1, false), ("seventy third page", 73, 2, true), ("page", nil, 0, false), ("hundred", nil, 0, false),
        ]
        for (text, value, count, ordinal) in cases {
            let r = SpokenNumbers.number(words(text), 0)
            XCTAssertEqual(r?.value, value, text)
            if value != nil { XCTAssertEqual(r?.count, count, text); XCTAssertEqual(r?.ordinal, ordinal, text) }
        }
    }

    func testTimesAsSaidAndAsWritten() {
        let cases: [(String, Int?)] = [
            ("two hours fifteen minutes", 8100), ("1:02:30", 3750), ("45:10", 2710), ("an hour and a half", 5400),
            ("half an hour", 1800), ("2 hours 15 minutes", 8100), ("one hour two minutes and thirty seconds", 3750),
            ("forty five minutes", 2700), ("one hour", 3600), ("1:75:00", nil), ("1:2:3", nil), ("twelve", nil), ("pages", nil),
        ]
        for (text, seconds) in cases { XCTAssertEqual(SpokenNumbers.time(words(text), 0)?.seconds, seconds, text) }
        // Units only go down: "five minutes two hours" is five minutes, then other words.
        XCTAssertEqual(SpokenNumbers.time(words("five minutes two hours"), 0)?.seconds, 300)
        XCTAssertEqual(SpokenNumbers.time(words("five minutes two hours"), 0)?.count, 2)
        XCTAssertEqual(SpokenNumbers.clockText(8100), "2:15:00")
        XCTAssertEqual(SpokenNumbers.clockText(75), "0:01:15")
    }

    func testKeywordLinesAsSaid() {
        let cases: [(String, String)] = [
            ("quote page forty seven it is so end quote", "quote page=47 text=it is so"),
            ("okay quote from moby dick page three call me ishmael end quote", "quote book=Moby Dick page=3 text=call me ishmael"),
            ("quote page twenty two of moby dick so it goes end quote", "quote book=Moby Dick page=22 text=so it goes"),
            ("Quote, page 47. The happiness of your life. End quote.", "quote page=47 text=The happiness of your life."),
            ("quote pages forty to forty one a long one end quote", "quote page=40 page_end=41 text=a long one"),
            ("save this quote from the idiot page thirty beauty will save the world", "quote book=The Idiot page=30 text=beauty will save the world"),
            ("quote from the seventy third page the soul end quote hashtag stoic", "quote page=73 tags=stoic text=the soul"),
            ("note um for moby dick the whale", "note book=Moby Dick text=the whale"),
            ("note the third chapter he thanks them", "note chapter=3 text=he thanks them"),
            ("Note for Moby Dick: Ishmael disappears.", "note book=Moby Dick text=Ishmael disappears."),
            ("question for melville why whales", "question book=Melville text=why whales"),
            ("question on page fifty what is the ruling faculty", "question page=50 text=what is the ruling faculty"),
            // Whisper's slip of the keyword is still the keyword; "quite" is a word of its own.
            ("Quot from the idiot page 12, so it is. End quote.", "quote book=The Idiot page=12 text=so it is."),
            // "and quote" is Whisper's "end quote" where only header or tags follow; inside the words it is words.
            ("Quote page 61 accept the things and quote hashtag fate", "quote page=61 tags=fate text=accept the things"),
            ("quote cats and quote dogs end quote", "quote text=cats and quote dogs"),
            ("quote from MobyDick, page 156, there is wisdom and quote", "quote book=Moby Dick page=156 text=there is wisdom"),
            // The longest number: "page twenty one" is 21.
            ("quote page twenty one more thing end quote", "quote page=21 text=more thing"),
        ]
        for (said, summary) in cases { XCTAssertEqual(parser.parseSpoken(said, names: names).summary, summary, said) }
    }

    func testWhatIsRefusedRatherThanGuessed() {
        // A name after "for"/"from" that is no book: never text of the current book.
        XCTAssertEqual(parser.parseSpoken("note for anna karenina all happy families", names: names).reason, "spoken_unknown_book")
        XCTAssertEqual(parser.parseSpoken("quote from middlemarch a narrow mind end quote", names: names).reason, "spoken_unknown_book")
        XCTAssertEqual(parser.parseSpoken("quote page ten of middlemarch a narrow mind end quote", names: names).reason, "spoken_unknown_book")
        // Two titles that split the line at two places: both readings.
        let two = parser.parseSpoken("note for dune messiah is darker", names: names)
        XCTAssertEqual(two.reason, "two_readings")
        XCTAssertEqual(two.readings, ["note book=Dune Messiah text=is darker", "note book=Dune text=messiah is darker"])
        // A header misheard ("beige to empty"): a title in the first words is refused, not stored on the current book.
        XCTAssertEqual(parser.parseSpoken("A quote beige to empty to have moby dick pain and suffering end quote", names: names).reason, "spoken_book_in_words")
        XCTAssertEqual(parser.parseSpoken("note only an idiot would say so", names: names).intent, .note)
        // A page said without a number heard.
        XCTAssertEqual(parser.parseSpoken("quote page for the san juan to life end quote", names: names).reason, "spoken_page_unheard")
        // Words after "end quote" that are no page, chapter, book or tag.
        XCTAssertEqual(parser.parseSpoken("quote call me ishmael end quote and some more", names: names).reason, "not_understood")
        // Nothing said after the keyword.
        XCTAssertEqual(parser.parseSpoken("save this quote", names: names).reason, "empty_text:quote")
        XCTAssertEqual(parser.parseSpoken("um okay", names: names).intent, .unknown)
        // Without a library there are no names: a book after "for" cannot be told from the text.
        XCTAssertEqual(parser.parseSpoken("note for moby dick the whale", names: .none).reason, "spoken_unknown_book")
    }

    func testOtherLinesHaveTheirCountsWrittenInDigits() {
        let cases: [(String, String)] = [
            ("i'm on page two hundred and twelve", "progress page=212"),
            ("i'm on the ninety first page of moby dick", "progress book=moby dick page=91"),
            ("read twenty five pages", "progress pages_read=25"),
            ("I'm on page 212.", "progress page=212"),
            ("listened to two hours fifteen minutes of persuasion", "progress book=persuasion seconds=8100"),
            ("i'm at one hour two minutes and thirty seconds in persuasion", "progress book=persuasion seconds=3750"),
            ("at 1:02:30", "progress seconds=3750"),
            ("Listen to 45 minutes of persuasion.", "progress book=persuasion seconds=2700"),
            ("Stop at three hours and 10 minutes in persuasion.", "progress book=persuasion seconds=11400"),
            ("I'm on page 200 and 12.", "progress page=212"),
            ("plan read thirty pages a day", "plan daily=30"),
            ("i'm forty percent through moby dick", "progress book=moby dick percent=40"),
        ]
        for (said, summary) in cases { XCTAssertEqual(parser.parseSpoken(said, names: names).summary, summary, said) }
    }

    /// A capture engine on a new library in a temporary folder, on 2026-11-28;
    /// `cleanUp` removes the library and the folder.
    private func temporaryEngine(_ name: String) throws -> (engine: CaptureEngine, path: String, cleanUp: () -> Void) {
        var template = Array("/tmp/ib-capture-\(name)-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        let path = dir + "/library.db"
        var o = CaptureOptions()
        o.now = Timestamp.parse("2026-11-28T10:00:00Z")!
        o.today = Day(year: 2026, month: 11, day: 28)
        let engine = CaptureEngine(options: o, store: try CaptureStore.open(path: path))
        return (engine, path, { for f in ["", "-wal", "-shm"] { _ = unlink(path + f) }; _ = rmdir(dir) })
    }

    func testASpokenTitleHeardWrongAddsNoBook() throws {
        let (e, path, cleanUp) = try temporaryEngine("spoken-book")
        defer { cleanUp() }
        _ = try e.capture("Want to read Sense and Sensibility by Jane Austen")
        XCTAssertThrowsError(try e.capture(spoken: "I want to read sense and sense of reality.")) { error in
            XCTAssertTrue((error as? CaptureFailure)?.error.message.contains("sense and sense of reality") == true, "\(error)")
        }
        XCTAssertEqual(try e.capture(spoken: "i want to read sense and sensibility")["title"]?.stringValue, "Sense and Sensibility")
        // A typed line still adds the book it names.
        XCTAssertEqual(try e.capture("Want to read Middlemarch")["title"]?.stringValue, "Middlemarch")
        XCTAssertEqual(try Library.open(path: path).db.scalarInt("SELECT count(*) FROM books"), 2)
    }

    func testTypedLinesReadProgressByTime() {
        XCTAssertEqual(parser.parse("listened to 2:15:00 of Persuasion").summary, "progress book=Persuasion seconds=8100")
        XCTAssertEqual(parser.parse("at 1:02:30 in Persuasion").summary, "progress book=Persuasion seconds=3750")
        XCTAssertEqual(parser.parse("I stopped at 45:10").summary, "progress seconds=2710")
        // Unchanged: a page is still a page.
        XCTAssertEqual(parser.parse("at page 40").summary, "progress page=40")
        XCTAssertEqual(parser.parse("at 1:75:00 in Persuasion").intent, .unknown)
    }

    /// Whisper wrote "at one oh two thirty in persuasion" as "At 1-2-30 in Persuasion." (beam 5, Festival's slt
    /// voice with reverberation): a hyphenated time is a time right after a time lead, and nowhere else.
    func testAHyphenatedTimeAfterALeadIsATime() {
        XCTAssertEqual(parser.parseSpoken("At 1-2-30 in Persuasion.", names: names).summary, "progress book=Persuasion seconds=3750")
        XCTAssertEqual(parser.parseSpoken("listened to 2-15-00 of persuasion", names: names).summary, "progress book=persuasion seconds=8100")
        XCTAssertEqual(SpokenNumbers.hyphenClock("1-02-30"), 3750)
        for word in ["1-75-30", "1-2-3", "2026-11-28", "40-41", "1-2-300", "a-b-cd"] { XCTAssertNil(SpokenNumbers.hyphenClock(word), word) }
        // Elsewhere it is no time: a plan's date stays as said.
        XCTAssertNotEqual(parser.parseSpoken("I'm on page 11-28-26", names: names).seconds, 4106)
    }

    /// Whisper wrote "quote from the seventy third page" as "Quote from the 17th third page," (Festival's kal
    /// voice with reverberation, greedy and beam 5 alike): a teen before a unit ordinal, where an ordinal
    /// page or chapter stands, is the tens it sounds like. Elsewhere a teen stays a teen.
    func testATeenBeforeAUnitOrdinalIsTheTensItSoundsLike() {
        XCTAssertEqual(parser.parseSpoken("Quote from the 17th third page, the soul that comes die with the color of its thoughts and quote.", names: names).summary,
                       "quote page=73 text=the soul that comes die with the color of its thoughts")
        XCTAssertEqual(parser.parseSpoken("i'm on the seventeenth third page of moby dick", names: names).summary, "progress book=moby dick page=73")
        XCTAssertEqual(parser.parseSpoken("note the fourteen second chapter he thanks them", names: names).summary, "note chapter=42 text=he thanks them")
        XCTAssertEqual(parser.parseSpoken("i'm on the seventeenth page", names: names).summary, "progress page=17")
        XCTAssertEqual(SpokenNumbers.number(words("17th third"), 0)?.value, 17)
        XCTAssertNil(SpokenNumbers.misheardTens(words("twelve third"), 0))
        XCTAssertNil(SpokenNumbers.misheardTens(words("17th tenth"), 0))
    }

    /// Forms Whisper tiny.en wrote for the spoken set's lines (Festival and espeak-ng voices, with the
    /// capture prompt or without it): "for" as "4", "note" as "Not"/"No", "forty seven" as "40, 7".
    func testSoundAlikeKeywordsLeadsAndNumbers() {
        let library = SpokenNames(titles: ["Moby Dick", "Crime and Punishment", "Persuasion"], authors: ["Herman Melville"])
        let cases: [(String, String)] = [
            ("OK Note 4 Crime and Punishment Roscoe Olnikov's Fever follows every decision he makes.",
             "note book=Crime and Punishment text=Roscoe Olnikov's Fever follows every decision he makes."),
            ("Not for Moby Dick. Chapter 40. To the whiteness of the whale is about their hashtags and bulls.",
             "note book=Moby Dick chapter=40 text=To the whiteness of the whale is about their hashtags and bulls."),
            ("No chapter 3 of you thanks, each of his teachers by name.", "note chapter=3 text=of you thanks, each of his teachers by name."),
            ("OK, I'm on page 40, 7 of Moby Dick.", "progress book=Moby Dick page=47"),
            ("Quote from the 17th-third page, the soul that comes die and quote.", "quote page=73 text=the soul that comes die"),
            // No name after "4": a number of the words; nothing after "no": no note.
            ("note 4 things to remember", "note text=4 things to remember"),
        ]
        for (said, summary) in cases { XCTAssertEqual(parser.parseSpoken(said, names: library).summary, summary, said) }
        // "Not"/"No" is a note only before a header; a book that is not in the library is refused, never a note.
        for said in ["no for middlemarch it is long", "not yet", "No, not this one."] {
            XCTAssertNotEqual(parser.parseSpoken(said, names: library).intent, .note, said)
        }
    }

    func testProgressByTimeIsStoredInSeconds() throws {
        let (e, path, cleanUp) = try temporaryEngine("time")
        defer { cleanUp() }
        let book = try e.capture("Reading Persuasion by Jane Austen")["id"]?.stringValue ?? ""
        // An audio book's pages carry their times (ib-parse on audio, migration 0170).
        let library = try Library.open(path: path)
        for (page, start) in [(1, 0), (2, 3600), (3, 7200)] {
            try library.db.run("INSERT INTO pages (book_id, page, text, extra) VALUES (?, ?, 'words', ?)", book, page, "{\"start_time\":\(start)}")
        }
        let first = try e.capture("listened to 2:15:00 of Persuasion")
        XCTAssertEqual(first["page"]?.intValue, 3, "the page holding 2:15:00 is the reading position")
        XCTAssertEqual(try library.db.scalarInt("SELECT current_page FROM books WHERE id = ?", book), 3)
        XCTAssertEqual(first["seconds"]?.intValue, 8100)
        XCTAssertEqual(first["position"]?.stringValue, "2:15:00")
        XCTAssertEqual(first["kind"]?.stringValue, "time")
        XCTAssertEqual(first["previous_seconds"], .null)
        let second = try e.capture(spoken: "okay i'm at two hours and thirty minutes in persuasion")
        XCTAssertEqual(second["seconds"]?.intValue, 9000)
        XCTAssertEqual(second["previous_seconds"]?.intValue, 8100)
        let db = try Library.open(path: path).db
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM progress_events WHERE kind = 'time' AND seconds IS NOT NULL"), 2)
        XCTAssertEqual(try db.scalarInt("SELECT CAST(max(seconds) AS INTEGER) FROM progress_events"), 9000)
    }
}
