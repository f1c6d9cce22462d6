// Times in audio books: a page or chunk of an audio book carries `start_time`
// and `end_time` in seconds from the start of the audio, and is shown and
// cited by a clock label: "1:02:30" (h:mm:ss), "4:05" (m:ss) under an hour.
public enum MediaTime {
    /// "1:02:30", or "4:05" under an hour; whole seconds, rounded down.
    public static func label(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int(seconds)) : 0
        let h = total / 3600, m = total / 60 % 60, s = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }

    /// "1:02:30", "62:30", "4:05" or "245" (seconds) back to seconds; nil when malformed.
    public static func seconds(_ label: String) -> Double? {
        let parts = label.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            guard let n = Double(part), n >= 0, n.isFinite else { return nil }
            if i > 0 && n >= 60 { return nil }
            total = total * 60 + n
        }
        return total
    }

    /// A chunk's time from its page's: linear in the text offset (speech runs at a
    /// steady pace within a minute-long page).
    public static func interpolate(start: Double, end: Double, offset: Int, length: Int) -> Double {
        guard length > 0, end > start else { return start }
        return start + (end - start) * Double(min(max(offset, 0), length)) / Double(length)
    }
}
