import XCTest
#if canImport(Glibc)
import Glibc
#endif
import IBCore
@testable import IBParse

/// The book's structure on page records: nav hierarchy, unlisted headings, dated units.
final class StructureTests: XCTestCase {
    func marks(_ pages: [PageRecord]) throws -> [(page: Int, mark: StructureMark)] {
        try pages.flatMap { page in try StructureMark.marks(of: page).map { (page.page, $0) } }
    }

    func outline(_ pages: [PageRecord]) throws -> BookOutline {
        BookOutline(pages: try pages.map { ($0.page, try StructureMark.marks(of: $0)) })
    }

    func testNestedNavAndScenesInsideOneFile() throws {
        let act = xhtml("""
            <section id="act-1"><h2>Act I</h2>
            <section id="s1"><h3>Scene I</h3><p>Elsinore. A platform before the castle.</p></section>
            <section id="s2"><h3>Scene II</h3><p>A room of state in the castle.</p></section></section>
            """)
        let nav = """
            <nav epub:type="toc"><ol><li><a href="half.xhtml">Test Book</a><ol>
            <li><a href="book.xhtml">Book Two</a><ol><li><a href="act.xhtml">Act I</a></li></ol></li></ol></li></ol></nav>
            """
        let dir = TempDir()
        let path = dir.write("b.epub", makeEPUB(chapters: [("half.xhtml", xhtml("<h1>Test Book</h1>")),
                                                           ("book.xhtml", xhtml("<h1>Book Two</h1>")), ("act.xhtml", act)], nav: nav))
        let (_, pages) = try parseFile(path)
        let units = try outline(pages).units
        XCTAssertEqual(units.map(\.path), [["Book Two"], ["Book Two", "Act I"], ["Book Two", "Act I", "Scene I"],
                                           ["Book Two", "Act I", "Scene II"]])
        XCTAssertEqual(units.map(\.kind), ["book", "act", "scene", "scene"])
        XCTAssertEqual(units.map(\.number), [2, 1, 1, 2])
        // The scene's mark points at its heading in the page's text.
        let scene2 = try marks(pages).first { $0.mark.title == "Scene II" }!
        let text = pages.first { $0.page == scene2.page }!.text
        XCTAssertTrue(String(text.unicodeScalars.dropFirst(scene2.mark.at)).hasPrefix("Scene II"))
        // Plain section fields are unchanged.
        XCTAssertEqual(pages.last?.sectionTitle, "Act I")
    }

    func testDiaryEntriesLettersAndOldStyleDates() throws {
        let chapter = xhtml("""
            <section epub:type="chapter z3998:diary"><header><h2>I</h2><p epub:type="se:bridgehead">Jonathan Harker’s Journal.</p></header>
            <blockquote epub:type="z3998:diary-entry"><p><i>3 May. Bistritz.</i>—Left Munich at 8:35 p.m.</p></blockquote>
            <blockquote epub:type="z3998:diary-entry"><p><i>Same day, 11 o’clock p.m.</i>—Tired.</p></blockquote>
            </section>
            <section epub:type="chapter"><h2>II</h2>
            <blockquote epub:type="z3998:letter"><header><p>Letter, Miss Mina Murray to Lucy Westenra.</p></header>
            <p epub:type="se:letter.dateline"><i>9 May.</i></p><p>My dearest Lucy.</p></blockquote>
            <blockquote epub:type="z3998:diary"><header><p>Dr. Seward’s Diary.</p></header>
            <blockquote epub:type="z3998:diary-entry"><p><i>February 1714–15.</i>—Cold.</p></blockquote></blockquote>
            <p><b>Bahia</b>, <span epub:type="se:diary.dateline"><time datetime="1832-02-29">Feb. 29th</time></span>.—Delight.</p>
            </section>
            """)
        let dir = TempDir()
        let path = dir.write("d.epub", makeEPUB(chapters: [("c.xhtml", chapter)]))
        let units = try outline(try parseFile(path).1).units
        let byTitle = Dictionary(units.map { ($0.title, $0) }, uniquingKeysWith: { a, _ in a })
        let first = try XCTUnwrap(byTitle["3 May. Bistritz."])
        XCTAssertEqual(first.kind, "entry")
        XCTAssertEqual(first.dateFrom, "--05-03")
        XCTAssertEqual(first.voice, "Jonathan Harker")
        XCTAssertEqual(first.place, "Bistritz")
        // "Same day" carries the date forward.
        XCTAssertEqual(byTitle["Same day, 11 o’clock p.m."]?.dateFrom, "--05-03")
        let letter = try XCTUnwrap(byTitle["Letter, Miss Mina Murray to Lucy Westenra."])
        XCTAssertEqual(letter.kind, "letter")
        XCTAssertEqual(letter.voice, "Mina Murray")
        XCTAssertEqual(letter.dateFrom, "--05-09")
        let oldStyle = try XCTUnwrap(byTitle["February 1714–15."])
        XCTAssertEqual(oldStyle.dateFrom, "1714-02")
        XCTAssertEqual(oldStyle.dateTo, "1715-02")
        XCTAssertEqual(oldStyle.voice, "Dr. Seward")
        XCTAssertEqual(oldStyle.path.count, 3)  // chapter > diary > entry
        let beagle = try XCTUnwrap(units.first { $0.place == "Bahia" })
        XCTAssertEqual(beagle.dateFrom, "1832-02-29")
    }

    /// A letter quoted inside a chapter ends where its element ends: the narrative after
    /// it is the chapter's again (an end mark), with the chapter's voice and no date of
    /// the letter's; an untyped blockquote with a header of its own (a newspaper
    /// cutting, a memorandum) is a unit named and dated by its header; one without a
    /// header, and a letter the chapter ends with, need no end.
    func testQuotedLettersEndAndCuttingsAreUnits() throws {
        let narrative = "<p>Oh, never, never, never shall I forget the emotion this letter caused me, said Esther at last.</p>"
        let chapter = xhtml("""
            <section epub:type="chapter"><h2>III</h2><p>I was brought up by my godmother.</p>
            <blockquote epub:type="z3998:letter"><p epub:type="se:letter.dateline">Old Square, Lincoln’s Inn, 9 May.</p>
            <p>Madam, we are instructed to inform you.</p></blockquote>\(narrative)
            <blockquote><p>A quotation with no header is none.</p></blockquote>\(narrative)
            <blockquote><header><p>The Pall Mall Gazette, 18 September.</p><p>The Escaped Wolf.</p></header>
            <p>After many inquiries I found the keeper of the section.</p></blockquote>\(narrative)
            <blockquote><header><p>Memorandum Left by Lucy Westenra.</p></header><p>I write this and leave it.</p></blockquote>
            </section>
            """)
        let dir = TempDir()
        let nav = #"<nav epub:type="toc"><ol><li><a href="c.xhtml">III</a></li></ol></nav>"#
        let (_, pages) = try parseFile(dir.write("b.epub", makeEPUB(chapters: [("c.xhtml", chapter)], nav: nav)))
        let outline = try outline(pages)
        XCTAssertEqual(outline.units.map(\.title), ["III", "Letter", "The Pall Mall Gazette, 18 September.", "Memorandum Left by Lucy Westenra."])
        XCTAssertEqual(outline.units.map(\.kind), ["chapter", "letter", "section", "section"])
        XCTAssertEqual(outline.units[1].dateFrom, "--05-09")
        XCTAssertEqual(outline.units[2].dateFrom, "--09-18")
        XCTAssertEqual(outline.units[3].voice, "Lucy Westenra")
        // Each narrative paragraph after a letter or a cutting is the chapter's.
        let page = try XCTUnwrap(pages.first { $0.text.contains("Oh, never") })
        let scalars = Array(page.text.unicodeScalars)
        var found = 0
        for i in 0..<(scalars.count - 8) where String(String.UnicodeScalarView(scalars[i..<(i + 8)])) == "Oh, neve" {
            XCTAssertEqual(outline.unit(page: page.page, offset: i), 0, "narrative at \(i)")
            found += 1
        }
        XCTAssertEqual(found, 3)
        let marks = try pages.flatMap { try StructureMark.marks(of: $0) }
        XCTAssertEqual(marks.filter(\.end).count, 2, "after the letter and the cutting; not after the memorandum the chapter ends with")
        XCTAssertEqual(try StructureMark(json: StructureMark.end(at: 7, depth: 1).json), StructureMark.end(at: 7, depth: 1))

        // A quotation inside an entry counts among the entry's paragraphs: an italic further on is no date.
        let entry = xhtml("""
            <section epub:type="chapter"><h2>IV</h2><article epub:type="z3998:diary-entry"><p>Rose early, and to the office.</p>
            <blockquote><span>A verse he copied out.</span></blockquote><p><i>Hudibras</i> read all the evening.</p></article></section>
            """)
        let nav4 = #"<nav epub:type="toc"><ol><li><a href="c.xhtml">IV</a></li></ol></nav>"#
        let quoted = try self.outline(try parseFile(dir.write("q.epub", makeEPUB(chapters: [("c.xhtml", entry)], nav: nav4))).1)
        XCTAssertEqual(quoted.units.map(\.title), ["IV"])
    }

    /// Pepys as Standard Ebooks marks him: each entry an article whose first paragraph
    /// opens with <time datetime>, datetime in the Gregorian calendar, the text in Pepys's
    /// Julian one. The entry is dated by the day the reader sees.
    func testEntriesDatedByAnOpeningTimeKeepTheDayShown() throws {
        let chapter = xhtml("""
            <section id="chapter-10" epub:type="chapter z3998:diary"><h2 epub:type="title">October 1660</h2>
            <article epub:type="z3998:diary-entry"><p><time datetime="1660-10-11">October 1st</time>. Early to my Lord.</p></article>
            <article epub:type="z3998:diary-entry"><p><time datetime="1660-10-17">7th (Lord’s day)</time>. To White Hall on foot.</p></article>
            <article epub:type="z3998:diary-entry"><p>No date here, and <time datetime="1660-10-20">a time</time> later on.</p></article>
            </section>
            <section id="chapter-11" epub:type="chapter z3998:diary"><h2 epub:type="title">January 1660/61</h2>
            <article epub:type="z3998:diary-entry"><p><time datetime="1661-01-11">January 1st</time>. New year.</p></article>
            </section>
            """)
        let dir = TempDir()
        let path = dir.write("p.epub", makeEPUB(chapters: [("c.xhtml", chapter)]))
        let units = try outline(try parseFile(path).1).units
        let entries = units.filter { $0.kind == "entry" }
        XCTAssertEqual(entries.map(\.title), ["October 1st", "7th (Lord’s day)", "January 1st"])
        XCTAssertEqual(entries.map(\.dateFrom), ["1660-10-01", "1660-10-07", "1661-01-01"])
        // A <time> later in a paragraph is not the entry's date.
        XCTAssertFalse(units.contains { $0.title == "a time" })
    }

    /// A day a diary writes without its year ("September 2nd.") takes the year of its month
    /// ("SEPTEMBER 1666"), both years of an Old Style double year, none from a month that is
    /// itself yearless; a day of an earlier month than its dated month is the next year's.
    func testADayTakesTheYearOfTheUnitAroundIt() {
        XCTAssertEqual(BookOutline.withYear("--09-02", around: ("1666-09", "1666-09")), "1666-09-02")
        XCTAssertEqual(BookOutline.withYear("--09-02", around: ("1666", "1666")), "1666-09-02")
        XCTAssertEqual(BookOutline.withYear("--01-01", around: ("1666-12", "1666-12")), "1667-01-01")
        XCTAssertEqual(BookOutline.withYear("--01-01", around: ("1659-01", "1660-01")), "1659-01-01", "Old Style: either year")
        XCTAssertEqual(BookOutline.withYear("--01-01", around: ("1659-01", "1660-01"), end: true), "1660-01-01")
        XCTAssertEqual(BookOutline.withYear("--01-01", around: ("1659", "1662")), "--01-01", "years say nothing of the day's")
        XCTAssertEqual(BookOutline.withYear("--05-03", around: ("--05", "--05")), "--05-03")
        XCTAssertEqual(BookOutline.withYear("--05-03", around: nil), "--05-03")
        XCTAssertEqual(BookOutline.withYear("1832-02-29", around: ("1833", "1833")), "1832-02-29", "a full date is kept")
        let outline = BookOutline(pages: [
            (1, [StructureMark(at: 0, depth: 0, kind: "chapter", title: "SEPTEMBER 1666", date: "1666-09"),
                 StructureMark(at: 20, depth: 1, kind: "entry", title: "September 2nd.", date: "--09-02")]),
            (2, [StructureMark(at: 0, depth: 0, kind: "chapter", title: "I"),
                 StructureMark(at: 5, depth: 1, kind: "entry", title: "3 May. Bistritz.", date: "--05-03")]),
        ])
        XCTAssertEqual(outline.dates(of: 1)?.from, "1666-09-02", "a chunk in the entry is dated with the year")
        XCTAssertEqual(outline.dates(of: 3)?.from, "--05-03", "a diary that gives no year keeps none")
    }

    func testJulianDayShownIsKept() {
        XCTAssertEqual(StructureDates.reconciled("1660-10-11", shown: "October 1st"), "1660-10-01")
        XCTAssertEqual(StructureDates.reconciled("1661-03-03", shown: "21st"), "1661-02-21")   // across a month
        XCTAssertEqual(StructureDates.reconciled("1750-01-11", shown: "31st"), "1749-12-31")    // 11 days, across a year
        XCTAssertEqual(StructureDates.reconciled("1832-02-29", shown: "Feb. 29th"), "1832-02-29")  // the same day: kept
        XCTAssertEqual(StructureDates.reconciled("1832-02-29", shown: "the 3rd"), "1832-02-29")    // no 10-12 day gap: datetime
        XCTAssertEqual(StructureDates.reconciled("1832-02", shown: "1st"), "1832-02")
        // The day arithmetic it stands on (IBCore's Day): day numbers and dates round-trip.
        for serial in stride(from: -150_000, through: 150_000, by: 997) {
            let d = Day(serial: serial)
            XCTAssertEqual(Day(year: d.year, month: d.month, day: d.day)?.serial, serial)
        }
        XCTAssertEqual(Day(year: 1970, month: 1, day: 1)?.serial, 0)
        XCTAssertEqual(Day(year: 2000, month: 3, day: 1)!.serial - Day(year: 2000, month: 2, day: 28)!.serial, 2)
    }

    /// A plain edition's days: paragraphs opening with the date under a month's
    /// heading, carried across the book's documents, or naming their month under an
    /// undated chapter (a plain Dracula); a lone "1st." and numbered points outside
    /// a dated unit are none.
    func testAPlainDiarysDaysAreEntries() throws {
        let first = xhtml("""
            <h2 id="jan">JANUARY 1659-1660</h2><p>Blessed be God, at the end of the last year I was in very good health.</p>
            <p>Jan. 1st (Lord\u{2019}s day). This morning I rose, put on my suit with great skirts.</p>
            <p>2nd. In the morning before I went forth old East brought me a dozen of bottles of sack.</p>
            """)
        let second = xhtml("""
            <p>3rd. All the day at the office.</p><p>[A note of the editor\u{2019}s.]</p>
            <h2 id="feb">FEBRUARY 1659-1660</h2><p>1st. Up early.</p><p>Feb. 2nd: to Westminster.</p><p>3 February. By water.</p>
            <h2 id="mar">MARCH 1660</h2><p>1st. Up early, and nothing more this month.</p>
            <h2 id="notes">NOTES</h2><p>1st. That the clerk be paid.</p><p>2nd. That the office be swept.</p>
            <h2 id="journal">JONATHAN HARKER\u{2019}S JOURNAL</h2><p>3 May. Bistritz.\u{2014}Left Munich at 8:35 p.m.</p>
            <p>4 May.\u{2060}\u{2014}I found that my landlord had got a letter.</p><p>May I say more? 5th. No.</p>
            """)
        let nav = """
            <nav epub:type="toc"><ol><li><a href="a.xhtml#jan">JANUARY 1659-1660</a></li><li><a href="b.xhtml#feb">FEBRUARY 1659-1660</a></li>
            <li><a href="b.xhtml#mar">MARCH 1660</a></li><li><a href="b.xhtml#notes">NOTES</a></li>
            <li><a href="b.xhtml#journal">JONATHAN HARKER\u{2019}S JOURNAL</a></li></ol></nav>
            """
        let dir = TempDir()
        let path = dir.write("p.epub", makeEPUB(chapters: [("a.xhtml", first), ("b.xhtml", second)], nav: nav))
        let units = try outline(try parseFile(path).1).units
        let entries = units.filter { $0.kind == "entry" }
        guard entries.count == 8 else { return XCTFail("entries: \(entries.map(\.title))") }
        XCTAssertEqual(entries.map(\.title), ["January 1st (Lord\u{2019}s day)", "January 2nd", "January 3rd",
                                              "February 1st", "February 2nd", "February 3", "May 3", "May 4"])
        XCTAssertEqual(entries.map(\.dateFrom), ["--01-01", "--01-02", "--01-03", "--02-01", "--02-02", "--02-03", "--05-03", "--05-04"])
        XCTAssertEqual(entries.map(\.place), [nil, nil, nil, nil, nil, nil, "Bistritz", nil])
        XCTAssertEqual(entries.map { $0.path.first }, ["JANUARY 1659-1660", "JANUARY 1659-1660", "JANUARY 1659-1660",
                                                     "FEBRUARY 1659-1660", "FEBRUARY 1659-1660", "FEBRUARY 1659-1660",
                                                     "JONATHAN HARKER\u{2019}S JOURNAL", "JONATHAN HARKER\u{2019}S JOURNAL"])
        // The day takes its month's Old Style year, as any yearless day does.
        XCTAssertEqual(BookOutline.withYear(entries[2].dateFrom!, around: ("1659-01", "1660-01")), "1659-01-03")
        // Markdown: the same paragraphs under "##" headings.
        let markdown = dir.write("p.md", """
            # The Diary\n\n## SEPTEMBER 1666\n\nSept. 2nd (Lord\u{2019}s day). Some of our maids sitting up late.\n\n\
            3rd. About four o\u{2019}clock in the morning.\n\n4th. Up by break of day.\n
            """)
        let days = try outline(try parseFile(markdown).1).units.filter { $0.kind == "entry" }
        XCTAssertEqual(days.map(\.dateFrom), ["--09-02", "--09-03", "--09-04"])
        XCTAssertEqual(days.map(\.path), [["SEPTEMBER 1666", "September 2nd (Lord\u{2019}s day)"], ["SEPTEMBER 1666", "September 3rd"],
                                          ["SEPTEMBER 1666", "September 4th"]])
    }

    func testDayOpenings() {
        func day(_ s: String) -> String? {
            DayEntries.opening(s).map { "\($0.month.map(String.init) ?? "-") \($0.day) \($0.aside ?? "")" }
        }
        XCTAssertEqual(day("2nd. In the morning"), "- 2 ")
        XCTAssertEqual(day("22d. Up betimes"), "- 22 ")
        XCTAssertEqual(day("Jan. 1st (Lord\u{2019}s day). This morning"), "1 1 (Lord\u{2019}s day)")
        XCTAssertEqual(day("September 2nd: Some of our maids"), "9 2 ")
        XCTAssertEqual(day("3 May. Bistritz."), "5 3 ")
        XCTAssertEqual(day("30th. (Lord\u{2019}s day.) At church"), "- 30 ")
        XCTAssertEqual(DayEntries.opening("3 May. Bistritz.\u{2014}Left Munich")?.place, "Bistritz")
        XCTAssertEqual(DayEntries.opening("5 May. The Castle.\u{2014}The grey")?.place, "The Castle")
        XCTAssertNil(DayEntries.opening("3rd. All the day at the office.")?.place)
        XCTAssertNil(DayEntries.opening("17 September. Night.\u{2014}I write")?.place, "a time, not a place")
        XCTAssertNil(DayEntries.opening("4 May.\u{2060}\u{2014}I found that")?.place)
        XCTAssertEqual(day("4th."), "- 4 ")
        XCTAssertEqual(day("April 3.\u{2014}Tradesmen called"), "4 3 ")
        XCTAssertEqual(day("4 May.\u{2060}\u{2014}I found"), "5 4 ")
        XCTAssertEqual(day("4 May\u{2014}I found"), "5 4 ")
        XCTAssertNil(day("4 May.Then"))
        XCTAssertNil(day("4th"), "no stop: not a date line")
        XCTAssertNil(day("3. The third point"), "a bare number is a numbered point")
        XCTAssertNil(day("2nd of all, we went"), "the date is not the sentence")
        XCTAssertNil(day("May I come in?"))
        XCTAssertNil(day("1660 was a year of wonders."))
        XCTAssertNil(day("The 2nd. Up early"))
        XCTAssertNil(day("32nd. No such day"))
        XCTAssertNil(day("may 3rd. lower case"))
        // A plain text's italics and double hyphens; a weekday before the date; a range, dated by its first day.
        XCTAssertEqual(day("_4 May._--I found"), "5 4 ")
        XCTAssertEqual(DayEntries.opening("_3 May. Bistritz._--Left Munich")?.place, "Bistritz")
        XCTAssertEqual(day("Sunday, April 3rd.--After service"), "4 3 ")
        XCTAssertEqual(day("September 12th to 13th.--We rode"), "9 12 ")
        XCTAssertEqual(day("April 4th to July 5th, 1832.--A few days"), "4 4 ")
        XCTAssertEqual(day("29th to 30th.--Still at sea"), "- 29 ")
        XCTAssertNil(day("Sunday was a day of rest."))
        XCTAssertNil(day("4th to the last man, we went"), "the date is not the sentence")
    }

    /// A journal's days under a chapter that gives no date (a plain Beagle): a day written
    /// alone continues the month of the day before it in the same unit.
    func testADayAloneContinuesTheMonthBeforeIt() throws {
        let dir = TempDir()
        let text = "CHAPTER I\n\nOctober 16th.--We rode to the estancia.\n\n18th.--Rain all day.\n\n"
            + "19th to 20th.--Crossed the river.\n\nCHAPTER II\n\n21st.--A day alone names no month here.\n\n22nd.--Nor here.\n"
        let units = try outline(try parseFile(dir.write("beagle.txt", text)).1).units
        XCTAssertEqual(units.map(\.title), ["CHAPTER I", "October 16th", "October 18th", "October 19th", "CHAPTER II"])
        XCTAssertEqual(units.filter { $0.kind == "entry" }.map(\.dateFrom), ["--10-16", "--10-18", "--10-19"])
    }

    func testMarkdownHeadingsGiveTheHierarchy() throws {
        let dir = TempDir()
        let path = dir.write("m.md", "# The Book\n\n## Part One\n\nText.\n\n### Chapter 1\n\nWords.\n\n### Chapter 2\n\nMore.\n\n## Part Two\n\nEnd.\n")
        let units = try outline(try parseFile(path).1).units
        XCTAssertEqual(units.map(\.path), [["Part One"], ["Part One", "Chapter 1"], ["Part One", "Chapter 2"], ["Part Two"]])
        XCTAssertEqual(units.map(\.depth), [0, 1, 1, 0])
    }

    func testPlainTextHasNoStructureField() throws {
        let dir = TempDir()
        let (_, pages) = try parseFile(dir.write("t.txt", "Just words.\n"))
        XCTAssertNil(pages[0].extra["structure"])
    }

    /// An English plain text as Project Gutenberg writes it: a contents list first
    /// (dropped: its headings have nothing between them, and the text starts where
    /// "CHAPTER I" comes again), chapters, a journal's header with its voice, days
    /// written as paragraphs ("_3 May. Bistritz._--Left Munich") and a letter's header.
    func testGutenbergTextHeadingsAreItsStructure() throws {
        let dir = TempDir()
        let novel = """
            DRACULA

            CONTENTS

            CHAPTER I

            CHAPTER II


            CHAPTER I

            JONATHAN HARKER'S JOURNAL

            (_Kept in shorthand._)

            _3 May. Bistritz._--Left Munich at 8:35 P. M., on 1st May, arriving at
            Vienna early next morning.

            _4 May._--I found that my landlord had got a letter from the Count.


            DR. SEWARD'S DIARY.

            _5 October._--We all rose early, and I think that sleep did much for us.


            CHAPTER II

            _Letter, Miss Mina Murray to Miss Lucy Westenra._

            "_9 May._

            "My dearest Lucy,--"

            TELEGRAM FROM ARTHUR HOLMWOOD TO QUINCEY P. MORRIS.

            "_9 May._

            "My dearest Lucy,--Forgive my long delay in writing."

            *** END OF THE PROJECT GUTENBERG EBOOK DRACULA ***

            Updated editions will replace the previous one.

            Section 1. General Terms of Use

            Section 2. Information about the Mission of Project Gutenberg

            """
        let (_, pages) = try parseFile(dir.write("dracula.txt", novel))
        XCTAssertEqual(pages.map(\.text).joined(), novel.trimmingCharacters(in: "\n"), "the text is as it was")
        var units = try outline(pages).units
        // The contents list, which runs into the text, and Project Gutenberg's licence are the publisher's pages.
        XCTAssertEqual(units.first?.path, ["CONTENTS"])
        XCTAssertEqual(units.last?.path, ["*** END OF THE PROJECT GUTENBERG EBOOK DRACULA ***"])
        XCTAssertEqual(units.filter { BookMatter.isPublisherMatter(section: $0.path) }.count, 2)
        units = Array(units.dropFirst().dropLast())
        XCTAssertEqual(units.map(\.path), [["CHAPTER I"], ["CHAPTER I", "JONATHAN HARKER'S JOURNAL"],
                                           ["CHAPTER I", "JONATHAN HARKER'S JOURNAL", "May 3"],
                                           ["CHAPTER I", "JONATHAN HARKER'S JOURNAL", "May 4"],
                                           ["CHAPTER I", "DR. SEWARD'S DIARY."], ["CHAPTER I", "DR. SEWARD'S DIARY.", "October 5"],
                                           ["CHAPTER II"], ["CHAPTER II", "Letter, Miss Mina Murray to Miss Lucy Westenra."],
                                           ["CHAPTER II", "TELEGRAM FROM ARTHUR HOLMWOOD TO QUINCEY P. MORRIS."]])
        XCTAssertEqual(units.map(\.kind), ["chapter", "section", "entry", "entry", "section", "entry", "chapter", "letter", "letter"])
        XCTAssertEqual(units.map(\.number), [1, nil, nil, nil, nil, nil, 2, nil, nil])
        XCTAssertEqual(units.map(\.voice), [nil, "JONATHAN HARKER", "JONATHAN HARKER", "JONATHAN HARKER", "DR. SEWARD", "DR. SEWARD",
                                            nil, "Mina Murray", "ARTHUR HOLMWOOD"], "a journal's one day is an entry in its voice")
        XCTAssertEqual(units[2].dateFrom, "--05-03")
        XCTAssertEqual(units[2].place, "Bistritz")
        let first = try marks(pages).first { $0.mark.title == "CHAPTER I" }!
        XCTAssertTrue(String(pages.first { $0.page == first.page }!.text.dropFirst(first.mark.at)).hasPrefix("CHAPTER I\n\nJONATHAN"),
                      "the chapter is the one after the contents")
    }

    /// Recent Project Gutenberg texts print a chapter's title on the line under its label,
    /// and list both in their contents block: the chapters are the ones after the list.
    func testAChaptersTitleOnTheNextLine() throws {
        let dir = TempDir()
        let alice = "*** START OF THE PROJECT GUTENBERG EBOOK ALICE ***\n\nContents\n\n CHAPTER I.     Down the Rabbit-Hole\n"
            + " CHAPTER II.    The Pool of Tears\n\n\n\nCHAPTER I.\nDown the Rabbit-Hole\n\n\n"
            + "Alice was beginning to get very tired of sitting by her sister on the bank,\nand of having nothing to do.\n\n\n"
            + "CHAPTER II.\nThe Pool of Tears\n\n\n\u{201C}Curiouser and curiouser!\u{201D} cried Alice (she was so much surprised,\nthat for the moment she quite forgot how to speak good English).\n"
        let units = try outline(try parseFile(dir.write("alice.txt", alice)).1).units
        XCTAssertEqual(units.map(\.title), ["Contents", "CHAPTER I. Down the Rabbit-Hole", "CHAPTER II. The Pool of Tears"])
        XCTAssertEqual(units.map(\.number), [nil, 1, 2])
        // Two lines of prose that open with a label are not a heading.
        let prose = "Chapter 4\nof the report was never read by anyone at the meeting.\n\nChapter 5\nwas lost in the fire before anyone could copy it out.\n"
        XCTAssertNil(try parseFile(dir.write("t.txt", prose)).1[0].extra["structure"])
    }

    /// A play's acts and scenes, a diary's months and days (the year from the month's
    /// Old Style heading), a novel's books with chapters counted again in each, and
    /// chapters labelled by a bare numeral with a title line after it.
    func testPlainTextPartsMonthsAndBareNumerals() throws {
        let dir = TempDir()
        let play = "ACT I\n\nSCENE I. Elsinore. A platform before the Castle.\n\nBARNARDO.\nWho's there?\n\n"
            + "SCENE II. A room of state in the Castle.\n\nKING.\nThough yet of Hamlet our dear brother's death\n\n"
            + "ACT II\n\nSCENE I. A room in Polonius's house.\n\nPOLONIUS.\nGive him this money.\n"
        let acts = try outline(try parseFile(dir.write("hamlet.txt", play)).1).units
        XCTAssertEqual(acts.map(\.kind), ["act", "scene", "scene", "act", "scene"])
        XCTAssertEqual(acts.map(\.number), [1, 1, 2, 2, 1])
        XCTAssertEqual(acts.map(\.depth), [0, 1, 1, 0, 1])

        let diary = "JANUARY 1659-1660\n\nJan. 1st (Lord's day). This morning I rose.\n\n2nd. In the morning old East came.\n\n"
            + "FEBRUARY 1659-1660\n\nFeb. 1st. We met at the office.\n\n2nd. To Westminster Hall.\n"
        let days = try outline(try parseFile(dir.write("pepys.txt", diary)).1).units
        XCTAssertEqual(days.map(\.title), ["JANUARY 1659-1660", "January 1st (Lord's day)", "January 2nd",
                                           "FEBRUARY 1659-1660", "February 1st", "February 2nd"])
        XCTAssertEqual(days.map(\.kind), [nil, "entry", "entry", nil, "entry", "entry"])
        // A yearless day under its month, as in any diary: ib-chunk and ib-search read it as 1659-01-01 (or 1660).
        XCTAssertEqual(days.map(\.dateFrom), ["1659-01", "--01-01", "--01-02", "1659-02", "--02-01", "--02-02"])

        let books = "BOOK ONE: 1805\n\nCHAPTER I\n\n\"Well, Prince.\"\n\nCHAPTER II\n\nThe room filled.\n\n"
            + "BOOK TWO: 1805\n\nCHAPTER I\n\nIn October an army was near Braunau.\n"
        let parts = try outline(try parseFile(dir.write("wp.txt", books)).1).units
        XCTAssertEqual(parts.map(\.path), [["BOOK ONE: 1805"], ["BOOK ONE: 1805", "CHAPTER I"], ["BOOK ONE: 1805", "CHAPTER II"],
                                           ["BOOK TWO: 1805"], ["BOOK TWO: 1805", "CHAPTER I"]])

        let bare = "I\n\nLoomings\n\nCall me Ishmael. Some years ago I went to sea.\n\nII\n\nThe Carpet-Bag\n\n"
            + "I stuffed a shirt or two into my old carpet-bag.\n\n7\n\nA stray figure is text.\n\nIII\n\nThe Spouter-Inn\n\nEntering it.\n"
        let chapters = try outline(try parseFile(dir.write("moby.txt", bare)).1).units
        XCTAssertEqual(chapters.map(\.title), ["I: Loomings", "II: The Carpet-Bag", "III: The Spouter-Inn"], "a numeral out of the count is text")
        XCTAssertEqual(chapters.map(\.number), [1, 2, 3])
    }

    /// Chapters with titles and no numbers (Walden's) are the one-line paragraphs that
    /// say what a line of the contents list says; the list (a paragraph a title, or one
    /// block of lines) ends at prose or where it names a title again. Without a list such
    /// lines are text. A year after a label is the label's title ("PART I", "1805").
    func testPlainTextTitlesTheContentsListNames() throws {
        let dir = TempDir()
        let prose = "When I wrote the following pages, or rather the bulk of them, I lived\nalone, in the woods, a mile from any neighbor.\n\n"
        let walden = "WALDEN\n\nCONTENTS\n\nECONOMY\n\nREADING\n\nTHE PONDS\n\n\nECONOMY\n\n" + prose + "READING\n\n" + prose
            + "Reading\nis a noble exercise, the reader said once more.\n\nTHE PONDS\n\n" + prose
        let units = try outline(try parseFile(dir.write("walden.txt", walden)).1).units
        XCTAssertEqual(units.map(\.title), ["CONTENTS", "ECONOMY", "READING", "THE PONDS"], "the list, then its titles")
        XCTAssertEqual(units.map(\.kind), [nil, nil, nil, nil])
        XCTAssertEqual(units.map(\.depth), [0, 0, 0, 0])
        let (_, pages) = try parseFile(dir.write("walden.txt", walden))
        let economy = try marks(pages)[1]
        XCTAssertTrue(String(pages[0].text.dropFirst(economy.mark.at)).hasPrefix("ECONOMY\n\nWhen I wrote"), "the heading after the list")

        let block = "Contents\n  I. Economy\n  II. Reading  45\n\n" + "Economy\n\n" + prose + "Reading\n\n" + prose
        XCTAssertEqual(try outline(try parseFile(dir.write("block.txt", block)).1).units.map(\.title), ["Contents", "Economy", "Reading"])
        // A list followed by a preface is no unit of its own: it would hold the preface.
        let preface = "CONTENTS\n\nECONOMY\n\nREADING\n\n" + prose + "ECONOMY\n\n" + prose + "READING\n\n" + prose
        XCTAssertEqual(try outline(try parseFile(dir.write("preface.txt", preface)).1).units.map(\.title), ["ECONOMY", "READING"])

        for text in ["ECONOMY\n\n" + prose + "READING\n\n" + prose, "CONTENTS\n\n" + prose + "ECONOMY\n\n" + prose + "READING\n\n" + prose] {
            XCTAssertNil(try parseFile(dir.write("t.txt", text)).1[0].extra["structure"], "no list, no titles: " + text)
        }

        let years = "BOOK I\n\nPART I\n\n1805\n\nCHAPTER I\n\n" + prose + "PART II\n\n1806\n\nCHAPTER I\n\n" + prose
        let parts = try outline(try parseFile(dir.write("wp.txt", years)).1).units
        XCTAssertEqual(parts.map(\.path), [["BOOK I"], ["BOOK I", "PART I: 1805"], ["BOOK I", "PART I: 1805", "CHAPTER I"],
                                           ["BOOK I", "PART II: 1806"], ["BOOK I", "PART II: 1806", "CHAPTER I"]])
        XCTAssertEqual(parts.map(\.dateFrom), [nil, "1805", nil, "1806", nil])
    }

    /// A collection's stories or essays, each titled by a line of its own with no label
    /// and no contents list (as converters write them): the titles are its units, a story
    /// in parts holds its count, and the publisher's pages titled the same way come with
    /// them. Lines written as titles anywhere else (a novel's signatures, a dictionary's
    /// headwords, a letter's place) are text.
    func testPlainTextCollectionsTitleTheirWorks() throws {
        let dir = TempDir()
        let prose = String(repeating: "To Sherlock Holmes she is always the woman. I have seldom heard him\nmention her under any other name.\n\n", count: 50)
        let stories = "Imprint\n\nThis ebook is the product of many hours of hard work by volunteers.\n\n"
            + "A Scandal in Bohemia\n\nI\n\n" + prose + "II\n\n" + prose
            + "The Red-Headed League\n\n" + prose + "The Man with the Twisted Lip\n\n" + prose
            + "The Adventure of the Speckled Band\n\n" + prose + "Colophon\n\nThe Adventures of Sherlock Holmes was compiled.\n"
        let units = try outline(try parseFile(dir.write("sherlock.txt", stories)).1).units
        XCTAssertEqual(units.map(\.title), ["Imprint", "A Scandal in Bohemia", "I", "II", "The Red-Headed League",
                                            "The Man with the Twisted Lip", "The Adventure of the Speckled Band", "Colophon"])
        XCTAssertEqual(units.map(\.depth), [0, 0, 1, 1, 0, 0, 0, 0])
        XCTAssertEqual(units.map(\.kind), [nil, nil, "chapter", "chapter", nil, nil, nil, nil])

        // A novel's chapters hold its signature lines; a heading further into a title's text is the book's.
        let novel = "CHAPTER I\n\nMy dear Lucy, forgive me.\n\nMina Harker\n\n" + prose + "CHAPTER II\n\n" + prose + "Lucy Westenra\n\n" + prose
            + "Jonathan Harker\n\n" + prose
        XCTAssertEqual(try outline(try parseFile(dir.write("novel.txt", novel)).1).units.map(\.title), ["CHAPTER I", "CHAPTER II"])
        // A dictionary's headwords stand close together; a text's titled lines far into it open nothing;
        // two titles are no collection.
        let dictionary = (1...60).map { "Abacus Number \($0)\n\nA printed counting frame, the dictionary says.\n\n" }.joined()
        let late = prose + prose + prose + "Mina Harker\n\n" + prose + "Lucy Westenra\n\n" + prose + "Jonathan Harker\n\n" + prose
        let two = "A Scandal in Bohemia\n\n" + prose + "The Red-Headed League\n\n" + prose
        for (name, text) in [("dictionary", dictionary), ("late", late), ("two", two)] {
            XCTAssertEqual(try outline(try parseFile(dir.write("t.txt", text)).1).units.map(\.title), [], name)
        }
    }

    /// Lines of prose are not headings: a wrapped "I.", a paragraph that opens with
    /// "Chapter" or "Part" in a sentence, a journal named in a sentence, one heading alone.
    func testPlainTextProseIsNotHeadings() throws {
        let dir = TempDir()
        for text in ["He said it was not\nI.\n\nNo.\n\nII\n", "CHAPTER I\n\nOne heading alone is a line of the text.\n",
                     "Part of it was true.\n\nChapter and verse.\n\nBook the rooms.\n",
                     "Mina's journal was lost.\n\nHarker's diary says so too.\n",
                     "I\n\nA first numeral.\n\nIV\n\nA fourth, with nothing between.\n\nIX\n\nA ninth.\n"] {
            XCTAssertNil(try parseFile(dir.write("t.txt", text)).1[0].extra["structure"], text)
        }
        // A figure before a month is a day, never a chapter numbered 9 or 4.
        for text in ["9 May.\n\nMy dear Lucy.\n\n10 May.\n\nMy dearest Mina.\n",
                     "4 May.--I found that my landlord had got a letter.\n\n5 June.--Another day.\n"] {
            let units = try outline(try parseFile(dir.write("t.txt", text)).1).units
            XCTAssertEqual(units.map(\.kind), ["entry", "entry"], text)
        }
    }

    /// A Chinese novel in TXT: its "第N卷" and "第N章" lines are its structure
    /// (pages as before); a sentence that opens with "第二天", one heading alone,
    /// or a counted line ending in a full stop are text.
    func testChineseTextHeadingsAreItsStructure() throws {
        let dir = TempDir()
        let novel = "第一卷　风起\n\n第一章 出海\n\n他在清晨出海。\n\n第二天，风停了。\n\n　　第十二章\n\n雨下了很久。\n\n第二卷 归来\n\n第一章 回家\n\n他回家了。\n"
        let (_, pages) = try parseFile(dir.write("novel.txt", novel))
        XCTAssertEqual(pages.map(\.text).joined(), "第一卷　风起\n\n第一章 出海\n\n他在清晨出海。\n\n第二天，风停了。\n\n　　第十二章\n\n雨下了很久。\n\n第二卷 归来\n\n第一章 回家\n\n他回家了。",
                       "the text is as it was")
        let units = try outline(pages).units
        XCTAssertEqual(units.map(\.path), [["第一卷　风起"], ["第一卷　风起", "第一章 出海"], ["第一卷　风起", "第十二章"],
                                           ["第二卷 归来"], ["第二卷 归来", "第一章 回家"]])
        XCTAssertEqual(units.map(\.kind), ["book", "chapter", "chapter", "book", "chapter"])
        XCTAssertEqual(units.map(\.number), [1, 1, 12, 2, 1])
        let twelve = try marks(pages).first { $0.mark.title == "第十二章" }!
        XCTAssertTrue(String(pages.first { $0.page == twelve.page }!.text.dropFirst(twelve.mark.at)).hasPrefix("第十二章"))
        // A diary in TXT: its days are entries, dated (the year from the heading above, as for any yearless day).
        let diary = "1937年\n\n五月四日 晴\n\n到北京。\n\n五月五日 雨\n\n五月五日，我们去了书店。\n"
        let days = try outline(try parseFile(dir.write("diary.txt", diary)).1).units
        XCTAssertEqual(days.map(\.title), ["1937年", "五月四日 晴", "五月五日 雨"], "a sentence that opens with the day is text")
        XCTAssertEqual(days.map(\.kind), [nil, "entry", "entry"])
        XCTAssertEqual(days.map(\.depth), [0, 1, 1])
        // A yearless day under its year, as in any diary: ib-chunk and ib-search read it as 1937-05-04.
        XCTAssertEqual(days.map(\.dateFrom), ["1937", "--05-04", "--05-05"])
        for text in ["第一章 出海\n\n他在清晨出海。\n", "第一章说的是出海。\n第二章说的是回家。\n", "第二天，风停了。\n第三天，雨停了。\n"] {
            XCTAssertNil(try parseFile(dir.write("t.txt", text)).1[0].extra["structure"], text)
        }
    }

    func testDateGrammar() {
        func d(_ s: String) -> [String?] { StructureDates.parse(s).map { [$0.from, $0.to] } ?? [] }
        XCTAssertEqual(d("3 May. Bistritz."), ["--05-03", nil])
        XCTAssertEqual(d("September 2nd (Lord’s day)"), ["--09-02", nil])
        XCTAssertEqual(d("1 October, 4 a.m."), ["--10-01", nil])
        XCTAssertEqual(d("December 17th, 1832"), ["1832-12-17", nil])
        XCTAssertEqual(d("January 1832"), ["1832-01", nil])
        XCTAssertEqual(d("February 1714–15"), ["1714-02", "1715-02"])
        XCTAssertEqual(d("JANUARY 1659-1660"), ["1659-01", "1660-01"])
        XCTAssertEqual(d("March 1662-3"), ["1662-03", "1663-03"])
        XCTAssertEqual(d("January 1699-00"), ["1699-01", "1700-01"])
        XCTAssertEqual(d("March 1662-4"), ["1662-03", nil], "not the next year")
        XCTAssertEqual(d("Part V: 1811–12"), ["1811", "1812"])
        XCTAssertEqual(d("You may go"), [])
        // A Chinese diary's titles.
        XCTAssertEqual(d("五月四日 晴"), ["--05-04", nil])
        XCTAssertEqual(d("一九三七年五月四日 星期二"), ["1937-05-04", nil])
        XCTAssertEqual(d("1937年5月"), ["1937-05", nil])
        XCTAssertEqual(d("1937年"), ["1937", nil])
        XCTAssertEqual(d("五月"), [])
        XCTAssertEqual(d("春天"), [])
        XCTAssertEqual(StructureTitles.kindAndNumber("XIV").number, 14)
        XCTAssertEqual(StructureTitles.kindAndNumber("Book Two").kind, "book")
        XCTAssertEqual(StructureTitles.kindAndNumber("Scene II").number, 2)
        // Chapters by a bare numeral; names that begin with a number are none.
        func kind(_ title: String) -> String { let k = StructureTitles.kindAndNumber(title); return "\(k.kind ?? "-") \(k.number.map(String.init) ?? "-")" }
        XCTAssertEqual(kind("XIV: The Masthead"), "chapter 14")
        XCTAssertEqual(kind("IV. Sounds"), "chapter 4")
        XCTAssertEqual(kind("III"), "chapter 3")
        XCTAssertEqual(kind("12 Loomings"), "chapter 12")
        XCTAssertEqual(kind("Second Book"), "book 2")
        XCTAssertEqual(kind("First Epilogue: 1813\u{2013}20"), "- -")
        XCTAssertEqual(kind("Second Epilogue"), "- -")
        XCTAssertEqual(kind("I Wandered Lonely as a Cloud"), "- -")
        XCTAssertEqual(kind("One Art"), "- -")
        // A numbered poem is a chapter of its collection; a poem's title that only begins with such a word is none.
        XCTAssertEqual(kind("Sonnet XVIII"), "chapter 18")
        XCTAssertEqual(kind("Psalm 23"), "chapter 23")
        XCTAssertEqual(kind("Elegy IX. Of His Mistress Going to Bed"), "chapter 9")
        XCTAssertEqual(kind("Song of Myself"), "- -")
        // A Chinese title counts its part.
        XCTAssertEqual(kind("第十二章 出海"), "chapter 12")
        XCTAssertEqual(kind("第三幕"), "act 3")
        XCTAssertEqual(kind("第一卷　风起"), "book 1")
        XCTAssertEqual(kind("第二十一回 宝玉"), "chapter 21")
        XCTAssertEqual(kind("第二天"), "- -")
        XCTAssertEqual(kind("Ode to a Nightingale"), "- -")
        XCTAssertEqual(kind("Mix Me a Drink"), "- -")
    }

    /// Front and back matter as the markup marks it (a body typed "frontmatter"
    /// or "backmatter", its section typed "introduction", "afterword"): the
    /// document's units take that kind, whatever their title says. A section
    /// typed so in the book's own body, a title "Introduction" without the
    /// markup, and an appendix keep the kind their titles give.
    func testFrontAndBackMatterTakeTheKindTheMarkupGives() throws {
        func page(_ body: String, type: String) -> String {
            """
            <?xml version="1.0" encoding="utf-8"?>
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>T</title></head>
            <body epub:type="\(type)">\(body)</body></html>
            """
        }
        let chapters = [
            ("intro.xhtml", page("<section epub:type=\"introduction\"><h2>Particulars of the Life</h2><p>He was born in 1633.</p></section>",
                                 type: "frontmatter z3998:non-fiction")),
            ("own-intro.xhtml", page("<section epub:type=\"introduction\"><h2>Introduction</h2><p>I begin my diary.</p></section>",
                                     type: "bodymatter")),
            ("plain.xhtml", xhtml("<h2>Introduction</h2><p>No markup says whose this is.</p>")),
            ("c1.xhtml", page("<section epub:type=\"chapter\"><h2>January 1660</h2><p>Blessed be God.</p></section>", type: "bodymatter")),
            ("after.xhtml", page("<section epub:type=\"afterword\"><h2>Afterword</h2><p>The diary ends.</p></section>", type: "backmatter")),
            ("app.xhtml", page("<section epub:type=\"appendix\"><h2>Appendix</h2><p>Tables.</p></section>", type: "backmatter")),
        ]
        let nav = "<nav epub:type=\"toc\"><ol>" + [("intro", "Particulars of the Life"), ("own-intro", "Introduction"), ("plain", "Introduction"),
                                                  ("c1", "January 1660"), ("after", "Afterword"), ("app", "Appendix")]
            .map { "<li><a href=\"\($0.0).xhtml\">\($0.1)</a></li>" }.joined() + "</ol></nav>"
        let dir = TempDir()
        let path = dir.write("m.epub", makeEPUB(chapters: chapters, nav: nav))
        let units = try outline(try parseFile(path).1).units
        XCTAssertEqual(units.map(\.title), ["Particulars of the Life", "Introduction", "Introduction", "January 1660", "Afterword", "Appendix"])
        XCTAssertEqual(units.map(\.kind), ["introduction", nil, nil, nil, "afterword", nil])
        XCTAssertEqual(units[3].dateFrom, "1660-01")
    }

    /// The long books in ../shared, when present.
    func testLongBooks() throws {
        let folder = repositoryRoot + "/../shared/books/long"
        guard access(folder + "/dracula.epub", F_OK) == 0 else { throw XCTSkip("../shared/books/long is not here") }
        func units(_ name: String) throws -> [StructureUnit] { try outline(try parseFile("\(folder)/\(name).epub").1).units }
        let war = try units("war-and-peace")
        XCTAssertTrue(war.contains { $0.path.count == 3 && $0.path[0].hasPrefix("Book") && $0.path[1].hasPrefix("Part") && $0.kind == "chapter" })
        let hamlet = try units("hamlet")
        XCTAssertEqual(hamlet.filter { $0.kind == "act" }.count, 5)
        XCTAssertEqual(hamlet.filter { $0.kind == "scene" }.count, 20)
        let dracula = try units("dracula")
        XCTAssertTrue(dracula.contains { $0.dateFrom == "--05-03" && $0.voice == "Jonathan Harker" && $0.place == "Bistritz" })
        let beagle = try units("voyage-of-the-beagle")
        XCTAssertTrue(beagle.contains { $0.kind == "chapter" && $0.title.contains("Rio de Janeiro") })
        XCTAssertTrue(beagle.contains { $0.kind == "preface" && $0.title == "Preface" })
        let moby = try units("moby-dick")
        XCTAssertEqual(moby.filter { $0.kind == "preamble" }.map(\.title), ["Etymology", "Extracts"])
        let walden = try units("walden")
        XCTAssertTrue(walden.contains { $0.title == "Economy" })
    }
}

