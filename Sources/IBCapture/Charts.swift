// Reading charts as pictures: a year calendar of reading days (streak), pages
// per day against the plan's required pace (pages), each active plan's way to
// its date (plan), and a progress ring per book being read (progress).
import IBCore
import IBStore

public enum Charts {
    public enum Kind: String, CaseIterable, Sendable {
        case streak, pages, plan, progress
        var defaultSize: (width: Int, height: Int) {
            switch self {
            case .streak: (1400, 420)
            case .pages: (1200, 600)
            case .plan: (1200, 600)
            case .progress: (1200, 520)
            }
        }
    }

    static let paper = RGB(0xFFFFFF), ink = RGB(0x222222), muted = RGB(0x666666), faint = RGB(0xE6E6E6)
    static let levels = [RGB(0xEBEDF0), RGB(0x9BE9A8), RGB(0x40C463), RGB(0x30A14E), RGB(0x216E39)]
    static let accent = RGB(0x2F6FB0), warning = RGB(0xD9534F)
    static let sans = FontFace(families: ["DejaVu Sans", "Noto Sans CJK SC"])
    static let bold = FontFace(families: ["DejaVu Sans", "Noto Sans CJK SC"], bold: true)

    static func text(_ s: String, _ x: Double, _ y: Double, _ size: Double, face: FontFace = sans, color: RGB = ink,
                     anchor: TextAnchor = .start, maxWidth: Double? = nil) -> Shape {
        .text(s, x: x, y: y, size: size, face: face, color: color, anchor: anchor, maxWidth: maxWidth)
    }

    public static func picture(_ kind: Kind, store: CaptureStore, today: Day, size: (width: Int, height: Int)) throws -> Picture {
        var p = Picture(width: size.width, height: size.height)
        p.add(.rect(x: 0, y: 0, w: Double(size.width), h: Double(size.height), fill: paper))
        switch kind {
        case .streak: try streak(&p, store, today)
        case .pages: try pages(&p, store, today)
        case .plan: try plans(&p, store, today)
        case .progress: try progress(&p, store)
        }
        return p
    }

    /// The last 53 weeks, a column a week (Sunday on top), shaded by pages read.
    static func streak(_ p: inout Picture, _ store: CaptureStore, _ today: Day) throws {
        let perDay = try StatusReport.pagesPerDay(store, today: today)
        let status = try StatusReport.build(store, today: today, privateMode: true)
        let W = Double(p.width), H = Double(p.height)
        let pad = min(W, H) * 0.08
        let title = H * 0.075
        let cell = min((W - 2 * pad) / 53, (H - 2 * pad - title * 2.6) / 7)
        let weekday = (today.serial + 4) % 7  // 1970-01-01 was a Thursday (4); 0 is Sunday
        let firstDay = today.serial - weekday - 52 * 7
        let readDays = perDay.filter { $0.key > today.serial - 366 && $0.key <= today.serial }
        let maxPages = max(1, readDays.values.max() ?? 1)
        p.add(text("Reading days: \(status["streak_days"]?.intValue ?? 0)-day streak, \(readDays.count) days this year", pad, pad + title, title, face: bold))
        let top = pad + title * 2.2
        var lastMonth = -1
        for d in firstDay...today.serial {
            let column = (d - firstDay) / 7, row = (d - firstDay) % 7
            let x = pad + Double(column) * cell, y = top + Double(row) * cell
            let pages = perDay[d] ?? 0
            let level = pages == 0 ? 0 : min(4, 1 + (pages * 4 - 1) / maxPages)
            p.add(.rect(x: x, y: y, w: cell * 0.86, h: cell * 0.86, fill: levels[level], radius: cell * 0.15))
            let month = Day(serial: d).month
            if row == 0 && month != lastMonth && column < 51 {
                p.add(text(monthNames[month - 1], x, top - cell * 0.35, cell * 0.7, color: muted))
                lastMonth = month
            }
        }
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Pages per day for the last 30 days, with the pace the first dated plan now needs.
    static func pages(_ p: inout Picture, _ store: CaptureStore, _ today: Day) throws {
        let perDay = try StatusReport.pagesPerDay(store, today: today)
        let status = try StatusReport.build(store, today: today, privateMode: true)
        let pace = (status["plans"]?.arrayValue ?? []).compactMap { $0["pages_per_day"]?.intValue }.first
        let W = Double(p.width), H = Double(p.height)
        let pad = min(W, H) * 0.08, title = H * 0.06
        p.add(text("Pages per day, last 30 days", pad, pad + title, title, face: bold))
        let days = 30
        let values = (0..<days).map { perDay[today.adding(days: $0 - days + 1).serial] ?? 0 }
        let top = pad + title * 2.2, bottom = H - pad - title * 1.2, left = pad * 1.6, right = W - pad
        let scale = Double(max(values.max() ?? 0, pace ?? 0, 1)) * 1.1
        let slot = (right - left) / Double(days)
        p.add(.line(x1: left, y1: bottom, x2: right, y2: bottom, width: 2, color: muted))
        for (i, v) in values.enumerated() where v > 0 {
            let h = (bottom - top) * Double(v) / scale
            let short = pace.map { v < $0 } ?? false
            p.add(.rect(x: left + Double(i) * slot + slot * 0.12, y: bottom - h, w: slot * 0.76, h: h, fill: short ? warning : accent))
        }
        p.add(text(String(Int((scale / 1.1).rounded())), left - title * 0.3, top + title * 0.4, title * 0.6, color: muted, anchor: .end))
        p.add(text(today.adding(days: 1 - days).description, left, bottom + title * 0.9, title * 0.6, color: muted))
        p.add(text(today.description, right, bottom + title * 0.9, title * 0.6, color: muted, anchor: .end))
        if let pace {
            let y = bottom - (bottom - top) * Double(pace) / scale
            p.add(.line(x1: left, y1: y, x2: right, y2: y, width: 3, color: ink))
            p.add(text("plan: \(pace) pages a day", right, y - title * 0.3, title * 0.6, color: ink, anchor: .end))
        }
    }

    /// Each active plan: how much of it is read, the pace it needs and whether it is on track.
    static func plans(_ p: inout Picture, _ store: CaptureStore, _ today: Day) throws {
        let status = try StatusReport.build(store, today: today, privateMode: true)
        let W = Double(p.width), H = Double(p.height)
        let pad = min(W, H) * 0.08, title = H * 0.06
        p.add(text("Reading plans", pad, pad + title, title, face: bold))
        let plans = status["plans"]?.arrayValue ?? []
        if plans.isEmpty { p.add(text("No active plan", pad, pad + title * 3, title * 0.8, color: muted)); return }
        let row = min((H - pad * 2 - title * 2) / Double(plans.count), title * 3.4)
        var y = pad + title * 2.4
        for plan in plans {
            var read = 0, total = 0
            for b in plan["books"]?.arrayValue ?? [] {
                if let count = b["page_count"]?.intValue { total += count; read += min(count, b["page"]?.intValue ?? 0) }
            }
            let fraction = total > 0 ? Double(read) / Double(total) : 0
            let behind = plan["on_track"]?.boolValue == false
            let size = row * 0.24
            p.add(text(plan["title"]?.stringValue ?? "", pad, y + size, size, maxWidth: W - 2 * pad))
            let barY = y + size * 1.5, barH = size * 0.9
            p.add(.rect(x: pad, y: barY, w: W - 2 * pad, h: barH, fill: faint, radius: barH / 2))
            if fraction > 0 { p.add(.rect(x: pad, y: barY, w: max(barH, (W - 2 * pad) * fraction), h: barH, fill: behind ? warning : accent, radius: barH / 2)) }
            var detail = "\(Int((fraction * 100).rounded()))% read"
            if let due = plan["due"]?.stringValue { detail += ", due \(due)" }
            if let perDay = plan["pages_per_day"]?.intValue { detail += ", \(perDay) pages a day needed" }
            detail += behind ? ", behind" : ", on track"
            p.add(text(detail, pad, barY + barH + size * 1.2, size * 0.85, color: behind ? warning : muted, maxWidth: W - 2 * pad))
            y += row
        }
    }

    /// A ring per book being read: how far through, its title beneath.
    static func progress(_ p: inout Picture, _ store: CaptureStore) throws {
        let W = Double(p.width), H = Double(p.height)
        let pad = min(W, H) * 0.08, title = H * 0.07
        p.add(text("Books in progress", pad, pad + title, title, face: bold))
        var books: [BookSummary] = []
        for s in try store.records.bookStates() where s.state == "reading" {
            if let b = try store.bookRef(id: s.bookID) { books.append(b) }
        }
        if books.isEmpty { p.add(text("Nothing being read", pad, pad + title * 3, title * 0.8, color: muted)); return }
        books = Array(books.prefix(6))
        let slot = (W - 2 * pad) / Double(books.count)
        let r = min(slot * 0.36, (H - pad * 2 - title * 4) * 0.42)
        let cy = pad + title * 2 + r + r * 0.2
        for (i, b) in books.enumerated() {
            let cx = pad + slot * (Double(i) + 0.5)
            ring(&p, cx: cx, cy: cy, r: r, fraction: b.pageCount > 0 ? Double(b.currentPage) / Double(b.pageCount) : nil, page: b.currentPage)
            p.add(text(b.title, cx, cy + r * 1.35 + title * 0.5, max(14, min(title * 0.6, r * 0.3)), anchor: .middle, maxWidth: slot * 0.94))
        }
    }

    /// A progress ring with the percent (or the page, when the count is unknown) in its middle.
    static func ring(_ p: inout Picture, cx: Double, cy: Double, r: Double, fraction: Double?, page: Int, color: RGB = accent) {
        let width = r * 0.2
        p.add(.arc(cx: cx, cy: cy, r: r, from: 0, to: 360, width: width, color: faint))
        if let fraction, fraction > 0 { p.add(.arc(cx: cx, cy: cy, r: r, from: 0, to: 360 * min(1, fraction), width: width, color: color)) }
        let label = fraction.map { "\(Int(($0 * 100).rounded()))%" } ?? "p. \(page)"
        p.add(text(label, cx, cy + r * 0.16, r * 0.45, face: bold, anchor: .middle))
    }
}
