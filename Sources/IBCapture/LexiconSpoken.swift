// The words of a spoken capture line, as data: what a reader says aloud (and
// Whisper writes down) where a typed line would have a colon, quotation marks,
// digits or a '#'. SpokenLine.swift and SpokenNumbers.swift read these tables;
// numbers themselves come from IBCore's CalendarWords. Phrases are lists of
// lower-case words; where the first match wins, longer phrases come first.

enum SpokenLexicon {
    // MARK: fillers

    /// Dropped wherever they stand alone: "note um the letters ...".
    static let hesitations: Set<String> = ["um", "umm", "uh", "uhh", "uhm", "er", "erm", "hmm", "mm", "ah"]
    /// Dropped only from the start, each in turn: "okay so quote page ...".
    static let openingFillers: Set<String> = ["okay", "ok", "so", "alright", "all", "right", "well", "oh", "now", "and", "yes", "hey"]
    /// "all right" is one filler; "all" alone is not.
    static let fillerPairs: [[String]] = [["all", "right"]]

    // MARK: keywords that open a line

    static let keywords: [([String], Capture.Intent)] = [
        (["save", "this", "quote"], .quote), (["save", "that", "quote"], .quote), (["save", "the", "quote"], .quote),
        (["save", "a", "quote"], .quote), (["add", "a", "quote"], .quote), (["new", "quote"], .quote), (["save", "quote"], .quote),
        (["a", "quote"], .quote), (["quote"], .quote), (["quoting"], .quote), (["highlight"], .quote),
        // "um quote" as Whisper often writes it: at the start of a line it can only open a quote.
        (["unquote"], .quote),
        (["add", "a", "note"], .note), (["take", "a", "note"], .note), (["new", "note"], .note), (["a", "note"], .note),
        (["note"], .note), (["thought"], .note),
        (["i", "have", "a", "question"], .question), (["new", "question"], .question), (["a", "question"], .question),
        (["question"], .question),
    ]
    /// A first word one typo away from these is the keyword ("Quot from ..."): Whisper's slips.
    static let fuzzyKeywords: [(String, Capture.Intent)] = [("quote", .quote), ("question", .question)]
    /// Words one typo from a keyword that are words of their own.
    static let notKeywords: Set<String> = ["quite", "quota", "quiet", "quoth"]
    /// What ends the words of a quote, note or question: "... end quote".
    static let endMarkers: [[String]] = [
        ["end", "of", "the", "quote"], ["end", "of", "quote"], ["end", "quote"], ["close", "quote"], ["unquote"],
        ["end", "of", "note"], ["end", "note"], ["end", "of", "question"], ["end", "question"],
    ]
    /// How Whisper often writes "end quote": an end only where nothing but header or tags follows.
    static let weakEndMarkers: [[String]] = [["and", "quote"], ["in", "quote"], ["end", "quotes"], ["and", "quotes"]]
    /// Words of a quote, note or question spoken without a book: a title or author of the
    /// library among the first of them means the header was misheard ("a quote beige to empty
    /// to have crime and punishment ..."): refused, never stored on the current book.
    static let wordsSearchedForNames = 8
    /// "hashtag stoicism": the tag "stoicism".
    static let tagWords: Set<String> = ["hashtag", "hash"]

    // MARK: what may follow the keyword

    /// Before a page: "page 47", "on page 47", "from page 47".
    static let pageLeads: Set<String> = ["on", "from", "at", "in"]
    static let pageWords: Set<String> = ["page", "p", "pg"]
    static let pageRangeWords: Set<String> = ["pages", "pp"]
    /// "pages 40 to 41".
    static let rangeLinks: Set<String> = ["to", "through", "till", "until", "and"]
    static let chapterWords: Set<String> = ["chapter"]
    static let chapterLeads: Set<String> = ["in", "from", "on"]
    /// Before a book's name: "note for Moby Dick", "quote from Persuasion".
    static let bookLeads: Set<String> = ["for", "from", "of", "in", "on"]
    /// How Whisper writes "for" when it hears a number ("OK Note 4 Crime and Punishment"): a lead
    /// only where a name of the library follows exactly.
    static let forSoundAlikes: Set<String> = ["4", "four"]
    /// How Whisper writes "note" at the start of a line ("Not for Moby Dick. Chapter 40."): the
    /// keyword only where a page, chapter or book follows it.
    static let noteSoundAlikes: Set<String> = ["not", "no", "knot"]
    /// After one of these a name must follow: no book heard there is an unknown book, never text.
    static let bookLeadsThatName: Set<String> = ["for", "from"]
    /// After a page, these name the book too: "page 22 of Crime and Punishment".
    static let bookLeadsAfterPage: Set<String> = ["of"]
    /// "the seventy third page", "the third chapter".
    static let the = "the"

    // MARK: time (progress in an audiobook)

    static let hourUnits: Set<String> = ["hour", "hours", "hr", "hrs", "h"]
    static let minuteUnits: Set<String> = ["minute", "minutes", "min", "mins", "m"]
    static let secondUnits: Set<String> = ["second", "seconds", "sec", "secs", "s"]
    /// "an hour", "a minute".
    static let one: Set<String> = ["a", "an"]
    /// "an hour and a half", "half an hour".
    static let half = "half"
    static let joins: Set<String> = ["and"]

    // MARK: numbers beyond CalendarWords

    /// Scale words above a hundred.
    static let thousand = "thousand"
    static let hundred = "hundred"
    static let hundredth = "hundredth"
    /// Words after which a number is a page, chapter or count, so it is written in digits.
    static let countedAfter: Set<String> = ["page", "pages", "p", "pp", "pg", "chapter", "part", "book", "section", "volume"]
    /// Words before which a number is a count: "twenty five pages", "forty percent".
    static let countedBefore: Set<String> = ["pages", "page", "more", "percent", "per"]
}

/// The written forms of progress by time (GrammarTime.swift): "listened to 2:15:00
/// of Persuasion", "at 1:02:30 in Persuasion", "stopped at 45:10".
enum TimeLexicon {
    /// Before a position in time; longest first. Subjects ("I", "I'm") are dropped first.
    static let leads: [[String]] = [
        ["listened", "up", "to"], ["listened", "to"], ["listened", "until"], ["listened", "till"], ["stopped", "listening", "at"],
        ["listen", "to"], ["left", "off", "at"], ["stopped", "at"], ["stop", "at"], ["paused", "at"], ["got", "to"], ["up", "to"], ["now", "at"], ["am", "at"],
        ["at"],
    ]
    static let subjects: [[String]] = [["i'm"], ["im"], ["i", "am"], ["i've"], ["i", "have"], ["i"], ["just"], ["now"]]
    /// Between the time and the book: "of Persuasion", "in Persuasion", "into Persuasion".
    static let bookLinks: Set<String> = ["of", "in", "into", "through"]
}
