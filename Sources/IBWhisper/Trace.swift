// IB_WHISPER_TRACE: where a transcription's time goes, on stderr, for people
// tuning the model. Times are the process's CPU seconds (all threads), which
// stay meaningful on a loaded machine where wall seconds do not; the last line
// adds the calling thread's own CPU seconds, the critical path (the pool's
// workers spin rather than sleep between a step's parts, so the caller's
// waits count too): on an idle machine, about the wall time.
import Foundation

enum Trace {
    static let enabled = ProcessInfo.processInfo.environment["IB_WHISPER_TRACE"] != nil

    /// CPU seconds used by the process so far (every thread).
    static func cpuSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// CPU seconds used by the calling thread so far.
    static func threadSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The line is only built when tracing is on.
    static func write(_ line: @autoclosure () -> String) {
        if enabled { FileHandle.standardError.write(Data((line() + "\n").utf8)) }
    }
}

/// CPU seconds spent in parts of a window's decoding (trace only).
struct StepClock {
    var forward = 0.0, logits = 0.0
    mutating func time<T>(_ part: WritableKeyPath<StepClock, Double>, _ body: () -> T) -> T {
        guard Trace.enabled else { return body() }
        let start = Trace.cpuSeconds()
        let result = body()
        self[keyPath: part] += Trace.cpuSeconds() - start
        return result
    }
}
