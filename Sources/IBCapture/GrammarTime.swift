// Progress by time in an audiobook (issue 31): "listened to 2:15:00 of
// Persuasion", "at 1:02:30 in Persuasion", "I stopped at 2 hours 5 minutes".
// The position is stored in seconds. A line is read so only when a time
// follows its lead word directly; the book after it, if any, is any name
// (TitleMatcher resolves it, and refuses what it cannot tell apart).

extension CaptureParser {
    func parseTimeProgress(_ s: String) -> Capture? {
        let words = SpokenLine.words(s)
        let w = words.map(\.word)
        var i = 0
        if let subject = TimeLexicon.subjects.first(where: { SpokenLine.starts(words, 0, $0) }) { i = subject.count }
        guard let lead = TimeLexicon.leads.first(where: { SpokenLine.starts(words, i, $0) }) else { return nil }
        i += lead.count
        guard let time = SpokenNumbers.time(w, i) ?? (i < w.count ? SpokenNumbers.hyphenClock(w[i]).map({ ($0, 1) }) : nil) else { return nil }
        i += time.count
        var c = Capture(intent: .progress)
        c.seconds = time.seconds
        guard i < words.count else { return c }
        guard TimeLexicon.bookLinks.contains(w[i]), i + 1 < words.count else { return nil }
        guard let book = CaptureParser.bookName(words[(i + 1)...].map(\.raw).joined(separator: " ")) else { return nil }
        let (title, author) = CaptureParser.splitAuthor(book)
        c.book = title
        c.author = author
        return c
    }
}
