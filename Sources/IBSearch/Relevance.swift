// When a hybrid search has found nothing worth showing: the one rule that
// ib-search and ib-mcp's search_library share, so that a query about nothing
// in the library gets "no passage matched" from both instead of ten passages.
import IBCore

public enum Relevance {
    /// The closest passage's cosine below which a hybrid search that matched no
    /// word of the query shows nothing. Measured on the 94 questions of
    /// shared/fixtures/eval (search, search-heldout): every one has a word hit
    /// or a passage at cosine 0.42 or more (all at 0.388 or more), so none is
    /// dropped; queries about nothing in the books fall below it.
    public static let unrelatedCosine = 0.35

    /// No result holds a word of the query and the nearest is far in meaning:
    /// a query about nothing in the library.
    public static func unrelated(_ results: [SearchResult]) -> Bool {
        guard !results.contains(where: { $0.textRank != nil }),
              let distance = results.compactMap(\.vectorDistance).min() else { return false }
        return 1 - distance < unrelatedCosine
    }

    /// Why an off-topic search showed nothing, and how to see the passages anyway.
    public static func unrelatedReason(override: String) -> String {
        "no passage holds a word of the query, and the nearest is far in meaning; \(override) shows them"
    }
}
