// Suggestions from the reading history, each with the reason it is made:
// continue the book usually read at this hour (and day of the week), a plan
// falling behind with the pages a day that would still meet it, a book being
// read but untouched for weeks, and the quote of the day. A finished book is
// never suggested.
#if canImport(Glibc)
import Glibc
#endif
import IBCore
import IBStore

public enum Suggestions {
    /// How far (minutes, either side) a past session may be from now and still count as "this hour".
    static let window = 60
    /// Days a habit is looked for in, and sessions at this hour needed to call it one.
    static let habitDays = 60
    static let habitMinimum = 3
    /// A book being read with no activity for this many days is "untouched".
    static let untouchedDays = 21

    /// $IB_NOW (an ISO-8601 date and time, for tests and reproducible runs); nil when unset or empty.
    public static func nowFromEnvironment() throws(IBError) -> Double? {
        guard let text = Config.environment("IB_NOW") else { return nil }
        guard let seconds = Timestamp.parse(text) else {
            throw IBError.usage("IB_NOW must be an ISO-8601 date and time (2026-11-28T20:55:00), not '\(Arguments.shown(text))'")
        }
        return seconds
    }

    struct LocalTime { var day: Int; var minute: Int; var weekday: Int }

    static func local(_ seconds: Double) -> LocalTime {
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        localtime_r(&t, &parts)
        return LocalTime(day: Day(seconds: seconds).serial, minute: Int(parts.tm_hour) * 60 + Int(parts.tm_min), weekday: Int(parts.tm_wday))
    }

    static func clock(_ minute: Int) -> String {
        let h = minute / 60, m = minute % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }

    /// The suggestions, most pressing first; `status` is StatusReport's record (plans, quote).
    public static func build(_ store: CaptureStore, status: JSON, now: Double) throws -> [JSON] {
        let records = store.records
        let states = try records.bookStates()
        let finished = Set(states.filter { $0.state == "finished" }.map(\.bookID))
        let current = local(now)
        var out: [JSON] = []

        // The book usually read at this hour: distinct days with a session within the window.
        var sessions: [String: (days: Set<Int>, sameWeekday: Set<Int>, minutes: [Int])] = [:]
        let since = Timestamp.iso8601(now - Double(habitDays) * 86400)
        for e in try records.progressEvents(since: since) where !finished.contains(e.bookID) && e.kind != "finished" {
            guard let s = Timestamp.parse(e.createdAt), s <= now else { continue }
            let t = local(s)
            guard t.day < current.day else { continue }  // today's reading is not a habit yet
            let apart = abs(t.minute - current.minute)
            guard min(apart, 1440 - apart) <= window else { continue }
            var entry = sessions[e.bookID] ?? ([], [], [])
            entry.days.insert(t.day)
            if t.weekday == current.weekday { entry.sameWeekday.insert(t.day) }
            entry.minutes.append(t.minute)
            sessions[e.bookID] = entry
        }
        let habit = sessions.filter { $0.value.days.count >= habitMinimum }
            .max { ($0.value.days.count, $0.value.sameWeekday.count, $1.key) < ($1.value.days.count, $1.value.sameWeekday.count, $0.key) }
        if let (bookID, entry) = habit, let book = try store.bookRef(id: bookID) {
            let minutes = entry.minutes.sorted()
            let usual = minutes[minutes.count / 2]
            let reason = "you read it around \(clock(usual)) on \(entry.days.count) of the last \(habitDays) days"
                + (entry.sameWeekday.isEmpty ? "" : ", \(entry.sameWeekday.count) of them on this day of the week")
            out.append(.object(JSONObject([
                ("kind", "continue"), ("book_id", .string(book.id)), ("title", .string(book.title)),
                ("page", JSON(book.currentPage)), ("page_count", book.pageCount > 0 ? JSON(book.pageCount) : .null),
                ("usual_time", .string(clock(usual))), ("days", JSON(entry.days.count)),
                ("text", .string("Continue \(book.title)" + (book.currentPage > 0 ? " from page \(book.currentPage)" : ""))),
                ("reason", .string(reason)),
            ])))
        }

        // Plans falling behind, with the pace that would still meet them.
        for plan in status["plans"]?.arrayValue ?? [] where plan["on_track"]?.boolValue == false && plan["done"]?.boolValue != true {
            guard let perDay = plan["pages_per_day"]?.intValue else { continue }
            let title = plan["title"]?.stringValue ?? ""
            var o = JSONObject([("kind", "plan_behind"), ("plan_id", plan["id"] ?? .null), ("title", .string(title)),
                                ("pages_per_day", JSON(perDay))])
            if let due = plan["due"]?.stringValue {
                o["due"] = .string(due)
                o["days_left"] = plan["days_left"] ?? .null
                o["pages_left"] = plan["pages_left"] ?? .null
                o["text"] = .string("Read \(perDay) pages a day to finish \(title) by \(due)")
                let planned = plan["planned_pages_per_day"]?.intValue
                o["reason"] = .string("the plan is behind: \(plan["pages_left"]?.intValue ?? 0) pages left in \(plan["days_left"]?.intValue ?? 0) days"
                                      + (planned.map { " (it planned \($0) a day)" } ?? ""))
            } else {
                o["text"] = .string("Read \(perDay) pages today")
                o["reason"] = .string("the daily goal is \(perDay) pages and today has \(status["pages_today"]?.intValue ?? 0)")
            }
            out.append(.object(o))
        }

        // Books being read but left alone for weeks.
        for s in states where s.state == "reading" && s.bookID != (habit?.key ?? "") {
            guard let active = Timestamp.parse(s.activeAt) else { continue }
            let days = Int((now - active) / 86400)
            guard days >= untouchedDays else { continue }
            out.append(.object(JSONObject([
                ("kind", "untouched"), ("book_id", .string(s.bookID)), ("title", .string(s.title)), ("days", JSON(days)),
                ("text", .string("Pick up \(s.title) again, or set it aside")),
                ("reason", .string("untouched for \(days) days")),
            ])))
        }

        // The quote of the day (hidden text stays hidden).
        if let q = status["quote"], !q.isNull {
            out.append(.object(JSONObject([
                ("kind", "quote"), ("quote_id", q["id"] ?? .null), ("book_title", q["book_title"] ?? .null),
                ("text", q["text"] ?? .null), ("reason", "the quote of the day"),
            ])))
        }
        return out
    }

    /// One line per suggestion: what to do, and why.
    public static func lines(_ suggestions: [JSON]) -> [String] {
        suggestions.map { s in
            let text = s["text"]?.stringValue.map { s["kind"]?.stringValue == "quote" ? "“\($0)” — \(s["book_title"]?.stringValue ?? "")" : $0 }
            return (text ?? "(hidden)") + " (" + (s["reason"]?.stringValue ?? "") + ")"
        }
    }
}
