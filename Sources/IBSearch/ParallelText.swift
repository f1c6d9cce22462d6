// The full-text half of a hybrid search, run on a Dispatch worker with its own
// read-only connection while the caller embeds the query and scans vectors
// (the two halves cost about the same, so a hybrid search takes about as long
// as its slower half). It replaces a raw pthread whose job object was shared
// as `@unchecked Sendable`: here the work is a @Sendable closure over
// Sendable values, its result crosses threads through a Mutex, and the
// compiler checks both.
import Dispatch
import IBStore
import Synchronization

/// The full-text half started at once on another thread; `wait()` returns its
/// hits and the concepts it searched (the query's and any expansions), or nil
/// when it failed (the caller then runs it on its own connection).
final class ParallelText: Sendable {
    typealias Outcome = (hits: [ChunkHit], concepts: [Concept])
    private let finished = DispatchGroup()
    private let outcome = Mutex<Outcome?>(nil)

    init(path: String, concepts: [Concept], words: [String], expansion: QueryExpansion?, k: Int,
         scope: SearchScope?, commonFraction: Double) {
        finished.enter()
        DispatchQueue.global().async { [self] in
            defer { finished.leave() }
            do {
                let reader = try Library.openForReading(path: path)
                let all = SearchEngine.expanded(concepts, words: words, expansion: expansion)
                let hits = try SearchEngine.textSearch(reader, all, k: k, scope: scope, commonFraction: commonFraction)
                outcome.withLock { $0 = (hits, all) }
            } catch {
                // Left nil: the caller searches on its own connection.
            }
        }
    }

    /// Blocks until the search is done (at once when it already is; any number of times).
    func wait() -> Outcome? {
        finished.wait()
        return outcome.withLock { $0 }
    }
}
