// Where a question points, over a hand-made book structure: a play's acts and
// scenes, a diary's dated entries with voices and places, essays by title; and
// what narrows (a day, a scene) against what says little (half a book).
import XCTest
import IBCore
import IBStore
@testable import IBSearch

final class StructureFocusTests: XCTestCase {
    func unit(_ ord: Int, parent: Int? = nil, kind: String? = nil, number: Int? = nil, title: String,
              from: String? = nil, to: String? = nil, voice: String? = nil, place: String? = nil,
              chunks: ClosedRange<Int>, book: String = "b") -> SearchSection {
        SearchSection(bookID: book, ord: ord, parent: parent, kind: kind, number: number, title: title, path: [title],
                      dateFrom: BookDate(from), dateTo: BookDate(to), voice: voice, place: place, chunks: chunks)
    }

    /// A play of 5 acts x 4 scenes, 10 chunks a scene (200 chunks).
    lazy var play: [SearchSection] = {
        var units: [SearchSection] = []
        for act in 1...5 {
            let actOrd = units.count, start = (act - 1) * 40
            units.append(unit(actOrd, kind: "act", number: act, title: "Act \(act)", chunks: start...(start + 39)))
            for scene in 1...4 {
                let s = start + (scene - 1) * 10
                units.append(unit(units.count, parent: actOrd, kind: "scene", number: scene, title: "Scene \(scene)", chunks: s...(s + 9)))
            }
        }
        return units
    }()

    /// A diary of 100 chunks: a chapter, then four dated entries in two voices.
    lazy var diary: [SearchSection] = [
        unit(0, kind: "chapter", number: 1, title: "I", chunks: 0...99),
        unit(1, parent: 0, kind: "entry", title: "3 May. Bistritz.", from: "--05-03", voice: "Jonathan Harker", place: "Bistritz", chunks: 0...9),
        unit(2, parent: 0, kind: "entry", title: "4 May.", from: "--05-04", voice: "Jonathan Harker", chunks: 10...19),
        unit(3, parent: 0, kind: "entry", title: "24 July. Whitby.", from: "--07-24", voice: "Mina Murray", place: "Whitby", chunks: 20...59),
        unit(4, parent: 0, kind: "entry", title: "1 October, 4 a.m.", from: "--10-01", voice: "Dr. Seward", chunks: 60...99),
    ]

    /// The ranges of the strongest weight: what the reference names, without
    /// its neighbours at half weight (testTheNeighboursOfANumberOrADayCountHalf).
    func named(_ question: String, _ units: [SearchSection], chunks: Int) -> [ClosedRange<Int>] {
        let r = ranges(question, units, chunks: chunks)
        let top = r.map(\.weight).max() ?? 0
        return r.filter { $0.weight > top * 0.99 }.map(\.chunks)
    }

    func ranges(_ question: String, _ units: [SearchSection], chunks: Int) -> [FocusRange] {
        StructureFocus.ranges(QueryReferences.parse(question), words: SearchEngine.plainWords(question),
                              capitalised: StructureFocus.capitalisedWords(question), units: ["b": units], chunkCounts: ["b": chunks])
    }

    /// A quoted title names its chapter, though its first word is in many titles;
    /// a quoted line of the text, or apostrophes, name none.
    func testQuotedTitlesNameTheirChapter() {
        let titles = ["The Pequod Meets the Albatross", "The Cassock", "The Pequod Meets the Virgin", "The Candles",
                      "The Pequod Meets the Rose-Bud", "Stubb’s Supper", "The Pequod Meets the Rachel", "Loomings"]
        let chapters = titles.enumerated().map { unit($0.offset, kind: "chapter", number: $0.offset + 1,
                                                      title: "\($0.offset + 1): \($0.element)", chunks: ($0.offset * 10)...($0.offset * 10 + 9)) }
        let r = ranges("In 'The Pequod Meets the Virgin', the sickly old whale trailing the herd", chapters, chunks: 400)
        XCTAssertEqual(r.filter { $0.weight > 0.9 }.map(\.chunks), [20...29], "the quoted title, at a part's strength")
        XCTAssertEqual(ranges("in \u{2018}The Candles\u{2019}, Starbuck reads omens", chapters, chunks: 400).filter { $0.weight > 0.9 }.map(\.chunks), [30...39])
        XCTAssertEqual(ranges("Stubb's supper and the cook's sermon", chapters, chunks: 400).filter { $0.weight > 0.9 }, [])
        XCTAssertEqual(ranges("where he says \"the whale is a mammal\"", chapters, chunks: 400), [])
        XCTAssertEqual(QueryReferences.parse("In 'Steel and Iron', George's brother's works, don't").quotedTitles, ["Steel and Iron"])
        XCTAssertEqual(QueryReferences.parse("\u{201C}Economy\u{201D} and \"The Bean-Field\"").quotedTitles, ["Economy", "The Bean-Field"])
    }

    /// A title written out whole without quotation marks names its chapter when
    /// the question writes its words with capitals and a dictionary knows them all:
    /// "in The Whale Watch", "..., Beginning the World". A title of names ("Moby
    /// Dick", "Lady Dedlock") is a person a question names for other reasons, and a
    /// question in lower case says nothing by its case.
    func testAWholeTitleWithoutQuotesNamesItsChapter() {
        let titles = ["CXVI: The Dying Whale", "CXVII: The Whale Watch", "CXVIII: The Quadrant", "XLI: Moby Dick", "LXV: Beginning the World",
                      "LI: A Discovery"]
        let chapters = titles.enumerated().map { unit($0.offset, kind: "chapter", number: $0.offset + 1,
                                                      title: $0.element, chunks: ($0.offset * 10)...($0.offset * 10 + 9)) }
        func named(_ question: String, known: Set<String>) -> [String] {
            var seen: [String: Bool] = [:]
            return StructureFocus.wholeTitles(SearchEngine.plainWords(question), capitalised: StructureFocus.capitalisedWords(question),
                                              dictionaryWords: known, in: chapters, seen: &seen).map(\.title)
        }
        let dictionary: Set<String> = ["whale", "watch", "prophecy", "dying", "beginning", "world", "richard", "dick", "circles", "survivors"]
        XCTAssertEqual(named("Fedallah's prophecy to Ahab in The Whale Watch", known: dictionary), ["CXVII: The Whale Watch"])
        XCTAssertEqual(named("Richard weeps when Jarndyce forgives him, Beginning the World", known: dictionary), ["LXV: Beginning the World"])
        XCTAssertEqual(named("Moby Dick circles the survivors", known: dictionary), [], "a title of names")
        XCTAssertEqual(named("fedallah's prophecy in the whale watch", known: dictionary), [], "no capitals, no title")
        XCTAssertEqual(named("Whale Watch: where Fedallah speaks", known: dictionary), ["CXVII: The Whale Watch"], "the first word's capital says nothing")
        XCTAssertEqual(named("Fedallah in The Whale boat, on Watch", known: dictionary), [], "the title's words in a row")
        XCTAssertEqual(named("Richard and Beginning the World reconciled", known: dictionary), [],
                       "mid-question, not after in, at, chapter...: no section named")
        // One word names its chapter right after "chapter", and nowhere else.
        let known = dictionary.union(["discovery", "quadrant", "woodcourt"])
        XCTAssertEqual(named("Woodcourt escorts Esther home, chapter A Discovery", known: known), ["LI: A Discovery"])
        XCTAssertEqual(named("In the chapter Quadrant, Ahab smashes it", known: known), ["CXVIII: The Quadrant"])
        XCTAssertEqual(named("Woodcourt escorts Esther home, A Discovery", known: known), [], "one word, not after chapter")
        XCTAssertEqual(named("Ahab's Discovery of the quadrant", known: known), [])
        XCTAssertEqual(named("the chapter where Ahab smashes the quadrant", known: known), [], "no capital")
        XCTAssertTrue(StructureFocus.capitalisedAfterChapter(SearchEngine.plainWords("Esther, chapter A Discovery"),
                                                             capitalised: StructureFocus.capitalisedWords("Esther, chapter A Discovery")))
        XCTAssertFalse(StructureFocus.capitalisedAfterChapter(SearchEngine.plainWords("Esther, A Discovery"),
                                                              capitalised: StructureFocus.capitalisedWords("Esther, A Discovery")))
        XCTAssertTrue(StructureFocus.capitalisedRun(SearchEngine.plainWords("Higher Laws: Thoreau on fishing"),
                                                    capitalised: StructureFocus.capitalisedWords("Higher Laws: Thoreau on fishing")))
        XCTAssertFalse(StructureFocus.capitalisedRun(SearchEngine.plainWords("higher laws and fishing"), capitalised: nil))
        // Two books of the same titles (a copy), one search: what a title gave in the first is
        // its answer in the second, and a title holding none of the question's words is no title named.
        let copy = chapters.map { unit($0.ord, kind: $0.kind, number: $0.number, title: $0.title, chunks: $0.chunks, book: "c") }
        let question = "Fedallah's prophecy to Ahab in The Whale Watch"
        var seen: [String: Bool] = [:]
        let found = [chapters, copy].flatMap {
            StructureFocus.wholeTitles(SearchEngine.plainWords(question), capitalised: StructureFocus.capitalisedWords(question),
                                       dictionaryWords: dictionary, in: $0, seen: &seen)
        }
        XCTAssertEqual(found.map(\.bookID), ["b", "c"])
        XCTAssertEqual(Set(found.map(\.title)), ["CXVII: The Whale Watch"])
        XCTAssertEqual(seen["CXVII: The Whale Watch"], true)
        XCTAssertEqual(seen["CXVIII: The Quadrant"], false)
    }

    func testActAndSceneNarrowToOneScene() {
        let r = ranges("what does the queen say in Act 3, scene 4?", play, chunks: 200)
        XCTAssertEqual(named("what does the queen say in Act 3, scene 4?", play, chunks: 200), [110...119])
        XCTAssertEqual(r.first?.weight ?? 0, 1, accuracy: 1e-9, "a twentieth of the book: fully narrow")
        XCTAssertEqual(ranges("in the last act", play, chunks: 200).map(\.chunks), [160...199])
        XCTAssertEqual(ranges("in the penultimate act", play, chunks: 200).map(\.chunks), [120...159])
        XCTAssertEqual(ranges("in the last scene of the penultimate act", play, chunks: 200).map(\.chunks), [150...159])
        XCTAssertEqual(ranges("in Act 9", play, chunks: 200), [], "a reference that matches nothing adds nothing")
    }

    /// A number or a day one off still counts, at half the weight: "scene 3"
    /// for the fourth, the night of 30 September written up on 1 October. The
    /// part or day named keeps its whole weight; "the last act" has no
    /// neighbour, and a reference found nowhere in a book still names nothing.
    func testTheNeighboursOfANumberOrADayCountHalf() {
        let scenes = ranges("Act 3, scene 3: the king at prayer", play, chunks: 200)
        XCTAssertEqual(scenes.map(\.chunks), [100...109, 90...99, 110...119])
        XCTAssertEqual(scenes.map(\.weight), [1, 0.5, 0.5])
        XCTAssertEqual(ranges("in scene 1 of Act 2", play, chunks: 200).map(\.chunks), [40...49, 50...59], "no scene 0")
        XCTAssertEqual(ranges("in the last act", play, chunks: 200).count, 1)

        // In a diary of 1,000 chunks, where one entry is narrow enough to count fully.
        let autumn = [unit(0, kind: "entry", title: "30 September.", from: "--09-30", voice: "Mina Harker", chunks: 0...9),
                      unit(1, kind: "entry", title: "1 October, 5 a.m.", from: "--10-01", voice: "Jonathan Harker", chunks: 10...19)]
        let night = ranges("the night of 30 September", autumn, chunks: 1000)
        XCTAssertEqual(night.map(\.chunks), [0...9, 10...19], "and 1 October, the day after")
        XCTAssertEqual(night.map(\.weight), [1, 0.5])
        XCTAssertEqual(ranges("the night of 30 September", diary, chunks: 1000), [], "no entry of that day: nothing is named")
        let may = ranges("the inn on the 4th of May", diary, chunks: 1000)
        XCTAssertEqual(may.map(\.chunks), [10...19, 0...9], "the 4th whole, the 3rd at half")
        XCTAssertEqual(may.map(\.weight), [1, 0.5])
        XCTAssertEqual(ranges("in May", diary, chunks: 1000).map(\.chunks), [0...19], "a month has no neighbours")

        // Across a year's end: the day before 1 January 1666 is 31 December 1665.
        let years = [unit(0, kind: "entry", title: "December 31st", from: "1665-12-31", chunks: 0...9),
                     unit(1, kind: "entry", title: "January 1st", from: "1666-01-01", chunks: 10...19),
                     unit(2, kind: "entry", title: "January 2nd", from: "1666-01-02", chunks: 20...29)]
        let newYear = ranges("on 1 January 1666", years, chunks: 400)
        XCTAssertEqual(newYear.map(\.chunks), [10...19, 0...9, 20...29])
        XCTAssertEqual(ranges("on 31 December 1666", years, chunks: 400).map(\.chunks), [], "1665's last day and 1667's first are not asked")

        // A neighbour raises only a chunk among the best hits of either list, and is not searched on its own.
        let focus = Focus(scenes)
        XCTAssertEqual(focus.weight("b", 95), 0.5)
        XCTAssertEqual(focus.weight("b", 95, amongBest: false), 0)
        XCTAssertEqual(focus.weight("b", 105, amongBest: false), 1)
        XCTAssertEqual(focus.searched().map(\.chunks), [100...109])
        // A narrow neighbour outweighing a broad named part does not keep it from being searched.
        let broad = Focus([FocusRange(bookID: "b", chunks: 0...99, weight: 0.3), FocusRange(bookID: "b", chunks: 100...104, weight: 1, near: true)])
        XCTAssertEqual(broad.searched().map(\.chunks), [0...99])
    }

    /// "the spring of the second year" is the spring of the book's second year,
    /// of the years its dated entries carry; a diary without years, or with
    /// fewer, is not named.
    func testAYearCountedInTheBookIsItsNthYear() {
        let pepys = [unit(0, kind: "chapter", title: "1660", from: "1660", chunks: 0...299),
                     unit(1, parent: 0, kind: "entry", title: "March 1st", from: "1660-03-01", chunks: 0...9),
                     unit(2, kind: "chapter", title: "1661", from: "1661", chunks: 300...599),
                     unit(3, parent: 2, kind: "entry", title: "January 5th", from: "1661-01-05", chunks: 300...309),
                     unit(4, parent: 2, kind: "entry", title: "April 23rd", from: "1661-04-23", chunks: 400...409),
                     unit(5, kind: "chapter", title: "1662", from: "1662", chunks: 600...999),
                     unit(6, parent: 5, kind: "entry", title: "April 2nd", from: "1662-04-02", chunks: 700...709)]
        XCTAssertEqual(named("in the spring of the second year, the coronation", pepys, chunks: 1000), [400...409])
        XCTAssertEqual(named("in his last year, what did he write?", pepys, chunks: 1000), [700...709], "1662's entries, as \"in 1662\"")
        XCTAssertEqual(ranges("in the fifth year", pepys, chunks: 1000), [], "three years only")
        XCTAssertEqual(ranges("in the spring of the second year", diary, chunks: 100), [], "a diary without years")
    }

    /// A sonnet sequence whose poems are titled by bare numerals (chapters to the
    /// parser): "Sonnet 18" and "the eighteenth sonnet" name the eighteenth.
    func testNumberedPoemsNameTheirPoem() {
        func roman(_ n: Int) -> String {
            [(10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")].reduce(into: (n, "")) { acc, step in
                while acc.0 >= step.0 { acc.0 -= step.0; acc.1 += step.1 }
            }.1
        }
        let sonnets = (1...30).map { unit($0 - 1, kind: "chapter", number: $0, title: roman($0), chunks: ($0 - 1)...($0 - 1)) }
        XCTAssertEqual(named("In Sonnet 18, to what is the beloved compared?", sonnets, chunks: 30), [17...17])
        XCTAssertEqual(named("the eighteenth sonnet's summer's day", sonnets, chunks: 30), [17...17])
        XCTAssertEqual(ranges("the poem about a summer's day", sonnets, chunks: 30), [])
    }

    /// Units as ib-parse stores them: "Stave Three" and "Canto IV" are chapters,
    /// "Volume II" a part. A question's "stave", "canto" and "volume" find them.
    func testStavesCantosAndVolumesFindWhatTheParserStored() {
        let staves = (1...5).map { unit($0 - 1, kind: "chapter", number: $0, title: "Stave \($0)", chunks: (($0 - 1) * 10)...(($0 - 1) * 10 + 9)) }
        XCTAssertEqual(named("In Stave Three, the Ghost of Christmas Present", staves, chunks: 50), [20...29])
        XCTAssertEqual(named("in Canto IV", staves, chunks: 50), [30...39])
        var novel: [SearchSection] = []
        for volume in 1...3 {
            let v = novel.count, start = (volume - 1) * 30
            novel.append(unit(v, kind: "part", number: volume, title: "Volume \(volume)", chunks: start...(start + 29)))
            for chapter in 1...3 {
                let c = start + (chapter - 1) * 10
                novel.append(unit(novel.count, parent: v, kind: "chapter", number: chapter, title: "Chapter \(chapter)", chunks: c...(c + 9)))
            }
        }
        XCTAssertEqual(named("in Volume 2, chapter 3, the letter", novel, chunks: 90), [50...59])
        XCTAssertEqual(ranges("early in the third volume", novel, chunks: 90).first?.chunks.lowerBound, 60)
        // A Chinese novel's volumes (卷, books) and chapters, named the Chinese way.
        let chinese = novel.map { u -> SearchSection in
            var c = u; c.kind = u.kind == "part" ? "book" : u.kind
            return c
        }
        XCTAssertEqual(named("第二卷第三章里，他写了什么信？", chinese, chunks: 90), [50...59])
        XCTAssertEqual(ranges("最后一卷", chinese, chunks: 90).map(\.chunks), [60...89])
    }

    func testDatesFindTheirEntry() {
        XCTAssertEqual(named("the inn on the 4th of May", diary, chunks: 100), [10...19])
        // "in May" holds two entries; the chapter around them is not counted again.
        XCTAssertEqual(ranges("early in May", diary, chunks: 100).map(\.chunks), [0...19])
        XCTAssertEqual(ranges("in the autumn", diary, chunks: 100).map(\.chunks), [60...99])
        XCTAssertEqual(ranges("on Christmas Eve", diary, chunks: 100), [])
        // Asked the Chinese way.
        XCTAssertEqual(named("五月四日那天，他在旅店吃了什么？", diary, chunks: 100), [10...19])
        XCTAssertEqual(ranges("五月初", diary, chunks: 100).map(\.chunks), [0...19])
        XCTAssertEqual(ranges("秋天的时候", diary, chunks: 100).map(\.chunks), [60...99])
    }

    func testVoicesPlacesAndTitles() {
        let r = ranges("what she writes in Mina's journal at Whitby", diary, chunks: 100)
        XCTAssertEqual(Set(r.map(\.chunks)), [20...59])
        XCTAssertEqual(r.count, 2, "two words of the question point there, each counting")
        // An owner with a word before the part: "Seward's recorded diary" is Dr. Seward's.
        XCTAssertEqual(ranges("Seward's recorded diary, the patient's profile", diary, chunks: 100).map(\.chunks), [60...99])
        XCTAssertEqual(ranges("the patient's recorded diary", diary, chunks: 100), [])
        // A word shared by most units (every entry is Jonathan's or another's journal) says nothing.
        let essays = (0..<10).map { unit($0, title: $0 == 3 ? "The Bean-Field" : "Essay \($0)", chunks: ($0 * 10)...($0 * 10 + 9)) }
        XCTAssertEqual(ranges("in the bean field, what he hoed", essays, chunks: 100).map(\.chunks), [30...39])
        // A title's word the question does not use to say where places nothing.
        XCTAssertEqual(ranges("the bean patch he hoed", essays, chunks: 100), [])
        XCTAssertEqual(ranges("in the essay", essays, chunks: 100), [])
        // A collection's works are named the same way: "the spider poem", "the Blue Carbuncle story".
        let poems = ["One's-Self I Sing", "A Noiseless Patient Spider", "O Captain! My Captain!", "The Adventure of the Blue Carbuncle"]
            .enumerated().map { unit($0.offset, title: $0.element, chunks: ($0.offset * 10)...($0.offset * 10 + 9)) }
        XCTAssertEqual(ranges("the spider poem, where the soul flings out filament after filament", poems, chunks: 40).map(\.chunks), [10...19])
        XCTAssertEqual(ranges("the carbuncle story, where the goose is bought", poems, chunks: 40).map(\.chunks), [30...39])
    }

    /// A word after "in" written in lower case names a chapter only with another
    /// of the question's words in its title: "in his cabin" is a place in the
    /// story; "in Economy", or a question typed all in lower case, names it alone.
    func testAWordInLowerCaseNamesATitleOnlyWithAnother() {
        let titles = ["Loomings", "The Cabin-Table", "First Night-Watch", "The Cabin", "Economy", "The Chase—First Day", "The Chase—Second Day",
                      "Sunset", "Dusk", "Midnight"]
        let chapters = titles.enumerated().map { unit($0.offset, kind: "chapter", number: $0.offset + 1, title: $0.element,
                                                      chunks: ($0.offset * 10)...($0.offset * 10 + 9)) }
        XCTAssertEqual(ranges("Why does a dangling light upset Jonah so much in his cabin?", chapters, chunks: 100), [])
        XCTAssertEqual(Set(ranges("What does Ahab say in The Cabin?", chapters, chunks: 100).map(\.chunks)), [10...19, 30...39])
        XCTAssertEqual(ranges("On the first day of the final chase, what breaks Ahab's boat?", chapters, chunks: 100).map(\.chunks), [50...59])
        XCTAssertEqual(ranges("What does Thoreau count up in Economy?", chapters, chunks: 100).map(\.chunks), [40...49])
        XCTAssertEqual(ranges("what does thoreau count up in economy", chapters, chunks: 100).map(\.chunks), [40...49])
        XCTAssertNil(StructureFocus.capitalisedWords("In his cabin, what swings?"), "the first word's capital says nothing")
        XCTAssertEqual(StructureFocus.capitalisedWords("In his cabin, what does Jonah see?"), ["jonah"])
    }

    /// In a book no section of which is dated, a season or a month the question
    /// names is a word of a title ("the winter chapter" is "Winter Animals");
    /// in a dated one it is read as a date alone, never as a title's word.
    func testASeasonNamesATitleInABookWithoutDates() {
        let titles = ["Economy", "Sounds", "Winter Animals", "The Pond in Winter", "Spring", "Conclusion"]
        let essays = titles.enumerated().map { unit($0.offset, kind: "chapter", title: $0.element, chunks: ($0.offset * 10)...($0.offset * 10 + 9)) }
        XCTAssertEqual(ranges("In the winter chapter, a skinny hare cowers near his cabin", essays, chunks: 60).map(\.chunks), [20...39])
        XCTAssertEqual(ranges("In the spring chapter, as the pond thaws", essays, chunks: 60).map(\.chunks), [40...49])
        XCTAssertEqual(named("In 'The Pond in Winter', the ice cutters", essays, chunks: 60), [30...39], "the quoted title whole")
        // A diary's months carry their dates: winter is its December to February, not a title holding "Winter".
        let months = ["January 1666", "March 1666", "May 1666", "Winter Came Late: July 1666", "September 1666", "November 1666"]
        let diary = months.enumerated().map { unit($0.offset, title: $0.element, from: "1666-\(String(format: "%02d", $0.offset * 2 + 1))",
                                                   chunks: ($0.offset * 10)...($0.offset * 10 + 9)) }
        XCTAssertEqual(ranges("in the winter chapter", diary, chunks: 60).map(\.chunks), [0...9], "the date, by its month")
    }

    /// A book of titled chapters without numbers is counted in order: "the first
    /// chapter" is its first after the front matter, "the last chapter" its last;
    /// a book with numbered chapters is read by its numbers alone.
    func testTitledChaptersAreCountedInOrder() {
        let titles = ["Titlepage", "Economy", "Reading", "Sounds", "Solitude", "Conclusion", "Colophon"]
        let essays = titles.enumerated().map { unit($0.offset, title: $0.element, chunks: ($0.offset * 10)...($0.offset * 10 + 9)) }
        XCTAssertEqual(named("In the first chapter, what does he say of bread?", essays, chunks: 70), [10...19])
        XCTAssertEqual(named("in the third chapter", essays, chunks: 70), [30...39])
        XCTAssertEqual(ranges("in the last chapter", essays, chunks: 70).map(\.chunks), [50...59])
        XCTAssertEqual(ranges("in chapter 9", essays, chunks: 70), [])
        let numbered = essays.map { u -> SearchSection in var u = u; if (1...5).contains(u.ord) { u.kind = "chapter"; u.number = u.ord + 1 }; return u }
        XCTAssertEqual(ranges("in the first chapter", numbered, chunks: 70), [], "numbered 2 to 6: no chapter 1")
    }

    func testBroadReferencesWeighLess() {
        let narrow = ranges("on the 4th of May", diary, chunks: 100).first!.weight
        let broad = ranges("in Act 2", play, chunks: 200).first!.weight   // a fifth of the play
        XCTAssertLessThan(broad, narrow)
        XCTAssertGreaterThan(broad, 0)
        let position = ranges("near the end of the book", play, chunks: 200)
        XCTAssertEqual(position.map(\.chunks), [170...199])
        XCTAssertLessThan(position.first!.weight, 0.5)
    }

    func testOldStyleYearsAndYearlessEntries() {
        let book = [unit(0, kind: "entry", title: "February 1714-15", from: "1714-02", to: "1715-02", chunks: 0...4),
                    unit(1, kind: "entry", title: "March 1716", from: "1716-03", chunks: 5...99)]
        XCTAssertEqual(ranges("what he wrote in 1715", book, chunks: 100).map(\.chunks), [0...4])
        XCTAssertEqual(ranges("in February 1714", book, chunks: 100).map(\.chunks), [0...4])
        // A yearless diary matches a dated question by month and day.
        XCTAssertEqual(named("on May 3rd, 1893", diary, chunks: 100), [0...9])
    }

    /// A diary whose entries give the day alone ("September 2nd.") inside months that give the
    /// year ("SEPTEMBER 1665", "SEPTEMBER 1666"), read from a library: "2 September 1666" is
    /// one entry, not the 2nd of every September.
    func testADiaryDayTakesItsMonthsYear() throws {
        var template = Array("/tmp/ibsearch-focus-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        addTeardownBlock { _ = system("rm -rf '\(directory)'") }
        let library = try Library.open(path: directory + "/library.db")
        let sha = SHA256.hex("a diary of two years")
        let id = BookRecord.id(forSHA256: sha)
        let indexer = Indexer(library: library)
        try indexer.add(.book(BookRecord(id: id, title: "Diary", authors: [], language: nil, format: "epub", source: "/d", sha256: sha, pageCount: 4)))
        let pages = [("SEPTEMBER 1665", "1665-09"), ("September 2nd.", "--09-02"), ("SEPTEMBER 1666", "1666-09"), ("September 2nd.", "--09-02")]
        for (i, (title, date)) in pages.enumerated() {
            var page = PageRecord(bookID: id, page: i + 1, text: title + " The clerk walked to the office and wrote his letters.")
            page.extra["structure"] = .array([StructureMark(at: 0, depth: i % 2, kind: i % 2 == 0 ? "chapter" : "entry", title: title, date: date).json])
            try indexer.add(.page(page))
            try indexer.add(.chunk(ChunkRecord(bookID: id, index: i, startPage: i + 1, endPage: i + 1, startOffset: 0,
                                               endOffset: page.text.unicodeScalars.count, tokenCount: 20, text: page.text)))
        }
        try indexer.finish()
        let units = try SearchEngine.structures([id], library: library)
        XCTAssertEqual(units[id]?.map(\.dateText.from), ["1665-09", "1665-09-02", "1666-09", "1666-09-02"])
        let found = StructureFocus.ranges(QueryReferences.parse("What happened on 2 September 1666?"), words: [], units: units, chunkCounts: [id: 4])
        XCTAssertEqual(found.map(\.chunks), [3...3])
        // Inside an Old Style "FEBRUARY 1660-1661" the day is in either year, and no other.
        let oldStyle = [unit(0, kind: "chapter", title: "FEBRUARY 1659-1660", from: "1659-02", to: "1660-02", chunks: 0...9),
                        unit(1, parent: 0, kind: "entry", title: "February 14th.", from: "1659-02-14", to: "1660-02-14", chunks: 0...0),
                        unit(2, parent: 0, kind: "entry", title: "February 15th.", from: "1659-02-15", to: "1660-02-15", chunks: 1...9),
                        unit(3, kind: "chapter", title: "FEBRUARY 1661-1662", from: "1661-02", to: "1662-02", chunks: 10...99),
                        unit(4, parent: 3, kind: "entry", title: "February 14th.", from: "1661-02-14", to: "1662-02-14", chunks: 10...10)]
        XCTAssertEqual(named("on 14 February 1660", oldStyle, chunks: 100), [0...0])
        XCTAssertEqual(named("on 14 February 1659", oldStyle, chunks: 100), [0...0])
    }

    func testBookSharesScaleOtherBooks() {
        var focus = Focus([FocusRange(bookID: "a", chunks: 0...9, weight: 1), FocusRange(bookID: "b", chunks: 0...9, weight: 1)])
        focus.weighByBooks(["a": 0.6, "b": 0.1])
        XCTAssertEqual(focus.weight("a", 5), 1, accuracy: 1e-9)
        XCTAssertEqual(focus.weight("b", 5), 0.2, accuracy: 1e-9)
        XCTAssertEqual(focus.weight("b", 50), 0)
        // A reference that matched in one book alone of several keeps its weight there.
        var only = Focus([FocusRange(bookID: "b", chunks: 0...9, weight: 1, onlyBook: true)])
        only.weighByBooks(["a": 0.9, "b": 0.1])
        XCTAssertEqual(only.weight("b", 5), 1, accuracy: 1e-9)
    }

    /// "Act 5" in a library with one play names the play; "chapter 2", found in
    /// two books, names neither; "July 1836" names no book when one of its
    /// matches is a diary without years.
    func testAReferenceFoundInOneBookAloneNamesIt() {
        func novel(_ id: String) -> [SearchSection] {
            (0..<10).map { unit($0, kind: "chapter", number: $0 + 1, title: "\($0 + 1)", chunks: ($0 * 10)...($0 * 10 + 9), book: id) }
        }
        func moved(_ units: [SearchSection], to id: String) -> [SearchSection] { units.map { var u = $0; u.bookID = id; return u } }
        let units = ["play": moved(play, to: "play"), "novel": novel("novel"), "sequel": novel("sequel"), "diary": moved(diary, to: "diary")]
        let counts = ["play": 200, "novel": 100, "sequel": 100, "diary": 100]
        func found(_ q: String) -> [FocusRange] {
            StructureFocus.ranges(QueryReferences.parse(q), words: SearchEngine.plainWords(q), units: units, chunkCounts: counts)
        }
        XCTAssertEqual(found("in Act 5").map(\.onlyBook), [true, true], "Act 5, and Act 4 at half weight")
        XCTAssertEqual(Set(found("in Act 5").map(\.bookID)), ["play"])
        XCTAssertEqual(Set(found("in chapter 1").map(\.bookID)), ["novel", "sequel"])
        XCTAssertFalse(found("in chapter 1").contains { $0.onlyBook })
        XCTAssertEqual(found("on 24 July 1836").map(\.onlyBook), [false], "a yearless diary's July")
        XCTAssertEqual(found("on 24 July").map(\.onlyBook), [true])
    }

    /// Each book weighs a reference on its own: "May 4th" is one entry of the
    /// diary, and in a novel whose parts are dated by their year alone it is
    /// every part (and so nowhere). Pooled, the novel's parts made the diary's
    /// entry cover too much of "its books" to count.
    func testEachBookWeighsAReferenceOnItsOwn() {
        let novel = (0..<4).map { unit($0, kind: "part", number: $0 + 1, title: "Part \($0 + 1): 1812", from: "1812",
                                       chunks: ($0 * 250)...($0 * 250 + 249), book: "novel") }
        let diary = [unit(0, kind: "entry", title: "3 May. Bistritz.", from: "--05-03", chunks: 0...9, book: "diary"),
                     unit(1, kind: "entry", title: "4 May.", from: "--05-04", chunks: 10...13, book: "diary"),
                     unit(2, kind: "entry", title: "5 May.", from: "--05-05", chunks: 14...399, book: "diary")]
        let r = StructureFocus.ranges(QueryReferences.parse("at the inn on May 4th"), words: SearchEngine.plainWords("at the inn on May 4th"),
                                      units: ["novel": novel, "diary": diary], chunkCounts: ["novel": 1000, "diary": 400])
        XCTAssertEqual(r.map(\.bookID), ["diary"], "the novel's parts cover it whole: no place in it")
        XCTAssertEqual(r.first?.chunks, 10...13)
        XCTAssertEqual(r.first?.weight ?? 0, 1, accuracy: 1e-9, "four chunks of 400: fully narrow")
    }
}
