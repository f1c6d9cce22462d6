// The header before a colon and the text after a closing quote carry the
// same things in both languages: a page, a chapter, an author, a book.
import IBCore

extension CaptureParser {
    func parseHeader(_ header: String, into c: inout Capture) {
        var h = Array(header)
        if let f = CaptureParser.findPage(h) { c.setPage(f); h = CaptureParser.removing(h, f.range) }
        if let ch = CaptureParser.findChapter(h) { c.chapter = ch.0; h = CaptureParser.removing(h, ch.1) }
        var rest = String(h)
        let (t, author) = CaptureParser.splitAuthor(rest)
        if author != nil { rest = t; c.author = author }
        if let b = CaptureParser.bookName(rest) { c.book = b }
    }

    /// A line that opens with a quotation mark is a quote, with what follows the
    /// closing mark as its metadata (both languages: “…” (p. 47), 「…」——《沉思录》第12页).
    func leadingQuote(_ s: String) -> Capture? {
        guard let q = CaptureParser.quoted(s), TextClasses.trim(q.before).isEmpty else { return nil }
        var c = Capture(intent: .quote)
        c.text = TextClasses.trim(q.inside)
        applyTrailingMeta(q.after, to: &c)
        return c
    }

    /// After a closing quote: "(p. 47)", " - Meditations, p. 12", "— Marcus Aurelius, Meditations", "——《沉思录》第12页".
    func applyTrailingMeta(_ after: String, to c: inout Capture) {
        var m = Array(after)
        if let f = CaptureParser.findPage(m) { c.setPage(f); m = CaptureParser.removing(m, f.range) }
        if let ch = CaptureParser.findChapter(m) { c.chapter = ch.0; m = CaptureParser.removing(m, ch.1) }
        var rest = String(m)
        if let t = CaptureParser.bracketTitles(rest).first { c.book = t; return }
        let (t, author) = CaptureParser.splitAuthor(rest)
        if author != nil { rest = t; c.author = author }
        if let b = CaptureParser.bookName(rest) { c.book = b }
    }
}
