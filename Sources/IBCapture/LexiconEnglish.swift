// The English grammar's words, as data. The grammar (GrammarEnglish.swift)
// reads these tables and holds no word lists of its own. Lists are tried in
// order where the first match wins, so order matters; typo forms a reader
// really types are listed, and Fuzzy.isKeyword allows one more typo where noted.
// Phrases that end in a space are matched as prefixes of a lower-cased line.

enum EnglishLexicon {
    // MARK: keywords that open a line (Fuzzy.isKeyword: one typo in 4+ letters)

    static let quoteKeywords = ["quote", "quotes", "q", "highlight", "hl", "excerpt", "quoting", "citation", "passage", "cite", "quotation", "line"]
    static let noteKeywords = ["note", "notes", "thought", "thoughts", "idea", "ideas", "reflection", "comment", "memo", "insight", "n",
                               "observation", "remark", "takeaway", "summary", "annotation"]
    static let questionKeywords = ["question", "questions", "ask", "wondering", "query", "q?", "wonder"]
    static let planKeywords = ["plan", "goal", "target", "challenge", "planning", "schedule"]
    /// Words before a keyword that leave it a keyword: "my note: ...", "quick thought ...".
    static let keywordFillers = ["my ", "a ", "quick ", "new ", "another ", "random ", "side "]
    /// What may follow a keyword: "Quote:", "Note (p. 4)", "Quote - ...".
    static let keywordEnds: Set<Character> = [":", " ", "(", "-", ",", "：", "["]
    /// Marks that may end a keyword: "q?", "what's".
    static let keywordMarks: Set<Character> = ["?", "'", "’"]
    /// "Q: ...?" is a question; "Q: ..." a quote.
    static let shortQuestionKeyword = "q"
    /// Keywords only before a colon: "Line: ..." is a quote, "Summary: ..." a note; "summary of X" is no capture.
    static let keywordsNeedingColon: Set<String> = ["line", "summary"]
    /// Question keywords that need no colon: "Question about X ...", "Q? ...".
    static let questionStem = "question"
    static let questionMarkKeyword = "q?"
    /// Marks around a question after "Q:", ignored when looking for its "?".
    static let questionWrapping: Set<Character> = ["\"", "”", "'", "’", "」", " "]

    // MARK: plans

    /// Lines that may be a plan without the word "plan": "finish X by Friday".
    static let planOpenings = ["i plan to ", "plan to ", "i want to finish", "i'd like to finish", "i need to finish", "aim to ", "i aim to ",
                               "finish ", "finishing ", "complete ", "i will finish ", "i'll finish ", "read "]
    /// Dropped from the start of a plan.
    static let planLeads = ["i plan to ", "plan to ", "to ", "i want to ", "i'd like to ", "i need to ", "aim to ", "i aim to ", "i will ", "i'll "]
    /// "30 pages a day": the unit, then a word for "each", or "daily" after the unit.
    static let dailyGoalUnits = ["pages", "pp", "page"]
    static let dailyGoalEach = ["a", "per", "each", "every", "daily"]
    static let pagesWord = "pages"
    /// Before a due date; the longest tail after one of them that parses is the date.
    static let dueMarkers = [" by ", " before ", " until ", " till ", " in ", " within ", " on ", " due ", " for "]
    /// Due markers that are part of the date: "in two weeks", "within a month".
    static let dueMarkersKept: Set<String> = [" in ", " within "]
    /// Dates a plan may name with no marker before them: "finish X end of month".
    static let bareDueDates = ["end of", "this weekend", "tomorrow", "next week"]
    /// Verbs before the books of a plan.
    static let planVerbs = ["finish reading ", "finish ", "read ", "complete ", "finishing ", "reading ", "get through ", "be done with ", "done with "]
    /// The same verbs, one word, with a typo allowed: "finsih X by Friday".
    static let planVerbKeywords = ["finish", "complete", "reading"]
    /// Verbs before the books of a daily goal: "read Sapiens 30 pages a day".
    static let dailyGoalVerbs = ["read ", "finish "]
    /// Verbs before a book in a list of books: "finish A and read B".
    static let bookListVerbs = ["finish ", "read ", "complete ", "finishing ", "reading "]

    // MARK: books (reading, want, added)

    static let readingPhrases = ["reading", "i'm reading", "im reading", "i am reading", "currently reading", "now reading", "started reading",
                                 "start reading", "starting", "started", "start", "began reading", "began", "begin reading", "begin", "beginning",
                                 "just started", "picked up", "starting to read", "started to read", "i started", "i'm starting", "re-reading",
                                 "rereading", "reading:", "currently:"]
    static let wantPhrases = ["want to read", "i want to read", "wanna read", "to read", "to-read", "tbr", "wishlist", "want", "would like to read",
                              "i'd like to read", "add to wishlist", "someday read", "i should read", "should read", "must read", "next up", "up next"]
    static let addPhrases = ["add", "added", "new book", "bought", "library add", "add book", "book", "new", "buy", "purchased", "borrowed"]
    /// Book phrases that count only before a colon ("Book: Dune"), not before a space ("book club").
    static let colonOnlyPhrases: Set<String> = ["book", "new"]
    /// "I am reading X": "am " is dropped before "reading ".
    static let auxiliaryBeforeReading = "am "
    /// Subjects dropped before a book phrase, when one of `bookVerbStarts` follows: "I just started X".
    static let bookSubjects = ["i just ", "just ", "i have ", "i've ", "today i ", "i ", "finally "]
    static let bookVerbStarts = ["start", "began", "begin", "want", "added", "bought", "picked", "am reading", "would like"]
    /// One typo in the first word: "readng Sapiens", "strated Dune".
    static let readingTypoKeywords = ["reading", "started", "starting"]
    static let addedTypoKeywords = ["added"]
    static let wantTypoKeywords = ["want"]
    /// Typed for "to" in "want to read": "wnat ot read X".
    static let toTypos: Set<String> = ["ot", "tp", "yo"]
    static let toForms = toTypos.union(["to"])
    static let readKeywords = ["read"]
    /// Typed for "read" where Fuzzy.isKeyword would not see it (too short).
    static let readTypos: Set<String> = ["red", "rad", "reda"]
    /// The one typo of "read" accepted after a typo of "to": "want ot red X".
    static let readTypoAfterTo = "red"
    /// After a number, these make "started 20 pages" progress, not a book.
    static let progressAfterNumber: Set<String> = ["pages", "pp", "page", "more", "%"]
    /// Dropped before a title: "Reading: the book Dune".
    static let titleLeads = ["reading ", "to read ", "the book ", "book ", "on ", "now: ", "now ", "currently: "]
    /// Dropped after a title: "Started Dune today".
    static let titleTimeSuffixes = [" today", " again", " now", " tonight", " this morning", " yesterday", " at last", " finally", " someday",
                                    " soon", " later", " one day", " next", " sometime", " this year", " this week", " this weekend", " next"]

    // MARK: progress

    /// Labels dropped from the start of a progress line ("Progress: p. 40"); the first that matches.
    static let progressLabels = ["progress: ", "progress ", "update: ", "today: ", "today - ", "reading: ", "status: ", "log: "]
    /// Subjects dropped from the start, each in turn: "today I just read ...".
    static let progressSubjects = ["today i ", "today, i ", "i just ", "just ", "i finally ", "finally ", "i ", "i've ", "ive ", "have ", "today ",
                                   "yesterday i ", "yay ", "yay, ", "woohoo "]
    /// Times dropped from the end, each in turn: "... 20 pages today".
    static let progressTimeSuffixes = [" today", " tonight", " this morning", " this evening", " so far", " yesterday", " just now", " last night", "!"]
    /// "finished X" (a typo allowed), or "done [with] X".
    static let finishedKeywords = ["finished", "completed", "finish"]
    static let finishedLastKeywords = ["finished"]
    static let done = "done"
    static let doneWith = "with"
    /// "finished reading X": dropped before the book.
    static let finishedReading = "reading"
    /// Dropped before a percentage: "at 45%".
    static let percentLead = "at"
    /// "another 20 pages", "another twenty pages".
    static let another = "another"
    /// "finished 20 pages" and "read the 20 pages" are no pages read.
    static let finishedVerb = "finished"
    static let readVerb = "read"
    static let the = "the"
    /// "halfway through X": 50 %. Longest first.
    static let halfwayPhrases = ["i'm halfway through", "im halfway through", "i am halfway through", "halfway through", "half way through",
                                 "halfway into", "halfway done with", "halfway"]
    /// Dropped after a percentage: "45% through X".
    static let percentLinks = [" through", " done", " of", " into", " in"]
    /// "20 more pages".
    static let moreWords: Set<String> = ["more", "additional", "extra", "other"]
    static let pageUnits: Set<String> = ["pages", "pp", "pgs", "page", "p"]
    static let pageUnitKeywords = ["pages"]
    /// Words before "N pages" that say nothing: "I just read 20 pages today".
    static let pagesReadFillers: Set<String> = ["i", "just", "today", "have", "+"]
    /// One of these before "N pages" makes it pages read.
    static let pagesReadVerbs: Set<String> = ["read", "did", "red", "raed", "reed", "finished", "got", "went", "covered", "another", "flipped", "through"]
    /// Not part of a book name before "read N pages": "Meditations: I read 20 pages".
    static let pagesReadLeadWords: Set<String> = ["read", "i", "just", "today", "did", "have", "red", "another"]
    /// Between "N pages" and the book: "20 pages of Dune".
    static let pagesReadLinks: Set<String> = ["of", "in", "from", "into"]
    /// Before a page reached: "I'm on page 120", "stopped at p. 88".
    static let positionLeads = ["i'm on", "im on", "i am on", "now on", "now at", "on", "at", "reached", "got to", "up to", "made it to", "to", "read to",
                                "read up to", "stopped at", "stopped on", "left off at", "left off on", "bookmark", "bookmark at", "bookmarked",
                                "currently on", "currently at", "now", "reading", "read", "turned to", "in", "i'm at", "im at", "i am at", "progress",
                                "progress:", "finished", "position", "continuing from", "resumed at"]
    /// Longest first, so "left off at" wins over "at".
    static let positionLeadsLongestFirst = positionLeads.sorted { $0.count > $1.count }
    /// A "book" before a page that starts so is a sentence, not a title.
    static let positionNotBookStarts = ["read", "quote", "note"]
    /// Before the total after a page reached: "page 120 of 300", "p. 88/254".
    static let pageTotalLinks = ["out of ", "of ", "in ", "/"]
    /// After "page N of 300": "in Dune", "pages of Dune".
    static let pageCountLinks = ["in ", "of ", "pages in ", "pages of "]

    // MARK: pages, chapters and book names

    /// Page words before a number: "p. 47", "pp 47-48", "pg 3", "@ 120" (typos listed; others of 4+ letters by Fuzzy).
    static let pageWords: Set<String> = ["p", "pp", "pg", "pgs", "page", "pages", "pag", "pge", "pgae", "paeg", "@"]
    static let pageKeywords = ["page", "pages"]
    /// Chapter words, tried in order: "chapter 3", "ch. 3", "part II", "section 2".
    static let chapterWords = ["chapter", "chap.", "chap", "ch.", "ch", "chpater", "chaper", "part", "section", "sec."]
    static let romanDigits: Set<Character> = ["i", "v", "x", "l", "c", "I", "V", "X", "L", "C"]
    /// Dropped from the start of a book name, repeatedly: "from the book Dune".
    static let bookPrepositions = ["from", "in", "on", "of", "for", "about", "re", "regarding", "to", "at", "with", "into", "the book", "book", "reading"]
    /// Dropped from its end: "Dune on".
    static let bookTrailingPrepositions = [" on", " of", " in", " from", " at", " for"]
    /// Words that are no book.
    static let notBookNames: Set<String> = ["it", "this", "that", "this book", "the book", "book", "today", "now", "here", "page", "again",
                                            "this one", "current", "current book", "a", "an", "the", "me", "my book", "so far", "yesterday",
                                            "tonight", "this morning", "this evening", "just now", "more", "total", "in total",
                                            "self", "myself", "future me", "later", "you"]
    static let notBookPrefixes = ["page ", "p. ", "pages "]
    /// "Sapiens by Yuval Noah Harari": the last one splits title and author.
    static let authorMarker = " by "

    // MARK: dates (DateGrammarEnglish.swift)

    static let monthNames: [(String, Int)] = [
        ("january", 1), ("february", 2), ("march", 3), ("april", 4), ("may", 5), ("june", 6), ("july", 7),
        ("august", 8), ("september", 9), ("october", 10), ("november", 11), ("december", 12),
        ("jan", 1), ("feb", 2), ("mar", 3), ("apr", 4), ("jun", 6), ("jul", 7), ("aug", 8), ("sep", 9),
        ("sept", 9), ("oct", 10), ("nov", 11), ("dec", 12),
    ]
    /// Monday is 1. Full names of 5+ letters may have two typos ("firday").
    static let weekdayNames: [(String, Int)] = [
        ("monday", 1), ("tuesday", 2), ("wednesday", 3), ("thursday", 4), ("friday", 5), ("saturday", 6), ("sunday", 7),
        ("mon", 1), ("tue", 2), ("tues", 2), ("wed", 3), ("thu", 4), ("thur", 4), ("thurs", 4), ("fri", 5), ("sat", 6), ("sun", 7),
    ]
    /// Dates that are a phrase of their own (typos included).
    static let namedDays: [String: RelativeDay] = [
        "today": .days(0), "tonight": .days(0), "this evening": .days(0),
        "tomorrow": .days(1), "tmrw": .days(1), "tmr": .days(1), "tomorow": .days(1), "tommorow": .days(1), "tommorrow": .days(1),
        "day after tomorrow": .days(2), "next week": .days(7), "a fortnight": .days(14), "in a fortnight": .days(14),
        "next month": .months(1), "next year": .sameDayNextYear,
        "end of month": .endOfMonth(0), "end of the month": .endOfMonth(0), "month end": .endOfMonth(0), "end of this month": .endOfMonth(0),
        "eom": .endOfMonth(0), "the end of the month": .endOfMonth(0),
        "end of next month": .endOfMonth(1), "end of the next month": .endOfMonth(1),
        "end of year": .endOfYear(0), "end of the year": .endOfYear(0), "end of this year": .endOfYear(0), "year end": .endOfYear(0),
        "eoy": .endOfYear(0), "new year": .endOfYear(0), "new year's eve": .endOfYear(0),
        "end of week": .endOfWeek(0), "end of the week": .endOfWeek(0), "end of this week": .endOfWeek(0), "this weekend": .endOfWeek(0),
        "weekend": .endOfWeek(0), "the weekend": .endOfWeek(0),
        "end of next week": .endOfWeek(1), "next weekend": .endOfWeek(1),
    ]
    /// Dropped from the start of a date, each in turn: "on the 31st".
    static let dateLeads = ["the", "on", "the"]
    /// "in 3 weeks", "within a month"; "3 weeks from now", "2 days later".
    static let durationLeads: Set<String> = ["in", "within"]
    static let durationFromNow = ["from", "now"]
    static let durationTails: Set<String> = ["later", "time"]
    /// "a couple weeks", "2 more days".
    static let aCouple = ["a", "couple"]
    static let durationMore: Set<String> = ["more", "more,"]
    /// Counts of a duration: "a week", "three days".
    static let durationNumbers: [String: Int] = [
        "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "few": 3,
    ]
    /// Units of a duration, singular ("weeks" loses its s).
    static let durationUnits: [String: DateUnit] = [
        "day": .days(1), "week": .days(7), "wk": .days(7), "month": .months(1), "mo": .months(1),
        "year": .months(12), "yr": .months(12), "fortnight": .days(14),
    ]
    /// "end of March", "end of the March 2027".
    static let endOf = ["end", "of"]
    /// Before a weekday: "this Friday", "next Friday", "coming Friday".
    static let weekdayModifiers: Set<String> = ["this", "next", "coming", "this coming"]
    static let coming = "coming"
    /// "next Friday" is the Friday of next week; "this Friday" the coming one.
    static let nextWeekModifier = "next"
    /// "31st", "2nd": dropped from a day of the month.
    static let ordinalSuffixes = ["st", "nd", "rd", "th"]
    /// Skipped between a month and a day: "31st of January".
    static let of = "of"

    // MARK: numbers

    /// Number words for chapters and pages read: "chapter three", "read twenty pages".
    static let smallNumbers: [String: Int] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    ]
    /// Pages read may also be counted in these: "read a few pages".
    static let numberWords: [String: Int] = smallNumbers.merging([
        "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "a hundred": 100, "hundred": 100,
        "a few": 3, "a couple": 2, "couple": 2,
    ]) { a, _ in a }
}
