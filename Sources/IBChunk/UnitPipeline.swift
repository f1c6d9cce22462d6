// A large book's units are made on a second thread while its pages are
// still being read: the worker follows the reader through the text, a
// stretch at a time, ending each stretch at whitespace or at the end of a
// page, and carrying its state over, so the units are those of one pass over
// the whole text. When the book ends, what the worker has not reached is
// split: it goes on to a middle point and the reading thread takes the rest,
// whose first boundary is then set from the worker's final state
// (Chunker.join). The text and the unit storage must not move while the
// worker runs: both live in reserved address space (LargeMemory).
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

final class UnitPipeline: @unchecked Sendable {
    /// A stretch of text the worker takes at once.
    static let stretch = 1 << 17
    /// The reader tells the worker about new text after this much.
    static let signalEvery = 1 << 16

    private let chunker: Chunker
    private let text: UnsafeMutablePointer<UInt8>
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private let wake = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let paused = DispatchSemaphore(value: 0)
    // Under the lock:
    private var published = 0    // text the worker may read: whole pages
    private var stopAt = Int.max // where the worker stops, once the book's end is known
    private var finished = false
    private var claimed = 0      // the end of the stretch the worker has taken
    private var busy = false     // the worker is making units
    private var pausing = false  // the reader waits for the worker to be idle
    // The worker's, read by the reader only after `exited`:
    private var writer: UnitWriter
    private var state = UnitState()
    private var sink: UInt64 = 0
    // The reader's:
    private var signalled = 0

    /// Starts the worker on `text`, whose bytes must not move (see `canRun`).
    init(chunker: Chunker, text: BookText) {
        self.chunker = chunker
        self.text = text.base
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        chunker.storage.reserve(text.count + 2, keeping: 0)
        writer = UnitWriter(chunker.storage, base: 0)
        DispatchQueue.global().async { self.work() }
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    static func canRun(_ chunker: Chunker, _ text: BookText) -> Bool {
        text.isStable && chunker.storage.isStable
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }

    private func work() {
        let cache = chunker.cache(0)
        while true {
            var stretch: Range<Int>? = nil
            var done = false
            locked {
                busy = false
                if pausing {
                    pausing = false
                    paused.signal()
                }
                let limit = min(published, stopAt)
                if claimed < limit {
                    var end = limit
                    if limit - claimed > UnitPipeline.stretch {
                        let b = UnsafeBufferPointer(start: text, count: limit)
                        end = Chunker.wordBoundary(b, from: claimed + UnitPipeline.stretch)
                    }
                    chunker.storage.reserve(end + 2, keeping: writer.count)
                    stretch = claimed..<end
                    claimed = end
                    busy = true
                } else if finished {
                    done = true
                }
            }
            if done { break }
            guard let stretch else { wake.wait(); continue }
            // Reads stop at `stretch.upperBound`, except that the token cache's
            // 8-byte loads may see (and mask off) a few bytes past a word's end.
            let b = UnsafeBufferPointer(start: UnsafePointer(text), count: stretch.upperBound)
            sink &+= chunker.makeUnits(b, stretch, &cache.pointee, &writer, &state)
        }
        exited.signal()
    }

    /// The text now holds whole pages up to `count` bytes.
    func publish(_ count: Int) {
        guard count - signalled >= UnitPipeline.signalEvery else { return }
        locked { published = count }
        signalled = count
        wake.signal()
    }

    /// Stops the worker, for a book that will not be finished.
    func cancel() {
        locked {
            stopAt = claimed
            finished = true
        }
        wake.signal()
        exited.wait()
    }

    /// The book's units, once all its text is in `b`.
    func finish(_ b: UnsafeBufferPointer<UInt8>) -> Units {
        let n = b.count
        var cut = n
        // Let the worker finish its stretch and take no other, then start
        // this thread's cache from the worker's, which knows the book's words.
        let wait: Bool = locked {
            stopAt = claimed
            pausing = busy
            return busy
        }
        if wait { paused.wait() }
        // The worker is idle: `claimed` stays put until it is told more.
        let reached = locked { claimed }
        // Split what the worker has not done, if it is worth a thread.
        if n - reached >= 2 * UnitPipeline.stretch {
            cut = Chunker.wordBoundary(b, from: reached + (n - reached) / 2)
            chunker.cache(1).pointee.copy(chunker.cache(0).pointee)
        }
        locked {
            published = n
            stopAt = cut
            finished = true
            chunker.storage.reserve(n + 2, keeping: 0)  // reserved: nothing moves
        }
        wake.signal()
        var second = UnitWriter(chunker.storage, base: cut + 1)
        var secondState = UnitState()
        let secondSink = chunker.makeUnits(b, cut..<n, &chunker.cache(1).pointee, &second, &secondState)
        exited.wait()
        chunker.touched &+= sink &+ secondSink
        return chunker.join(writer, state, second, at: cut, b)
    }
}
