// The sections a summary is made of, planned from where the book's chunks lie
// (no text is read): the book's structure cut at chapter depth (a part's
// chapters, a play's scenes), else the contents ib-parse found, else runs of
// ten pages. A section longer than `maxChunks` chunks is cut into parts, so no
// request and no offline step grows with the book. Sections are numbered over
// the whole book, so `--section 3` names the same one at any reading position.
import IBCore
import IBStore

public struct PlannedSection: Sendable {
    /// 1-based, over the whole book.
    public var number: Int
    public var title: String
    /// The section's titles, outermost first (for the front/back matter rule).
    public var path: [String]
    public var firstChunk: Int
    public var lastChunk: Int
    public var startPage: Int
    public var endPage: Int

    /// Front or back matter (contents, licence, cast list): never summarised.
    public var isMatter: Bool { ExtractiveRules.isMatter(section: path) }
}

public enum SummaryPlan {
    static let maxChunks = 60
    static let pagesPerWindow = 10

    public static func sections(_ library: Library, bookID: String) throws -> [PlannedSection] {
        let chunks = try library.chunkOutline(bookID: bookID)
        guard !chunks.isEmpty else { return [] }
        let units = try library.sections(bookID: bookID)
        let key: (SummaryChunk) -> Int
        let naming: (Int, SummaryChunk) -> [String]
        if !units.isEmpty {
            let byOrd = Dictionary(units.map { ($0.ord, $0) }, uniquingKeysWith: { a, _ in a })
            // A chunk belongs to its innermost unit's ancestor at depth 1 or less.
            func cut(_ ord: Int?) -> Int {
                guard var unit = ord.flatMap({ byOrd[$0] }) else { return -1 }
                while unit.depth > 1, let parent = unit.parent.flatMap({ byOrd[$0] }) { unit = parent }
                return unit.ord
            }
            key = { cut($0.sectionOrd) }
            naming = { k, _ in byOrd[k].map { $0.path.isEmpty ? [$0.title] : $0.path } ?? [] }
        } else {
            let contents = try library.contents(bookID: bookID)
            if !contents.isEmpty {
                var byPage: [Int: BookSection] = [:]
                for section in contents { for page in section.startPage...max(section.startPage, section.endPage) { byPage[page] = section } }
                key = { byPage[$0.startPage]?.index ?? -1 }
                naming = { k, _ in contents.first { $0.index == k }?.title.map { [$0] } ?? [] }
            } else {
                key = { ($0.startPage - 1) / pagesPerWindow }
                naming = { _, _ in [] }
            }
        }
        var out: [PlannedSection] = []
        var run: [SummaryChunk] = []
        var runKey = Int.min
        func flush() {
            guard !run.isEmpty else { return }
            let path = naming(runKey, run[0])
            let parts = stride(from: 0, to: run.count, by: maxChunks).map { Array(run[$0..<min(run.count, $0 + maxChunks)]) }
            for (i, part) in parts.enumerated() {
                let start = part.map(\.startPage).min()!, end = part.map(\.endPage).max()!
                var title = path.isEmpty ? (start == end ? "Page \(start)" : "Pages \(start)-\(end)") : path.joined(separator: " — ")
                if parts.count > 1 && !path.isEmpty { title += " (part \(i + 1) of \(parts.count))" }
                out.append(PlannedSection(number: out.count + 1, title: title, path: path, firstChunk: part[0].index,
                                          lastChunk: part[part.count - 1].index, startPage: start, endPage: end))
            }
            run = []
        }
        for chunk in chunks {
            let k = key(chunk)
            if k != runKey { flush(); runKey = k }
            run.append(chunk)
        }
        flush()
        return out
    }

    /// The section `text` names: its number, else the one title that contains it (case-insensitive).
    public static func find(_ text: String, in sections: [PlannedSection]) throws -> PlannedSection {
        let t = text.trimmed
        if let n = Int(t) {
            guard let found = sections.first(where: { $0.number == n }) else {
                throw IBError.usage("--section: no section \(n) (the book has \(sections.count))")
            }
            return found
        }
        let lowered = t.lowercased()
        let exact = sections.filter { $0.title.lowercased() == lowered || $0.path.last?.lowercased() == lowered }
        let matches = exact.isEmpty ? sections.filter { $0.title.lowercased().contains(lowered) } : exact
        guard !matches.isEmpty else { throw IBError.usage("--section: no section titled '\(t)'") }
        guard matches.count == 1 else {
            throw IBError.usage("--section: '\(t)' names \(matches.count) sections; give its number:\n"
                                + matches.prefix(10).map { "  \($0.number)  \($0.title)" }.joined(separator: "\n"))
        }
        return matches[0]
    }
}
