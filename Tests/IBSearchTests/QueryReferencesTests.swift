// How a question's words name a date, a numbered part, a place in the book or
// a quotation (QueryReferences), including the words that only look like one.
import XCTest
@testable import IBSearch

final class QueryReferencesTests: XCTestCase {
    func date(_ text: String) -> DateReference? { QueryReferences.parse(text).dates.first }

    func testDaysAndMonthsInEveryOrder() {
        for text in ["What happened on the 4th of May?", "on May 4th at the inn", "May 4 in Bistritz",
                     "4 May, before the castle", "on the fourth of May", "May the 4th"] {
            let d = date(text)
            XCTAssertEqual(d?.from, 504, text)
            XCTAssertEqual(d?.to, 504, text)
            XCTAssertEqual(d?.precise, true, text)
        }
        XCTAssertEqual(date("in Seward's diary on the twenty-first of September")?.from, 921)
    }

    func testMonthsWithQualifiersAndYears() {
        let early = date("early in August, at the pond")
        XCTAssertEqual(early?.from, 801); XCTAssertEqual(early?.to, 810)
        XCTAssertEqual(date("in early August")?.to, 810)
        let end = date("at the end of September")
        XCTAssertEqual(end?.from, 921); XCTAssertEqual(end?.to, 930)
        let year = date("in May 1893 at Whitby")
        XCTAssertEqual(year?.years, 1893...1893); XCTAssertEqual(year?.from, 501); XCTAssertEqual(year?.to, 531)
        XCTAssertEqual(date("what Darwin saw in 1835")?.years, 1835...1835)
        XCTAssertNil(date("what Darwin saw in 1835")?.from)
    }

    /// "the second year" is a year counted in the book, read per book by the focus.
    func testYearsCountedInTheBook() {
        let spring = date("in the spring of the second year, what did he buy?")
        XCTAssertEqual(spring?.from, 301); XCTAssertEqual(spring?.to, 531)
        XCTAssertNil(spring?.years); XCTAssertEqual(spring?.yearOfBook, 2)
        XCTAssertEqual(date("in his last year at the Navy Office")?.yearOfBook, -1)
        XCTAssertEqual(date("the final year of the voyage")?.yearOfBook, -1)
        XCTAssertEqual(date("during the 3rd year")?.yearOfBook, 3)
        let may = date("in May of the first year")
        XCTAssertEqual(may?.from, 501); XCTAssertEqual(may?.yearOfBook, 1)
        XCTAssertEqual(date("in the spring of 1834")?.yearOfBook, nil)
        XCTAssertNil(date("the two year old"))
        XCTAssertNil(date("the second years of study"))
        XCTAssertNil(date("in the second chapter"))
    }

    func testOldStyleDoubleYears() {
        let d = date("in February 1714-15")
        XCTAssertEqual(d?.years, 1714...1715)
        XCTAssertEqual(d?.from, 201)
        XCTAssertEqual(date("in February 1714\u{2013}15")?.years, 1714...1715)
    }

    func testSeasonsAndFeastDays() {
        let spring = date("in the spring of 1834 in Patagonia")
        XCTAssertEqual(spring?.from, 301); XCTAssertEqual(spring?.to, 531); XCTAssertEqual(spring?.years, 1834...1834)
        let winter = date("during the winter at the pond")
        XCTAssertEqual(winter?.from, 1201); XCTAssertEqual(winter?.to, 229)   // wraps the year's end
        XCTAssertEqual(date("late autumn")?.from, 1101)
        let eve = date("What does he do on Christmas Eve?")
        XCTAssertEqual(eve?.from, 1224); XCTAssertEqual(eve?.precise, true)
        XCTAssertEqual(date("the May Day festivities")?.from, 501)
        XCTAssertEqual(date("St. George's Eve at the inn")?.from, 422)
        // A feast's name with "Day", "night" or "Eve" after it, then its year: one date.
        for (text, from, year) in [("On Easter Day 1662, where did he go to church?", 322, 1662),
                                   ("On Guy Fawkes night 1660, what did he see?", 1105, 1660),
                                   ("On All Hallows' Eve 1663, who came?", 1031, 1663)] {
            let refs = QueryReferences.parse(text)
            XCTAssertEqual(refs.dates.count, 1, text)
            XCTAssertEqual(refs.dates.first?.from, from, text); XCTAssertEqual(refs.dates.first?.years, year...year, text)
        }
        XCTAssertEqual(date("in midwinter 1665")?.from, 1215)
        XCTAssertEqual(date("in the dog days of 1665")?.to, 811)
    }

    func testWordsThatOnlyLookLikeDates() {
        XCTAssertNil(date("where he may go to sea"))
        XCTAssertNil(date("the march to Moscow"))
        XCTAssertNil(date("when the leaves fall from the trees"))
        XCTAssertNil(date("on page 1835"))
        XCTAssertNil(date("the second act of kindness"))
        XCTAssertEqual(date("in May")?.from, 501)
        XCTAssertEqual(date("last fall")?.from, 901)
    }

    func testDayWithoutMonth() {
        let d = QueryReferences.parse("what happened on the 17th in the asylum").dates
        XCTAssertEqual(d.first?.day, 17)
        XCTAssertNil(d.first?.from)
    }

    /// A span of months said as a range: the year given once counts for both
    /// months, and a range across a year's end reaches into the year before.
    func testMonthRanges() {
        func only(_ text: String) -> DateReference? {
            let dates = QueryReferences.parse(text).dates
            return dates.count == 1 ? dates[0] : nil
        }
        for text in ["between May and July 1665, the plague", "from May to July 1665", "May\u{2013}July 1665", "May-July 1665"] {
            let d = only(text)
            XCTAssertEqual(d?.years, 1665...1665, text); XCTAssertEqual(d?.from, 501, text); XCTAssertEqual(d?.to, 731, text)
        }
        let winter = only("from November to February 1666")
        XCTAssertEqual(winter?.years, 1665...1666); XCTAssertEqual(winter?.from, 1101); XCTAssertEqual(winter?.to, 229)
        let early = only("from early June to late August")
        XCTAssertEqual(early?.from, 601); XCTAssertEqual(early?.to, 831); XCTAssertNil(early?.years)
        let spanned = only("from June 1665 to August 1666")
        XCTAssertEqual(spanned?.years, 1665...1666)
        // Not ranges: a month alone, a day to a day, and "may" the verb.
        XCTAssertEqual(only("from March on, he wrote daily")?.to, 331)
        XCTAssertEqual(QueryReferences.parse("from 3 May to 5 May").dates.count, 2)
        XCTAssertTrue(QueryReferences.parse("he may and she might").dates.isEmpty)
    }

    func testIsoDays() {
        let d = QueryReferences.parse("what happened on 1665-06-07?").dates
        XCTAssertEqual(d.count, 1); XCTAssertEqual(d.first?.years, 1665...1665); XCTAssertEqual(d.first?.from, 607); XCTAssertEqual(d.first?.precise, true)
        XCTAssertTrue(QueryReferences.parse("call 1665-13-07 or 555-12-34").dates.isEmpty, "no month 13, no year of three digits")
    }

    func testNumberedParts() {
        XCTAssertEqual(QueryReferences.parse("in chapter 12").parts, [[PartStep(kind: "chapter", number: 12)]])
        XCTAssertEqual(QueryReferences.parse("Act III, Scene ii, the play").parts,
                       [[PartStep(kind: "act", number: 3), PartStep(kind: "scene", number: 2)]])
        XCTAssertEqual(QueryReferences.parse("in Book Two of the novel").parts, [[PartStep(kind: "book", number: 2)]])
        XCTAssertEqual(QueryReferences.parse("the third chapter").parts, [[PartStep(kind: "chapter", number: 3)]])
        XCTAssertEqual(QueryReferences.parse("in the last act").parts, [[PartStep(kind: "act", number: -1)]])
        XCTAssertEqual(QueryReferences.parse("chapter twenty-one").parts, [[PartStep(kind: "chapter", number: 21)]])
        XCTAssertEqual(QueryReferences.parse("chapters 3 and chapter 4").parts.count, 2)
        // A possessive is the part itself.
        XCTAssertEqual(QueryReferences.parse("In Book XI's short history of the theatre").parts, [[PartStep(kind: "book", number: 11)]])
        XCTAssertEqual(QueryReferences.parse("at chapter 12\u{2019}s close").parts, [[PartStep(kind: "chapter", number: 12)]])
        XCTAssertEqual(QueryReferences.parse("Act I's ghost, in Act III's scene 2").parts,
                       [[PartStep(kind: "act", number: 1)], [PartStep(kind: "act", number: 3), PartStep(kind: "scene", number: 2)]])
        // A play's act and scene, dotted: "3.3", "III.ii", with a line number or a full stop after.
        let scene = [[PartStep(kind: "act", number: 3), PartStep(kind: "scene", number: 3)]]
        XCTAssertEqual(QueryReferences.parse("In 3.3, right after the play").parts, scene)
        XCTAssertEqual(QueryReferences.parse("Claudius prays (III.iii)").parts, scene)
        XCTAssertEqual(QueryReferences.parse("the prayer at 3.3.36.").parts, scene)
        XCTAssertEqual(QueryReferences.parse("he ran 2.5 miles").parts, [[PartStep(kind: "act", number: 2), PartStep(kind: "scene", number: 5)]])
        XCTAssertEqual(QueryReferences.parse("it cost 3.50, i.e. too much, in 1.25.3.4").parts, [])
        // Not parts: a book with no number, a letter and the pronoun.
        XCTAssertEqual(QueryReferences.parse("the book he wrote").parts, [])
        XCTAssertEqual(QueryReferences.parse("the letter I wrote to Lucy").parts, [])
    }

    func testChineseDates() {
        XCTAssertEqual(date("五月四日那天他去了哪里？")?.from, 504)
        XCTAssertEqual(date("五月四日那天他去了哪里？")?.precise, true)
        let spring = date("1834年春天，达尔文在哪里？")
        XCTAssertEqual(spring?.years, 1834...1834); XCTAssertEqual(spring?.from, 301); XCTAssertEqual(spring?.to, 531)
        XCTAssertEqual(date("圣诞节那天")?.from, 1224)
        XCTAssertNil(date("第二天他去了哪里？"))
    }

    func testChineseCountedParts() {
        XCTAssertEqual(QueryReferences.parse("第十二章里他为什么出海？").parts, [[PartStep(kind: "chapter", number: 12)]])
        XCTAssertEqual(QueryReferences.parse("第3章").parts, [[PartStep(kind: "chapter", number: 3)]])
        XCTAssertEqual(QueryReferences.parse("在第三幕第二场，国王说了什么？").parts,
                       [[PartStep(kind: "act", number: 3), PartStep(kind: "scene", number: 2)]])
        XCTAssertEqual(QueryReferences.parse("第二场，第三幕").parts,
                       [[PartStep(kind: "act", number: 3), PartStep(kind: "scene", number: 2)]], "outermost first")
        XCTAssertEqual(QueryReferences.parse("最后一章里谁死了？").parts, [[PartStep(kind: "chapter", number: -1)]])
        XCTAssertEqual(QueryReferences.parse("第三章和第五章").parts.count, 2)
        XCTAssertEqual(QueryReferences.parse("第二天他去了哪里？").parts, [], "a day, not a part")
    }

    func testNumberedPoems() {
        // A collection's numbered poems are its chapters, as their titles are (StructureTitles).
        let eighteen = [[PartStep(kind: "chapter", number: 18)]]
        XCTAssertEqual(QueryReferences.parse("In Sonnet 18, what is the summer's day compared with?").parts, eighteen)
        XCTAssertEqual(QueryReferences.parse("sonnet XVIII").parts, eighteen)
        XCTAssertEqual(QueryReferences.parse("the eighteenth sonnet").parts, eighteen)
        XCTAssertEqual(QueryReferences.parse("the eighteenth sonnet\u{2019}s couplet").parts, eighteen, "a possessive")
        XCTAssertEqual(QueryReferences.parse("the third chapter's ending").parts, [[PartStep(kind: "chapter", number: 3)]])
        XCTAssertEqual(QueryReferences.parse("in Psalm 23, the valley").parts, [[PartStep(kind: "chapter", number: 23)]])
        XCTAssertEqual(QueryReferences.parse("Sonnet I opens the sequence").parts, [[PartStep(kind: "chapter", number: 1)]])
        XCTAssertEqual(QueryReferences.parse("the last poem of the collection").parts, [[PartStep(kind: "chapter", number: -1)]])
        // Not parts: a poem without a number, and the pronoun after it.
        XCTAssertEqual(QueryReferences.parse("the poem about the grass").parts, [])
        XCTAssertEqual(QueryReferences.parse("the poem I learned at school").parts, [])
        XCTAssertEqual(QueryReferences.parse("the song i sang").parts, [])
    }

    func testPositions() {
        XCTAssertEqual(QueryReferences.parse("near the end of the book").position, 0.85...1)
        XCTAssertEqual(QueryReferences.parse("at the very end").position, 0.95...1)
        XCTAssertEqual(QueryReferences.parse("early on, at the farm").position, 0...0.15)
        XCTAssertEqual(QueryReferences.parse("at the start").position, 0...0.15)
        XCTAssertEqual(QueryReferences.parse("halfway through").position, 0.35...0.65)
        // The end of a month is a date; "in the end" is an idiom.
        XCTAssertNil(QueryReferences.parse("at the end of May").position)
        XCTAssertEqual(QueryReferences.parse("at the end of May").dates.first?.from, 521)
        XCTAssertNil(QueryReferences.parse("in the end he forgives her").position)
        let withinPart = QueryReferences.parse("at the end of chapter 3")
        XCTAssertEqual(withinPart.position, 0.85...1)
        XCTAssertEqual(withinPart.parts, [[PartStep(kind: "chapter", number: 3)]])
        // "Book" is a part and a word for the whole work: with its number, the part.
        let withinBook = QueryReferences.parse("Near the end of Book III, where does he admit it?")
        XCTAssertEqual(withinBook.position, 0.85...1)
        XCTAssertEqual(withinBook.parts, [[PartStep(kind: "book", number: 3)]])
        XCTAssertEqual(QueryReferences.parse("near the end of the book").parts, [])
        // Both readers of "of" (a place in the book, a stretch counted from an end) read it the same way.
        XCTAssertEqual(QueryReferences.parse("near the end of his journal").position, 0.85...1)
        let lastPagesOfAct = QueryReferences.parse("in the last pages of the second act")
        XCTAssertEqual(lastPagesOfAct.position, 0.95...1)
        XCTAssertEqual(lastPagesOfAct.parts, [[PartStep(kind: "act", number: 2)]])
        // A part counted with an ordinal, and "early in" or "late in" a part.
        let secondAct = QueryReferences.parse("At the beginning of the second act, who enters?")
        XCTAssertEqual(secondAct.position, 0...0.15)
        XCTAssertEqual(secondAct.parts, [[PartStep(kind: "act", number: 2)]])
        let early = QueryReferences.parse("Early in Book IX, where does Marcus observe it?")
        XCTAssertEqual(early.position, 0...0.2)
        XCTAssertEqual(early.parts, [[PartStep(kind: "book", number: 9)]])
        XCTAssertEqual(QueryReferences.parse("Late in Book X, what does he say?").position, 0.8...1)
        // The first or last few chapters: the book's start or end; one chapter is a part.
        XCTAssertEqual(QueryReferences.parse("In the first few chapters, who arrives?").position, 0...0.15)
        XCTAssertEqual(QueryReferences.parse("in the early chapters").position, 0...0.15)
        XCTAssertEqual(QueryReferences.parse("In the final chapters of the novel").position, 0.85...1)
        let one = QueryReferences.parse("In the last chapter, who dies?")
        XCTAssertNil(one.position)
        XCTAssertEqual(one.parts, [[PartStep(kind: "chapter", number: -1)]])
    }

    /// The first or last entries, pages, weeks of a diary or book: its first or
    /// last twentieth, or of the part named; not a month's last days, not a part.
    func testFirstAndLastStretches() {
        XCTAssertEqual(QueryReferences.parse("In the last entry of the diary, what does he fear?").position, 0.95...1)
        XCTAssertEqual(QueryReferences.parse("in the final entries of his journal").position, 0.95...1)
        XCTAssertEqual(QueryReferences.parse("On the last page, what does he write?").position, 0.95...1)
        XCTAssertEqual(QueryReferences.parse("In the first entry, where was he living?").position, 0...0.05)
        let inPart = QueryReferences.parse("In the last pages of Book III, where does he admit it?")
        XCTAssertEqual(inPart.position, 0.95...1)
        XCTAssertEqual(inPart.parts, [[PartStep(kind: "book", number: 3)]])
        let days = QueryReferences.parse("In the last days of May 1665")
        XCTAssertNil(days.position)
        XCTAssertEqual(days.dates.first?.years, 1665...1665)
        XCTAssertNil(QueryReferences.parse("In the last chapter, who dies?").position)
        XCTAssertEqual(QueryReferences.parse("In the last weeks of the diary, what does he fear?").position, 0.95...1)
        XCTAssertNil(QueryReferences.parse("in the last days before the battle").position, "a time in the story")
        XCTAssertNil(QueryReferences.parse("in the first entry of his ledger").position, "not the work")
    }

    func testQuotedPhrases() {
        XCTAssertEqual(QueryReferences.parse("\"To be, or not to be: that is the question\"").phrases,
                       ["To be, or not to be: that is the question"])
        XCTAssertEqual(QueryReferences.parse("where he says \u{201C}lives of quiet desperation\u{201D}").phrases,
                       ["lives of quiet desperation"])
        XCTAssertEqual(QueryReferences.parse("the word \"whale\" alone").phrases, [])
        XCTAssertTrue(QueryReferences.parse("why does he go to sea").isEmpty)
    }

    /// How readers of a diary name its time: a part of a year, a decade, a
    /// double year after a season, a joined qualifier, a week or half of a month.
    func testPartsOfYearsAndMonths() {
        let early = date("Early in 1663 he buys a new periwig")
        XCTAssertEqual(early?.years, 1663...1663); XCTAssertEqual(early?.from, 101); XCTAssertEqual(early?.to, 430)
        XCTAssertEqual(date("late 1664, before the war")?.from, 901)
        XCTAssertEqual(date("at the end of 1665")?.to, 1231)
        XCTAssertEqual(date("in the middle of 1666")?.from, 501)
        XCTAssertNil(date("what he did in 1660")?.from, "a year alone is the whole year")
        XCTAssertEqual(date("in the 1660s")?.years, 1660...1669)
        XCTAssertEqual(date("in the 1830's")?.years, 1830...1839)
        XCTAssertNil(date("the 1665s"), "not a decade")
        let winter = date("In the winter of 1662-3, at the office")
        XCTAssertEqual(winter?.years, 1662...1663); XCTAssertEqual(winter?.from, 1201)
        XCTAssertEqual(date("in 1665-6")?.years, 1665...1666)
        XCTAssertNil(date("in 1665-9"), "not a double year")
        XCTAssertEqual(date("in January 1669-0")?.years, 1669...1670, "across a decade")
        XCTAssertEqual(date("in March 1699-00")?.years, 1699...1700, "across a century")
        let mid = date("mid-June 1667, the Dutch in the Medway")
        XCTAssertEqual(mid?.years, 1667...1667); XCTAssertEqual(mid?.from, 611); XCTAssertEqual(mid?.to, 620)
        XCTAssertEqual(date("on May-day 1667")?.from, 501)
        XCTAssertEqual(date("in the first week of September 1666")?.to, 907)
        XCTAssertEqual(date("the last week of February")?.from, 223)
        XCTAssertEqual(date("in the second half of May")?.from, 516)
        XCTAssertNil(QueryReferences.parse("in the second half of May").position)
        // A day, week or half of a year, and "the year" before its number: a diary's year-end reckoning.
        let reckoning = date("On the last day of the year 1663, what is he worth?")
        XCTAssertEqual(reckoning?.years, 1663...1663); XCTAssertEqual(reckoning?.from, 1231); XCTAssertEqual(reckoning?.precise, true)
        XCTAssertEqual(date("on the first day of 1661")?.to, 101)
        XCTAssertEqual(date("in the first week of 1663")?.to, 107)
        XCTAssertEqual(date("in the last month of 1664")?.from, 1201)
        XCTAssertEqual(date("in the first half of 1665")?.to, 630)
        XCTAssertEqual(date("By the end of the year 1661, what had he saved?")?.from, 901)
        XCTAssertEqual(date("at the start of the year 1667")?.to, 430)
        XCTAssertNil(date("in the year 1662")?.from, "the whole year")
    }

    func testMovableFeastsAndSaintsDays() {
        XCTAssertEqual(date("on Whitsunday 1662")?.from, 510)
        XCTAssertEqual(date("on Whitsunday 1662")?.years, 1662...1662)
        XCTAssertEqual(date("on Shrove Tuesday")?.to, 309)
        XCTAssertEqual(date("on Saint Swithin's day")?.from, 715)
        XCTAssertEqual(date("on St. Bartholomew's day")?.from, 824)
        XCTAssertNil(date("what he lent me in the advent of the war"))
    }

    func testOldPartNamesAndTheOneBeforeTheLast() {
        XCTAssertEqual(QueryReferences.parse("in Book the Second, chapter 3").parts,
                       [[PartStep(kind: "book", number: 2), PartStep(kind: "chapter", number: 3)]])
        XCTAssertEqual(QueryReferences.parse("in Chapter the Fifth").parts, [[PartStep(kind: "chapter", number: 5)]])
        XCTAssertEqual(QueryReferences.parse("the book the second time he read it").parts, [], "a part's ordinal has a capital")
        XCTAssertEqual(QueryReferences.parse("in the penultimate chapter").parts, [[PartStep(kind: "chapter", number: -2)]])
        XCTAssertEqual(QueryReferences.parse("the second-to-last act").parts, [[PartStep(kind: "act", number: -2)]])
        XCTAssertEqual(QueryReferences.parse("in scene 2 of Act III").parts,
                       [[PartStep(kind: "act", number: 3), PartStep(kind: "scene", number: 2)]], "outermost first")
    }

    func testSharesOfTheBook() {
        XCTAssertEqual(QueryReferences.parse("in the second half of the book").position, 0.5...1)
        XCTAssertEqual(QueryReferences.parse("during the first half").position, 0...0.5)
        XCTAssertEqual(QueryReferences.parse("in the last third of the novel").position?.lowerBound ?? 0, 2.0 / 3, accuracy: 1e-9)
        XCTAssertEqual(QueryReferences.parse("in the final quarter").position, 0.75...1)
        let way = QueryReferences.parse("about two thirds of the way through").position
        XCTAssertEqual(way?.lowerBound ?? 0, 2.0 / 3 - 0.1, accuracy: 1e-9)
        XCTAssertEqual(QueryReferences.parse("three-quarters of the way into the book").position?.upperBound ?? 0, 0.85, accuracy: 1e-9)
        XCTAssertNil(QueryReferences.parse("a third of the way up the hill").position)
        XCTAssertNil(QueryReferences.parse("the first half of the war").position)
    }
}
