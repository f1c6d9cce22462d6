// The full-text half of a hybrid search (the ranked list, the chunks holding
// the words the reader quotes, and where in the books the question points),
// run on a Dispatch worker with its own
// read-only connection while the caller embeds the query and scans vectors
// (the two halves cost about the same, so a hybrid search takes about as long
// as its slower half). It replaces a raw pthread whose job object was shared
// as `@unchecked Sendable`: here the work is a @Sendable closure over
// Sendable values, its result crosses threads through a Mutex, and the
// compiler checks both.
import Dispatch
import IBCore
import IBModel
import IBStore
import Synchronization

/// The full-text half started at once on another thread; `wait()` returns its
/// hits, the concepts it searched (the query's and any expansions), the
/// chunks holding `phrases`, and how much of the query's `concepts` each hit
/// holds (what fusion weighs a text hit by: reading and matching the hits'
/// text here, while the caller still embeds and scans vectors, takes it off
/// the search's longer half), the concepts as it scored them, and the
/// question's focus (FocusPlan: reading every book's structure costs a
/// library of many books milliseconds the worker has to spare), or nil when
/// it failed (the caller then runs it on its own connection).
final class ParallelText: Sendable {
    typealias Outcome = (hits: [ChunkHit], concepts: [Concept], quoted: Set<ChunkRef>, matches: [ChunkRef: SearchEngine.Matched],
                         scored: ScoredConcepts?, focus: (focus: Focus, read: [String: [SearchSection]])?)
    private let finished = DispatchGroup()
    private let outcome = Mutex<Outcome?>(nil)
    private let connection = Mutex<Handoff>(Handoff(library: nil))
    /// The worker's wall and CPU seconds, and the wall seconds of each of its steps
    /// (IB_SEARCH_TIMING reports them).
    private let spent = Mutex<(wall: Double, cpu: Double, steps: [(String, Double)])>((0, 0, []))

    /// `reader`: the read connection of an earlier search to reuse (an engine that
    /// searches many times, as ib-mcp's, opens it once); nil opens one at `path`,
    /// which keeps `postingsMegabytes` of postings (SearchEngine.postingsMegabytes).
    /// `whenDone`: a share of threads to set to a count once the work is done (the
    /// query's embedding takes this core back).
    /// `focus`: the question's focus to work out after the search (its structure
    /// read here too); the outcome's focus is nil when that failed.
    init(path: String, reader: Handoff, postingsMegabytes: Int = 0, whenDone share: (ThreadShare, Int)? = nil, concepts: [Concept], words: [String], expansion: QueryExpansion?, k: Int,
         scope: SearchScope?, commonFraction: Double, bookShare: Double, phrases: [String], focus: FocusPlan? = nil) {
        finished.enter()
        DispatchQueue.global().async { [self] in
            let start = (wall: Timestamp.monotonic(), cpu: Timestamp.threadCPU())
            var steps: [(String, Double)] = []
            var lap = start.wall
            func step(_ name: String) {
                let now = Timestamp.monotonic()
                steps.append((name, now - lap))
                lap = now
            }
            defer {
                spent.withLock { [steps] in $0 = (Timestamp.monotonic() - start.wall, Timestamp.threadCPU() - start.cpu, steps) }
                if let (threads, count) = share { threads.set(count) }   // this core is free again
                finished.leave()
            }
            do {
                let reader = try reader.library ?? {
                    let opened = try Library.openForReading(path: path)
                    opened.keepPostings(megabytes: postingsMegabytes)
                    return opened
                }()
                connection.withLock { $0 = Handoff(library: reader) }
                let all = SearchEngine.expanded(concepts, words: words, expansion: expansion)
                let scored = try SearchEngine.scoredConcepts(reader, all, scope: scope, commonFraction: commonFraction, bookShare: bookShare)
                step("concepts")
                let hits = try SearchEngine.textSearch(reader, scored: scored, k: k, scope: scope)
                step("bm25")
                let quoted = try SearchEngine.phraseHits(reader, phrases, scope: scope)
                step("phrases")
                var matches: [ChunkRef: SearchEngine.Matched] = [:]
                for hit in hits where matches[hit.ref] == nil {
                    matches[hit.ref] = SearchEngine.matched(try reader.chunk(hit.ref)?.text ?? "", concepts: concepts)
                }
                step("matches")
                // The focus's full-text list scores the query's own concepts: these, unless expanded.
                let worked = focus?.worked(on: reader)
                step("focus")
                let result: Outcome = (hits, all, quoted, matches, all == concepts ? scored : nil, worked)
                outcome.withLock { $0 = result }
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

    /// What the worker spent, once the search is done: wall and CPU seconds, and each step's wall seconds.
    func cost() -> (wall: Double, cpu: Double, steps: [(String, Double)]) {
        finished.wait()
        return spent.withLock { $0 }
    }

    /// The read connection, for the next search, once the search is done.
    func reader() -> Handoff {
        finished.wait()
        return connection.withLock { $0 }
    }
}

/// A connection passed to the worker and back. Only one thread uses it at a
/// time: the worker until it leaves the group, the engine after wait().
struct Handoff: @unchecked Sendable {
    let library: Library?
}
