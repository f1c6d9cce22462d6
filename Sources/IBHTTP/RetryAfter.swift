// Retry-After (RFC 9110 section 10.2.3): either delay-seconds or an HTTP date.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

public enum RetryAfter {
    /// Seconds to wait from `now`; nil if the value is neither form. A date in the past gives 0.
    public static func seconds(_ value: String, now: Double = Timestamp.now()) -> Double? {
        let text = value.trimmingCharacters(in: " \t")
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            return Double(text)
        }
        if let date = httpDate(text) { return max(0, date - now) }
        return nil
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Parses IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete
    /// RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
    /// (`Sun Nov  6 08:49:37 1994`) into seconds since the epoch.
    public static func httpDate(_ text: String) -> Double? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        var day: Int?, month: Int?, year: Int?, clock: String?
        if parts.count == 4, parts[3].uppercased() == "GMT" {
            if parts[1].contains("-") {
                // RFC 850: 06-Nov-94
                let dmy = parts[1].split(separator: "-").map(String.init)
                guard dmy.count == 3 else { return nil }
                day = Int(dmy[0]); month = monthIndex(dmy[1]); year = Int(dmy[2])
                if let y = year, y < 100 { year = y + (y < 70 ? 2000 : 1900) }
                clock = parts[2]
            } else {
                return nil
            }
        } else if parts.count == 6, parts[5].uppercased() == "GMT" {
            day = Int(parts[1]); month = monthIndex(parts[2]); year = Int(parts[3]); clock = parts[4]
        } else if parts.count == 5 {
            // asctime: Sun Nov 6 08:49:37 1994
            month = monthIndex(parts[1]); day = Int(parts[2]); clock = parts[3]; year = Int(parts[4])
        }
        guard let d = day, let m = month, let y = year, let c = clock else { return nil }
        let hms = c.split(separator: ":").compactMap { Int($0) }
        guard hms.count == 3, (1...31).contains(d), (0...23).contains(hms[0]), (0...59).contains(hms[1]),
              (0...60).contains(hms[2]) else { return nil }
        var t = tm()
        t.tm_year = Int32(y - 1900); t.tm_mon = Int32(m); t.tm_mday = Int32(d)
        t.tm_hour = Int32(hms[0]); t.tm_min = Int32(hms[1]); t.tm_sec = Int32(hms[2])
        return Double(timegm(&t))
    }

    private static func monthIndex(_ name: String) -> Int? {
        months.firstIndex(of: name.lowercased())
    }
}
