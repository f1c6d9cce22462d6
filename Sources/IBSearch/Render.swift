// Output of ib-search: JSON Lines records, or a readable listing on a terminal.
//
// Passage:  {"type":"result","kind":"chunk","rank":1,"score":0.0325,"book_id":"…","title":"…",
//            "start_page":12,"end_page":13,"start_label":"12","end_label":"13","chunk_id":"…:41",
//            "text":"…","snippet":"…the «speckled» «band»…"}
//            audio books add "start_time", "end_time" (seconds) and "time_label" ("1:02:30");
//            plus, where the book's structure says: "section" (titles, outermost first:
//            ["Act III","Scene IV"]), "date" ({"from":"--05-03","to":"--05-04"}) and "voice".
//            with --explain also "vector_rank", "text_rank" (null when not in that list),
//            "vector_distance", "bm25" and "fused_score".
// Book:     {"type":"result","kind":"book","rank","score","book_id","title","authors","page_count","current_page"}
// Quote/note: {"type":"result","kind":"quote"|"note","rank","score","book_id","title","id","page",
//            "page_label","text","snippet","created_at"} (notes add "note_kind": "note"|"question").
import IBCore

public enum Render {
    /// The fields every kind of result starts with, in this order.
    static func resultHeader(kind: String, rank: Int, score: Double, bookID: String, title: String) -> JSONObject {
        var o = JSONObject()
        o["type"] = "result"
        o["kind"] = .string(kind)
        o["rank"] = JSON(rank)
        o["score"] = .number(rounded(score))
        o["book_id"] = .string(bookID)
        o["title"] = .string(title)
        return o
    }

    /// `upToPage`: the reading position that bounded the result's book, shown as "up_to_page".
    public static func json(_ r: SearchResult, explain: Bool, upToPage: Int? = nil) -> JSON {
        var o = resultHeader(kind: "chunk", rank: r.rank, score: r.score, bookID: r.bookID, title: r.title)
        o["start_page"] = JSON(r.startPage)
        o["end_page"] = JSON(r.endPage)
        o["start_label"] = JSON(r.startLabel)
        o["end_label"] = JSON(r.endLabel)
        o["chunk_id"] = .string(r.chunkID)
        if let start = r.startTime, let label = r.timeLabel {
            o["start_time"] = .number(start)
            o["end_time"] = r.endTime.map { JSON.number($0) } ?? .null
            o["time_label"] = .string(label)
        }
        if let section = r.section { o["section"] = JSON(section) }
        if let from = r.dateFrom {
            var date = JSONObject()
            date["from"] = .string(from)
            date["to"] = .string(r.dateTo ?? from)
            o["date"] = .object(date)
        }
        if let voice = r.voice { o["voice"] = .string(voice) }
        o["text"] = .string(r.text)
        o["snippet"] = .string(r.snippet)
        if explain {
            o["vector_rank"] = JSON(r.vectorRank)
            o["text_rank"] = JSON(r.textRank)
            o["vector_distance"] = r.vectorDistance.map { .number(rounded($0)) } ?? .null
            o["bm25"] = r.bm25.map { .number(rounded($0)) } ?? .null
            o["fused_score"] = r.fusedScore.map { .number(rounded($0)) } ?? .null
        }
        if let upToPage { o["up_to_page"] = JSON(upToPage) }
        return .object(o)
    }

    public static func json(_ h: BookHit) -> JSON {
        var o = resultHeader(kind: "book", rank: h.rank, score: h.score, bookID: h.book.id, title: h.book.title)
        o["authors"] = JSON(h.book.authors)
        o["page_count"] = JSON(h.book.pageCount)
        o["current_page"] = JSON(h.book.currentPage)
        return .object(o)
    }

    public static func json(_ h: NoteHit) -> JSON {
        var o = resultHeader(kind: h.kind.rawValue, rank: h.rank, score: h.score, bookID: h.bookID, title: h.title)
        o["id"] = JSON(h.id)
        o["page"] = JSON(h.page)
        o["page_label"] = JSON(h.pageLabel)
        if h.kind == .note { o["note_kind"] = JSON(h.noteKind) }
        o["text"] = .string(h.text)
        o["snippet"] = .string(h.snippet)
        o["created_at"] = .string(h.createdAt)
        return .object(o)
    }

    static func rounded(_ x: Double) -> Double {
        guard x.isFinite else { return 0 }
        return (x * 1_000_000).rounded() / 1_000_000
    }

    /// "p. 12", "pp. 12–13" (labels when known, else physical pages).
    public static func pages(start: Int, end: Int, startLabel: String?, endLabel: String?) -> String {
        let a = startLabel ?? String(start), b = endLabel ?? String(end)
        return start == end || a == b ? "p. \(a)" : "pp. \(a)–\(b)"
    }

    /// "1:02:30–1:03:10": where an audio book's passage is heard.
    public static func times(start: Double, end: Double?) -> String {
        let a = MediaTime.label(start), b = end.map(MediaTime.label) ?? a
        return a == b ? a : "\(a)–\(b)"
    }

    /// Terminal listing: marks become bold (or stay «» when `bold` is false).
    public static func terminal(_ r: SearchResult, explain: Bool, bold: Bool) -> String {
        let place = r.startTime.map { times(start: $0, end: r.endTime) }
            ?? pages(start: r.startPage, end: r.endPage, startLabel: r.startLabel, endLabel: r.endLabel)
        var head = "\(r.rank). \(r.title) — \(place)"
        if let section = r.section, !section.isEmpty { head += " — " + section.joined(separator: " › ") }
        if explain {
            head += "  [score \(format(r.score))"
            head += ", vector rank \(r.vectorRank.map(String.init) ?? "-")"
            head += ", text rank \(r.textRank.map(String.init) ?? "-")]"
        }
        return (bold ? "\u{1B}[1m" + head + "\u{1B}[0m" : head) + "\n   " + marks(r.snippet, bold: bold) + "\n\n"
    }

    public static func terminal(_ h: BookHit, bold: Bool) -> String {
        var line = "\(h.rank). \(h.book.title)"
        if !h.book.authors.isEmpty { line += " — " + h.book.authors.joined(separator: ", ") }
        line += "  (\(h.book.id.prefix(8))"
        if h.book.pageCount > 0 { line += ", \(h.book.pageCount) pages" }
        if h.book.currentPage > 0 { line += ", at page \(h.book.currentPage)" }
        return line + ")\n"
    }

    public static func terminal(_ h: NoteHit, bold: Bool) -> String {
        var head = "\(h.rank). [\(h.kind == .quote ? "quote" : (h.noteKind ?? "note"))] \(h.title)"
        if let p = h.pageLabel ?? h.page.map(String.init) { head += " — p. \(p)" }
        return (bold ? "\u{1B}[1m" + head + "\u{1B}[0m" : head) + "\n   " + marks(h.snippet, bold: bold) + "\n"
    }

    static func marks(_ s: String, bold: Bool) -> String {
        guard bold else { return s }
        return s.replacingAll(Snippet.open, with: "\u{1B}[1;33m").replacingAll(Snippet.close, with: "\u{1B}[0m")
    }

    static func format(_ x: Double) -> String {
        let r = (x * 10000).rounded() / 10000
        return String(r)
    }
}
