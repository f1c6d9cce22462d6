// Provider-assisted search: a language model rewrites the question into the
// book's words (--expand) and orders the best candidates (--rerank), as qmd
// does. IBSearch knows only the SearchAssistant protocol; IBAsk implements it
// with the chat providers, so a plain search never loads the networking code.
//
// Expand: the question and the model's two or three searches (words the book
// would use; a short passage that would answer it) each run as a normal search,
// 30 deep, page limits and all; their lists are fused by reciprocal rank, the
// question's own list counting double, so a rewrite adds finds without
// drowning what the question found by itself.
// Rerank: the best 30 go to the model, numbered; it answers with numbers, best
// first. Passages it names come first in its order, the rest keep theirs.
// Every candidate already obeys the page limits, so nothing past the reader's
// page can reach the model. A failed, slow or unparseable answer leaves the
// plain search's order, with one warning.

import IBCore

public protocol SearchAssistant: AnyObject {
    /// Two or three searches for the question (no more than three are used).
    func expand(_ question: String) throws -> [String]
    /// Indexes into `passages`, most relevant first; may leave some out.
    func rerank(_ question: String, passages: [String]) throws -> [Int]
}

public struct AssistOptions: Sendable, Equatable {
    public var expand = false
    public var rerank = false
    /// How many candidates each search returns and the model ranks.
    public var depth = 30
    public init(expand: Bool = false, rerank: Bool = false) { self.expand = expand; self.rerank = rerank }
    public var any: Bool { expand || rerank }
}

extension SearchEngine {
    /// `search(query)`, widened by the assistant's rewrites and ordered by its
    /// ranking when `options` asks and an assistant is given. `warn` gets one
    /// line per step that fell back to the plain search.
    public func search(_ query: SearchQuery, assistant: SearchAssistant?, options: AssistOptions,
                       warn: (String) -> Void) throws -> [SearchResult] {
        guard let assistant, options.any else { return try search(query) }
        var wide = query
        wide.k = max(query.k, options.depth)
        var lists = [try search(wide)]
        // A provider that failed once (down, slow, unparseable) is not asked again: one warning.
        var failed = false
        if options.expand {
            do {
                for rewrite in try assistant.expand(query.text).prefix(3) where !rewrite.allSatisfy(\.isWhitespace) {
                    var q = wide
                    q.text = rewrite
                    q.focusText = query.focusText ?? query.text   // searched where the question points
                    lists.append(try search(q))
                }
            } catch {
                failed = true
                warn("--expand: \(Self.describe(error)): plain search")
            }
        }
        var results = lists.count == 1 ? lists[0] : Self.fuseRanks(lists, depth: wide.k)
        if options.rerank && !failed && results.count > 1 {
            do {
                let order = try assistant.rerank(query.text, passages: results.map(\.text))
                results = Self.reorder(results, by: order)
            } catch {
                warn("--rerank: \(Self.describe(error)): the search's own order was kept")
            }
        }
        return results.prefix(query.k).enumerated().map { i, r in
            var r = r
            r.rank = i + 1
            return r
        }
    }

    /// Reciprocal rank fusion (k = 10) of several searches' lists, the first
    /// (the question's own) weighted 2; a chunk keeps the first result record
    /// seen for it, with the fused score.
    static func fuseRanks(_ lists: [[SearchResult]], depth: Int) -> [SearchResult] {
        var score: [String: Double] = [:]
        var first: [String: SearchResult] = [:]
        var order: [String] = []
        for (n, list) in lists.enumerated() {
            let weight = n == 0 ? 2.0 : 1.0
            for (i, r) in list.enumerated() {
                score[r.chunkID, default: 0] += weight / (10 + Double(i + 1))
                if first[r.chunkID] == nil { first[r.chunkID] = r; order.append(r.chunkID) }
            }
        }
        let ranked = order.enumerated().sorted { a, b in
            let sa = score[a.element]!, sb = score[b.element]!
            return sa != sb ? sa > sb : a.offset < b.offset
        }
        return ranked.prefix(depth).map { _, id in
            var r = first[id]!
            r.score = score[id]!
            r.fusedScore = score[id]!
            return r
        }
    }

    /// The named results first, in the given order (out-of-range and repeated
    /// numbers ignored), then the others in their order.
    static func reorder(_ results: [SearchResult], by order: [Int]) -> [SearchResult] {
        var taken = Set<Int>()
        var out: [SearchResult] = []
        for i in order where results.indices.contains(i) && taken.insert(i).inserted { out.append(results[i]) }
        for (i, r) in results.enumerated() where !taken.contains(i) { out.append(r) }
        return out
    }

    static func describe(_ error: Error) -> String {
        (error as? IBError)?.message ?? "\(error)"
    }
}
