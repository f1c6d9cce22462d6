// Dates are ISO-8601 UTC everywhere. Reading accepts what other tools write:
// `Z` or `+00:00`, with or without fractional seconds, and SQLite's
// `YYYY-MM-DD HH:MM:SS`.
#if canImport(Glibc)
import Glibc
#endif

public enum Timestamp {
    /// Seconds since the epoch, now.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// A monotonic clock for measuring durations.
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The calling thread's CPU time in seconds: what a phase cost, apart from
    /// the time other processes took the core (benchmarks on a busy machine).
    public static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// `2026-11-22T04:05:06Z` (or with milliseconds).
    public static func iso8601(_ seconds: Double = now(), fractional: Bool = false) -> String {
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ n: Int32, _ width: Int = 2) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var out = "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))"
        if fractional {
            let millis = Int32(((seconds - seconds.rounded(.down)) * 1000).rounded(.down))
            out += "." + pad(millis, 3)
        }
        return out + "Z"
    }

    /// Parses the accepted forms; nil for anything else.
    public static func parse(_ text: String) -> Double? {
        let b = Array(text.utf8)
        func number(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var n = 0
            for i in at..<at + count {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                n = n * 10 + Int(b[i] - 0x30)
            }
            return n
        }
        guard b.count >= 10, let year = number(0, 4), b[4] == 0x2D, let month = number(5, 2), b[7] == 0x2D,
              let day = number(8, 2), (1...12).contains(month), (1...31).contains(day) else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        var i = 10
        if i < b.count {
            guard b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " "), let h = number(i + 1, 2), b.count > i + 3,
                  b[i + 3] == 0x3A, let m = number(i + 4, 2) else { return nil }
            hour = h; minute = m; i += 6
            if i < b.count, b[i] == 0x3A {
                guard let s = number(i + 1, 2) else { return nil }
                second = s; i += 3
            }
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                var scale = 0.1
                let digitsStart = i
                while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { fraction += Double(b[i] - 0x30) * scale; scale /= 10; i += 1 }
                if i == digitsStart { return nil }
            }
        }
        var offset = 0
        if i < b.count {
            if b[i] == UInt8(ascii: "Z") && i + 1 == b.count {
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign = b[i] == UInt8(ascii: "+") ? 1 : -1
                guard let oh = number(i + 1, 2) else { return nil }
                var om = 0
                if b.count == i + 6, b[i + 3] == 0x3A, let m = number(i + 4, 2) { om = m }
                else if b.count == i + 5, let m = number(i + 3, 2) { om = m }
                else if b.count != i + 3 { return nil }
                offset = sign * (oh * 3600 + om * 60)
                i = b.count
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900); parts.tm_mon = Int32(month - 1); parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour); parts.tm_min = Int32(minute); parts.tm_sec = Int32(second)
        let seconds = Double(timegm(&parts))
        return seconds + fraction - Double(offset)
    }
}
