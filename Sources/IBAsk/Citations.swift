// Citations: "(p. 12)", "(pp. 12-14)", "(p. iv)", "(pp. 3–4, 7)" after each
// claim; in an audio book times: "(1:02:30)", "(4:05-5:10)". Every one is checked against the pages actually retrieved (and so
// shown to the model); unsupported ones are reported, and removed by --strict.
import IBCore

public struct Citation: Sendable, Equatable {
    /// The citation as written, e.g. "(pp. 12-14)".
    public var text: String
    /// Offsets (in Characters) of `text` in the answer.
    public var range: Range<Int>
    /// The physical pages it names (empty when a label is unknown).
    public var pages: [Int]
    public var supported: Bool

    public var json: JSON {
        ["text": .string(text), "pages": .array(pages.map { .number(Double($0)) }), "supported": .bool(supported)]
    }
}

public enum Citations {
    /// Finds the citations in `answer` and checks each against `retrieved` pages.
    public static func check(_ answer: String, book: BookContext, retrieved: Set<Int>) -> [Citation] {
        let chars = Array(answer)
        var out: [Citation] = []
        var i = 0
        while i < chars.count {
            guard chars[i] == "(" else { i += 1; continue }
            // "(p." or "(pp." then the body up to ")".
            var j = i + 1
            if book.isAudio, j < chars.count, chars[j].isASCII, chars[j].isNumber,
               let close = chars[j...].prefix(40).firstIndex(of: ")") {
                let body = String(chars[j..<close])
                if body.contains(":"), let pages = resolve(body, book: book) {
                    let supported = !pages.isEmpty && pages.allSatisfy { retrieved.contains($0) }
                    out.append(Citation(text: String(chars[i...close]), range: i..<(close + 1), pages: pages, supported: supported))
                    i = close + 1
                    continue
                }
            }
            guard j < chars.count, chars[j] == "p" else { i += 1; continue }
            j += 1
            if j < chars.count, chars[j] == "p" { j += 1 }
            guard j < chars.count, chars[j] == "." else { i += 1; continue }
            j += 1
            guard let close = chars[j...].prefix(80).firstIndex(of: ")") else { i += 1; continue }
            let body = String(chars[j..<close])
            guard let pages = resolve(body, book: book) else { i += 1; continue }
            let supported = !pages.isEmpty && pages.allSatisfy { retrieved.contains($0) }
            out.append(Citation(text: String(chars[i...close]), range: i..<(close + 1), pages: pages, supported: supported))
            i = close + 1
        }
        return out
    }

    /// The pages named by "12", "12-14", "iv–vi", "3, 7; 9". nil if it does
    /// not look like a page reference at all.
    static func resolve(_ body: String, book: BookContext) -> [Int]? {
        var pages: [Int] = []
        let items = body.split(whereSeparator: { $0 == "," || $0 == ";" }).map { String($0).trimmed }
        guard !items.isEmpty else { return nil }
        for var item in items {
            if item.hasPrefix("pp.") { item = String(item.dropFirst(3)).trimmed }
            else if item.hasPrefix("p.") { item = String(item.dropFirst(2)).trimmed }
            guard !item.isEmpty, item.count <= 24 else { return nil }
            let ends = item.split(whereSeparator: { $0 == "-" || $0 == "–" || $0 == "—" }).map { String($0).trimmed }
            guard ends.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { return nil }
            if ends.count == 1 {
                let found = book.pages(forLabel: ends[0])
                if let first = found.first { pages.append(first) } else { pages.append(-1) }
            } else if ends.count == 2 {
                guard let a = book.pages(forLabel: ends[0]).first else { pages.append(-1); continue }
                // The end label nearest after the start ("12-14"; also "112-4" style is not guessed).
                let candidates = book.pages(forLabel: ends[1]).filter { $0 >= a }
                guard let b = candidates.first, b - a <= 50 else { pages.append(-1); continue }
                pages.append(contentsOf: a...b)
            } else {
                return nil
            }
        }
        // Unknown labels make the citation unsupported (pages stays informative).
        if pages.contains(-1) { return [] }
        return pages
    }

    /// The answer without the unsupported citations (and the space before each).
    public static func removeUnsupported(_ answer: String, _ citations: [Citation]) -> String {
        var chars = Array(answer)
        for c in citations.reversed() where !c.supported {
            var start = c.range.lowerBound
            while start > 0, chars[start - 1] == " " { start -= 1 }
            chars.removeSubrange(start..<c.range.upperBound)
        }
        return String(chars)
    }
}
