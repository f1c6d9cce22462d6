// A calendar day without Foundation: civil-date arithmetic (proleptic
// Gregorian), today in local time or UTC, ISO-8601 text. Capture's dates and
// plans, and the parser's diary dates, count days with it.
#if canImport(Glibc)
import Glibc
#endif

/// A calendar day (proleptic Gregorian), ordered and countable.
public struct Day: Sendable, Equatable, Comparable, Hashable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public var serial: Int

    public init(serial: Int) { self.serial = serial }

    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1, day <= Day.daysIn(year: year, month: month) else { return nil }
        serial = Day.serial(year, month, day)
    }

    /// Today in local time (TZ), or in UTC when `utc`.
    public static func today(utc: Bool = false) -> Day {
        var t = time_t(0)
        time(&t)
        return Day(seconds: Double(t), utc: utc)
    }

    public init(seconds: Double, utc: Bool = false) {
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        if utc { gmtime_r(&t, &parts) } else { localtime_r(&t, &parts) }
        serial = Day.serial(Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    /// Parses "YYYY-MM-DD" (also the date part of a timestamp).
    /// The day $IB_TODAY names (YYYY-MM-DD, for tests and reproducible runs); nil when
    /// unset or empty; anything else is a usage error naming the variable.
    public static func fromEnvironment() throws(IBError) -> Day? {
        guard let text = Config.environment("IB_TODAY") else { return nil }
        guard text.utf8.count == 10, let day = Day(iso: text) else {
            throw IBError.usage("IB_TODAY must be a date as YYYY-MM-DD, not '\(Arguments.shown(text))'")
        }
        return day
    }

    public init?(iso: String) {
        let parts = iso.prefix(10).split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    static func serial(_ y: Int, _ m: Int, _ d: Int) -> Int {
        // Howard Hinnant's days_from_civil.
        let y = m <= 2 ? y - 1 : y
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    public var components: (year: Int, month: Int, day: Int) {
        let z = serial + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    public var year: Int { components.year }
    public var month: Int { components.month }
    public var day: Int { components.day }

    /// 1 = Monday ... 7 = Sunday (ISO).
    public var weekday: Int { ((serial % 7) + 7 + 3) % 7 + 1 }

    public static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public func adding(days: Int) -> Day { Day(serial: serial + days) }

    /// Same day of month `n` months later, clamped to the month's end.
    public func adding(months n: Int) -> Day {
        let (y, m, d) = components
        let total = y * 12 + (m - 1) + n
        let ny = total >= 0 ? total / 12 : (total - 11) / 12
        let nm = total - ny * 12 + 1
        return Day(year: ny, month: nm, day: min(d, Day.daysIn(year: ny, month: nm))) ?? Day(year: 9999, month: 12, day: 31)!
    }

    public var endOfMonth: Day {
        let (y, m, _) = components
        return Day(year: y, month: m, day: Day.daysIn(year: y, month: m)) ?? self
    }

    public var description: String {
        let (y, m, d) = components
        func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(y)-\(pad(m))-\(pad(d))"
    }

    public static func < (a: Day, b: Day) -> Bool { a.serial < b.serial }
}
