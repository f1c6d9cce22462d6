// `ib-capture status --format svg|png`: the status record as a widget picture:
// the current book with its ring, pages today, the streak, the quote of the
// day (hidden under --private) and the first suggestion.
import IBCore

public enum StatusPicture {
    public static let defaultSize = (width: 900, height: 420)

    public static func picture(_ s: JSON, size: (width: Int, height: Int)) -> Picture {
        var p = Picture(width: size.width, height: size.height)
        let W = Double(size.width), H = Double(size.height)
        let unit = min(W / 900, H / 420)
        p.add(.rect(x: 0, y: 0, w: W, h: H, fill: RGB(0xFAF7F0)))
        let pad = 28 * unit
        let r = min(H * 0.28, W * 0.14)
        let cx = pad + r * 1.15, cy = pad + r * 1.15
        let book = s["book"].flatMap { $0.isNull ? nil : $0 }
        let percent = book?["percent"]?.doubleValue
        Charts.ring(&p, cx: cx, cy: cy, r: r, fraction: percent.map { $0 / 100 }, page: book?["page"]?.intValue ?? 0)
        let left = cx + r * 1.45, right = W - pad
        var y = pad + 34 * unit
        let face = Charts.sans
        if let book {
            p.add(Charts.text(book["title"]?.stringValue ?? "", left, y, 32 * unit, face: Charts.bold, maxWidth: right - left))
            y += 36 * unit
            var where_ = "page \(book["page"]?.intValue ?? 0)"
            if let count = book["page_count"]?.intValue { where_ += " of \(count)" }
            p.add(Charts.text(where_, left, y, 22 * unit, face: face, color: Charts.muted, maxWidth: right - left))
        } else {
            p.add(Charts.text("No book being read", left, y, 30 * unit, face: Charts.bold, maxWidth: right - left))
        }
        y += 44 * unit
        let today = s["pages_today"]?.intValue ?? 0, streak = s["streak_days"]?.intValue ?? 0
        p.add(Charts.text("Today: \(today) page\(today == 1 ? "" : "s")", left, y, 24 * unit, face: face, maxWidth: right - left))
        y += 34 * unit
        p.add(Charts.text("Streak: \(streak) day\(streak == 1 ? "" : "s")", left, y, 24 * unit, face: face, maxWidth: right - left))
        // The first suggestion on the last line; the quote (or that it is hidden) above it, under the ring.
        let suggestion = (s["suggestions"]?.arrayValue ?? []).first(where: { $0["kind"]?.stringValue != "quote" })
            .flatMap { Suggestions.lines([$0]).first }
        let bottom = suggestion == nil ? H - pad * 0.6 : H - pad * 0.6 - 30 * unit
        if let suggestion {
            p.add(Charts.text("→ " + suggestion, pad, H - pad * 0.6, 18 * unit, face: face, color: Charts.accent, maxWidth: W - 2 * pad))
        }
        var qy = max(cy + r * 1.15 + 34 * unit, y + 44 * unit)
        if let q = s["quote"], !q.isNull {
            let size = 22 * unit
            if q["hidden"]?.boolValue == true {
                p.add(Charts.text("Quote hidden (private)", pad, qy, size, face: face, color: Charts.muted))
                qy += size * 1.5
            } else {
                let text = q["text"]?.stringValue ?? ""
                let clipped = text.count > 160 ? String(text.prefix(159)) + "…" : text
                let lines = LineBreaking.balanced(LineBreaking.pieces("“" + clipped + "”"), measure: (W - 2 * pad) / size)
                let room = max(1, Int((bottom - qy - size) / (size * 1.35)))
                var shown = Array(lines.prefix(min(3, room)))
                if shown.count < lines.count { shown[shown.count - 1] += "…" }
                for line in shown {
                    p.add(Charts.text(line, pad, qy, size, face: FontFace(families: ["DejaVu Serif", "Noto Serif CJK SC"]), maxWidth: W - 2 * pad))
                    qy += size * 1.35
                }
                p.add(Charts.text("— " + (q["book_title"]?.stringValue ?? ""), W - pad, qy - size * 0.2, size * 0.8, face: face, color: Charts.muted, anchor: .end))
            }
        }
        return p
    }
}
