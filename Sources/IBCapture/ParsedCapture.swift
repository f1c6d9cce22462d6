// What the capture grammar makes of one line: the intent and its fields,
// with the book as the reader wrote it (TitleMatcher resolves it later).

import IBCore

public struct Capture: Sendable, Equatable {
    public enum Intent: String, Sendable { case book, quote, note, question, progress, plan, unknown }

    public var intent: Intent
    /// book: reading | want | added.
    public var status: String? = nil
    /// The book named in the line, as written (nil: the current book).
    public var book: String? = nil
    /// plan: the books named, as written.
    public var books: [String] = []
    public var author: String? = nil
    /// quote, note, question: the text.
    public var text: String? = nil
    /// quote/note/question: the page; progress: the page reached.
    public var page: Int? = nil
    /// A page reference whose number is no page (below 1, or too large to be
    /// one), as written: "-3", "0". The capture is refused, never stored without it.
    public var badPage: String? = nil
    /// Why `badPage` is no page (a message key); nil: below 1 or too large, by its value.
    public var badPageKey: String? = nil
    public var pageEnd: Int? = nil
    /// progress: pages read (a delta).
    public var pagesRead: Int? = nil
    /// The book's total pages, when the line says ("page 120 of 300", "443 pages").
    public var pageCount: Int? = nil
    public var percent: Int? = nil
    /// progress: the position reached in an audiobook, in seconds ("at 1:02:30 in Persuasion").
    public var seconds: Int? = nil
    public var chapter: String? = nil
    /// progress: the book was finished.
    public var finished = false
    /// progress: how many days ago the reading was ("yesterday", "昨天": 1); nil: today.
    public var daysAgo: Int? = nil
    /// plan: the due date.
    public var due: Day? = nil
    /// plan: a daily goal ("30 pages a day").
    public var dailyPages: Int? = nil
    public var tags: [String] = []
    /// "en" or "zh": the language of the line.
    public var language = "en"
    /// unknown (two_readings): each way the line can be read, as `summary`.
    public var readings: [String] = []
    /// unknown: why (a message key).
    public var reason: String? = nil

    public init(intent: Intent) { self.intent = intent }

    /// Takes a page reference: its first page and last page, or (`reached`,
    /// progress) the last page alone.
    mutating func setPage(_ f: CaptureParser.Found, reached: Bool = false) {
        badPage = f.bad
        badPageKey = f.badKey
        if f.bad != nil { page = nil; pageEnd = nil; return }
        if reached { page = f.end ?? f.value } else { page = f.value; pageEnd = f.end }
    }

    /// A compact, stable description used by the test table:
    /// `intent key=value ...` with keys in a fixed order, nil fields left out.
    public var summary: String {
        var parts = [intent.rawValue]
        if let status { parts.append("status=\(status)") }
        if let book { parts.append("book=\(book)") }
        if !books.isEmpty { parts.append("books=\(books.joined(separator: "|"))") }
        if let author { parts.append("author=\(author)") }
        if let page { parts.append("page=\(page)") }
        if let badPage { parts.append("bad_page=\(badPage)") }
        if let pageEnd { parts.append("page_end=\(pageEnd)") }
        if let pagesRead { parts.append("pages_read=\(pagesRead)") }
        if let pageCount { parts.append("page_count=\(pageCount)") }
        if let percent { parts.append("percent=\(percent)") }
        if let seconds { parts.append("seconds=\(seconds)") }
        if let chapter { parts.append("chapter=\(chapter)") }
        if finished { parts.append("finished") }
        if let daysAgo { parts.append("days_ago=\(daysAgo)") }
        if let due { parts.append("due=\(due)") }
        if let dailyPages { parts.append("daily=\(dailyPages)") }
        if !tags.isEmpty { parts.append("tags=\(tags.joined(separator: ","))") }
        if let text { parts.append("text=\(text)") }
        return parts.joined(separator: " ")
    }
}
