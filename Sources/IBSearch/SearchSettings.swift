// How a SearchEngine searches beyond the query itself. The environment
// variables that tune it are read once, by the command layer (ib-search,
// ib-ask), and handed in; the engine reads no environment of its own.
import IBCore

/// A SearchEngine's limits and experiments. `SearchSettings()` is the tools'
/// defaults; `fromEnvironment()` applies the IB_SEARCH_* variables.
public struct SearchSettings: Sendable, Equatable {
    /// Full-text queries add related words from the model's vocabulary (IB_SEARCH_EXPAND=1).
    public var expandQueries = false
    /// BM25 in a scope of a few books: the share of each word's rarity (IDF) that is
    /// its rarity in those books, the rest its rarity in the library (BookRarity).
    /// IB_SEARCH_BOOK_IDF_PERCENT=N sets it (0: the library's alone, as before;
    /// IB_SEARCH_BOOK_IDF=1 is 100). The book's alone raised the readers' set (tuning
    /// part, one book) text recall@5 0.627 -> 0.649 and hybrid 0.763 -> 0.776, but
    /// cost the first long set's held-out part 0.728 -> 0.679 (questions there name
    /// the book's people, whose names it weighs down); half of each: see BookRarity.
    public var bookIDFShare = 0.5
    /// Vector candidates are re-scored by their window vectors (IB_SEARCH_WINDOWS=0 turns it off).
    public var rescoreByWindows = true
    /// A scope of at most this many chunks has every window scanned (IB_SEARCH_WINDOW_SCAN=N).
    public var windowScanLimit = 5_000
    /// A scope of at most this many chunks searches synonyms too (IB_SEARCH_SYNONYM_SCOPE=N).
    public var synonymScopeLimit = 20_000
    /// Hybrid runs its full-text half beside the vector half (IB_SEARCH_PARALLEL=0 turns it off).
    public var parallel = true
    /// Hybrid: how far a chunk inside what the question names rises, in standard
    /// deviations times its focus weight (IB_SEARCH_FOCUS_PERCENT=1000 is 10, the default; 0 turns it off).
    /// Chosen with the vector weight on the second readers' set's tuning part
    /// (shared/fixtures/eval/reader2), which nothing had been tuned on: 3, 6, 10, 15
    /// and 25 found 0.609, 0.618, 0.673, 0.682 and 0.664 recall@5 in one book
    /// (whole library at 10: 0.545 -> 0.600); on the first readers' tuning part 6 -> 10
    /// found 0.768 -> 0.785, on the first long set's 0.708 -> 0.708.
    public var focusWeight = 10.0
    /// Hybrid: the vector list's weight against the text list's 1
    /// (IB_SEARCH_VECTOR_PERCENT=130 is 1.3, the default). Equal weights found a
    /// question more on each readers' tuning part, but cost the first evaluation
    /// set two of its 59 (hybrid 0.864 -> 0.831, below vector): 1.3 stays.
    public var vectorWeight = 1.3
    /// Phase times on stderr (IB_SEARCH_TIMING set).
    public var timing = false
    /// The thesaurus file (scripts/build-thesaurus's): $IB_THESAURUS, else the
    /// data directory's thesaurus.tsv; nil for none (IB_SEARCH_SYNONYMS=0).
    public var thesaurusPath: String?
    /// The model folder was named by $IB_MODEL_DIR: use it even when the library
    /// was embedded with another model, rather than look beside the default.
    public var modelDirectoryChosen = false

    public init() {
        thesaurusPath = Config.dataDirectory + "/thesaurus.tsv"
    }

    /// The defaults with the environment's IB_SEARCH_*, IB_THESAURUS and IB_MODEL_DIR
    /// applied; a limit that is not a whole number from 0 to 100,000,000 is a usage error.
    public static func fromEnvironment() throws(IBError) -> SearchSettings {
        var settings = SearchSettings()
        func limit(_ name: String) throws(IBError) -> Int? { try Arguments.environmentInt(name, min: 0, max: 100_000_000) }
        settings.expandQueries = Config.environment("IB_SEARCH_EXPAND") == "1"
        if Config.environment("IB_SEARCH_BOOK_IDF") == "1" { settings.bookIDFShare = 1 }
        if let percent = try Arguments.environmentInt("IB_SEARCH_BOOK_IDF_PERCENT", min: 0, max: 100) { settings.bookIDFShare = Double(percent) / 100 }
        settings.rescoreByWindows = Config.environment("IB_SEARCH_WINDOWS") != "0"
        settings.windowScanLimit = try limit("IB_SEARCH_WINDOW_SCAN") ?? settings.windowScanLimit
        settings.synonymScopeLimit = try limit("IB_SEARCH_SYNONYM_SCOPE") ?? settings.synonymScopeLimit
        settings.parallel = Config.environment("IB_SEARCH_PARALLEL") != "0"
        if let focus = try Arguments.environmentInt("IB_SEARCH_FOCUS_PERCENT", min: 0, max: 10_000) { settings.focusWeight = Double(focus) / 100 }
        if let vector = try Arguments.environmentInt("IB_SEARCH_VECTOR_PERCENT", min: 0, max: 10_000) { settings.vectorWeight = Double(vector) / 100 }
        settings.timing = Config.environment("IB_SEARCH_TIMING") != nil
        if Config.environment("IB_SEARCH_SYNONYMS") == "0" {
            settings.thesaurusPath = nil
        } else if let path = Config.environment("IB_THESAURUS") {
            settings.thesaurusPath = path
        }
        settings.modelDirectoryChosen = Config.environment("IB_MODEL_DIR") != nil
        return settings
    }
}
