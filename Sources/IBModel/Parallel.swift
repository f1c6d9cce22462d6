// Splitting work over the machine's cores: Whisper's encoder GEMMs by rows,
// its attention by heads, the decoder's products by outputs and its
// cross-attention by heads; a search's query embedding by outputs or rows (BertEncoder).
// The parts run on CKernels' resident pool (pool.c): a decoder step's products
// are tens of microseconds each, too short for threads woken through the kernel.
import CKernels
import IBCore
import Glibc
import Synchronization

/// How many threads a loop may use now, shared between threads: a hybrid
/// search embeds its question on one core while its full-text half runs on
/// the other, and lets the embedding take both once that half is done
/// (spinning pool workers would only slow it down before).
public final class ThreadShare: Sendable {
    private let count: Atomic<Int>
    public init(_ threads: Int) { count = Atomic(max(1, threads)) }
    public var threads: Int { count.load(ordering: .relaxed) }
    public func set(_ threads: Int) { count.store(max(1, threads), ordering: .relaxed) }
}

public enum Parallel {
    /// How many threads the heavy loops use: $IB_THREADS when set, else every core this
    /// process may use (Cores.available: its affinity and CPU quota), at most 8.
    public static let threads: Int = {
        if let text = getenv("IB_THREADS").map({ String(cString: $0) }), let n = Int(text), n > 0 { return min(n, 64) }
        return max(1, min(Cores.available, 8))
    }()

    /// Calls body(range) for up to `threads` contiguous parts of 0..<count, in parallel,
    /// each part at least `minimumPerPart` long; returns when all are done.
    public static func ranges(_ count: Int, minimumPerPart: Int = 1, threads: Int = Parallel.threads, _ body: (Range<Int>) -> Void) {
        let parts = max(1, min(threads, count / max(1, minimumPerPart)))
        if parts == 1 { body(0..<count); return }
        withoutActuallyEscaping(body) { escapable in
            var job = Job(count: count, parts: parts, body: escapable)
            withUnsafeMutablePointer(to: &job) { pointer in
                ib_pool_run(Int32(threads), Int32(parts), { context, part in
                    let job = context!.assumingMemoryBound(to: Job.self).pointee
                    let start = job.count * Int(part) / job.parts, end = job.count * (Int(part) + 1) / job.parts
                    if start < end { job.body(start..<end) }
                }, pointer)
            }
        }
    }

    /// What the pool's parts read: each part touches only its own rows or columns.
    private struct Job {
        let count: Int
        let parts: Int
        let body: (Range<Int>) -> Void
    }
}
