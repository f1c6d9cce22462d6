// What the date words of both lexicons stand for: a day counted from today
// ("tomorrow", "月底") or a length of time ("weeks", "个月") that a number
// multiplies ("in 3 weeks", "三个月后").

import IBCore

/// A day named relative to today.
enum RelativeDay: Sendable {
    /// n days on: "today" is 0, "tomorrow" 1.
    case days(Int)
    /// n months on, the same day of the month (or the month's last).
    case months(Int)
    /// The last day of the month, n months on.
    case endOfMonth(Int)
    /// 31 December, n years on.
    case endOfYear(Int)
    /// The Sunday ending the week (weeks start on Monday), n weeks on.
    case endOfWeek(Int)
    /// "next year": this day a year on, the 28th at most (so it always exists).
    case sameDayNextYear

    func day(from today: Day) -> Day? {
        switch self {
        case .days(let n): return today.adding(days: n)
        case .months(let n): return today.adding(months: n)
        case .endOfMonth(let n): return n == 0 ? today.endOfMonth : today.adding(months: n).endOfMonth
        case .endOfYear(let n): return Day(year: today.year + n, month: 12, day: 31)
        case .endOfWeek(let n): return today.adding(days: 7 - today.weekday + 7 * n)
        case .sameDayNextYear: return Day(year: today.year + 1, month: today.month, day: min(today.day, 28))
        }
    }
}

/// One unit of a length of time: a number of days or of months.
struct DateUnit: Sendable {
    var days = 0
    var months = 0

    static func days(_ n: Int) -> DateUnit { DateUnit(days: n) }
    static func months(_ n: Int) -> DateUnit { DateUnit(months: n) }

    /// n of these after today.
    func times(_ n: Int, from today: Day) -> Day {
        months != 0 ? today.adding(months: months * n) : today.adding(days: days * n)
    }
}
