// Splitting work over the machine's cores: the encoder's GEMMs by rows, its
// attention by heads, the decoder's output projection by vocabulary columns.
import Dispatch
import Foundation

enum Parallel {
    /// How many threads the heavy loops use: $IB_THREADS when set, else every core (at most 8).
    static let threads: Int = {
        if let text = ProcessInfo.processInfo.environment["IB_THREADS"], let n = Int(text), n > 0 { return min(n, 64) }
        return max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
    }()

    /// Calls body(range) for `threads` contiguous parts of 0..<count, in parallel.
    static func ranges(_ count: Int, minimumPerPart: Int = 1, _ body: (Range<Int>) -> Void) {
        let parts = max(1, min(threads, count / max(1, minimumPerPart)))
        if parts == 1 { body(0..<count); return }
        withoutActuallyEscaping(body) { escapable in
            let work = UncheckedBox(escapable)
            DispatchQueue.concurrentPerform(iterations: parts) { p in
                let start = count * p / parts, end = count * (p + 1) / parts
                if start < end { work.value(start..<end) }
            }
        }
    }
}

/// Hands a closure to the worker threads: each part touches only its own rows
/// or columns, which is what makes the unchecked Sendable safe here.
private final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
