// A quote card: the quote in balanced lines, its opening mark hung in the
// margin, the largest size that fits (a long quote steps down until it does; a
// short one is set large and centred), and the attribution: title, author and
// page (the printed label when the book has one).
import IBStore

public enum CardStyle: String, CaseIterable, Sendable {
    case minimal, serif, modern, literary

    var background: RGB {
        switch self {
        case .minimal: RGB(0xFFFFFF)
        case .serif: RGB(0xF7F1E3)
        case .modern: RGB(0x17213A)
        case .literary: RGB(0xFBF8EF)
        }
    }
    var ink: RGB {
        switch self {
        case .minimal: RGB(0x1A1A1A)
        case .serif: RGB(0x2B2118)
        case .modern: RGB(0xF4F4F4)
        case .literary: RGB(0x3B2F2F)
        }
    }
    var muted: RGB {
        switch self {
        case .minimal: RGB(0x5F5F5F)
        case .serif: RGB(0x6E5C45)
        case .modern: RGB(0xB8C0D6)
        case .literary: RGB(0x6B5444)
        }
    }
    var accent: RGB {
        switch self {
        case .minimal: RGB(0x9A9A9A)
        case .serif: RGB(0xA0522D)
        case .modern: RGB(0xE94560)
        case .literary: RGB(0x8B6B3E)
        }
    }
    var serifFace: Bool { self == .serif || self == .literary }

    /// The faces for the quote: a Latin family first (a CJK one first when the text is mostly CJK).
    func face(cjk: Bool, bold: Bool = false) -> FontFace {
        let latin = serifFace ? (self == .literary ? ["P052", "DejaVu Serif"] : ["DejaVu Serif"]) : ["DejaVu Sans"]
        let han = serifFace ? ["Noto Serif CJK SC"] : ["Noto Sans CJK SC"]
        return FontFace(families: cjk ? han + latin : latin + han, bold: bold || (self == .modern && !cjk), italic: false)
    }

    /// How wide the Latin face sets compared with the per-character estimate (DejaVu's widths).
    func widthFactor(cjk: Bool) -> Double { cjk ? 1.0 : self == .literary ? 0.87 : self == .modern ? 1.1 : 1.0 }

    /// Attribution centred under the quote (the book styles) or set flush with it.
    var centredAttribution: Bool { serifFace }
}

public struct QuoteCard {
    public var text: String
    public var title: String
    public var authors: [String]
    public var pageLabel: String?

    public init(text: String, title: String, authors: [String], pageLabel: String?) {
        self.text = text; self.title = title; self.authors = authors; self.pageLabel = pageLabel
    }

    public init(_ q: CardQuote) {
        self.init(text: q.text, title: q.bookTitle, authors: q.authors, pageLabel: q.pageLabel ?? q.page.map(String.init))
    }

    /// The quote without quote marks around it (the card sets its own) and with runs of white space as one.
    var body: String {
        var s = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        let pairs: [(Character, Character)] = [("\"", "\""), ("“", "”"), ("「", "」"), ("『", "』"), ("'", "'"), ("‘", "’")]
        for (open, close) in pairs where s.count >= 2 && s.first == open && s.last == close {
            s = String(s.dropFirst().dropLast())
            break
        }
        return s
    }

    /// The attribution's lines: "— Title" and "Author · p. 47" (Chinese: "——《书名》" and "作者 · 第47页").
    var attribution: [String] {
        let cjk = LineBreaking.isMostlyCJK(title + body)
        var lines = [cjk ? "——《\(title)》" : "— \(title)"]
        var second: [String] = []
        if !authors.isEmpty { second.append(authors.joined(separator: cjk ? "、" : ", ")) }
        if let label = pageLabel { second.append(cjk && Int(label) != nil ? "第\(label)页" : "p. \(label)") }
        if !second.isEmpty { lines.append(second.joined(separator: " · ")) }
        return lines
    }

    /// The attribution wrapped to `width` pixels at `size` (a long title takes two lines), each
    /// with whether it belongs to the title line (set in the ink, the rest muted).
    func wrappedAttribution(size: Double, width: Double, factor: Double) -> [(text: String, title: Bool)] {
        attribution.enumerated().flatMap { i, line in
            LineBreaking.balanced(LineBreaking.pieces(line), measure: width / (size * factor)).map { ($0, i == 0) }
        }
    }

    public struct Layout: Equatable {
        public var size: Double
        public var lines: [String]
        public var lineHeight: Double
        public var attributionSize: Double
        public var attribution: [String]
        public var attributionFromTitle: Int
    }

    /// The largest type that fits the canvas less its margins, stepping down 6% at a time.
    public func layout(width: Int, height: Int, style: CardStyle = .serif) -> Layout {
        let short = Double(min(width, height))
        let margin = short * 0.1
        let innerWidth = Double(width) - 2 * margin, innerHeight = Double(height) - 2 * margin
        let cjk = LineBreaking.isMostlyCJK(body)
        let factor = style.widthFactor(cjk: cjk)
        var pieces = LineBreaking.pieces(body)
        if pieces.isEmpty { pieces = [LineBreaking.Piece(text: "", width: 0, spaceBefore: false)] }
        pieces[pieces.count - 1].text += "”"
        pieces[pieces.count - 1].width += LineBreaking.advance("”")
        var size = short * 0.085
        while true {
            let lines = LineBreaking.balanced(pieces, measure: innerWidth / (size * factor))
            let lineHeight = size * (cjk ? 1.5 : 1.36)
            let attributionSize = min(max(size * 0.55, short * 0.028), short * 0.04)
            let credit = wrappedAttribution(size: attributionSize, width: innerWidth, factor: factor)
            let attributionHeight = size * 0.8 + Double(credit.count) * attributionSize * 1.45
            let fits = Double(lines.count) * lineHeight + attributionHeight <= innerHeight
                && LineBreaking.widest(lines) * size * factor <= innerWidth
            if fits || size < 8 {
                return Layout(size: size, lines: lines, lineHeight: lineHeight, attributionSize: attributionSize,
                              attribution: credit.map(\.text), attributionFromTitle: credit.filter(\.title).count)
            }
            size *= 0.94
        }
    }

    public func picture(style: CardStyle, width: Int, height: Int) -> Picture {
        var p = Picture(width: width, height: height)
        let W = Double(width), H = Double(height), short = Double(min(width, height))
        let margin = short * 0.1
        let l = layout(width: width, height: height, style: style)
        let cjk = LineBreaking.isMostlyCJK(body)
        let face = style.face(cjk: cjk)
        p.add(.rect(x: 0, y: 0, w: W, h: H, fill: style.background))
        switch style {
        case .modern:
            p.add(.rect(x: 0, y: 0, w: short * 0.025, h: H, fill: style.accent))
        case .literary:
            for inset in [short * 0.035, short * 0.048] {
                let w = inset < short * 0.04 ? short * 0.004 : short * 0.0015
                p.add(.line(x1: inset, y1: inset, x2: W - inset, y2: inset, width: w, color: style.accent))
                p.add(.line(x1: inset, y1: H - inset, x2: W - inset, y2: H - inset, width: w, color: style.accent))
                p.add(.line(x1: inset, y1: inset, x2: inset, y2: H - inset, width: w, color: style.accent))
                p.add(.line(x1: W - inset, y1: inset, x2: W - inset, y2: H - inset, width: w, color: style.accent))
            }
        default: break
        }
        let blockWidth = LineBreaking.widest(l.lines) * l.size * style.widthFactor(cjk: cjk)
        let attributionLines = l.attribution
        let attributionHeight = l.size * 0.8 + Double(attributionLines.count) * l.attributionSize * 1.45
        let total = Double(l.lines.count) * l.lineHeight + attributionHeight
        let left = (W - blockWidth) / 2
        var baseline = (H - total) / 2 + l.size * 1.02
        // The opening mark hangs left of the first line, so the text's left edge stays straight.
        p.add(.text("“", x: left - l.size * 0.04, y: baseline, size: l.size, face: face,
                    color: style == .modern ? style.accent : style.ink, anchor: .end, maxWidth: nil))
        for line in l.lines {
            p.add(.text(line, x: left, y: baseline, size: l.size, face: face, color: style.ink, anchor: .start,
                        maxWidth: W - margin * 0.6 - left))
            baseline += l.lineHeight
        }
        baseline += l.size * 0.8 - l.lineHeight + l.attributionSize * 1.45
        if style == .serif {
            let y = baseline - l.attributionSize * 1.45 - l.size * 0.15
            p.add(.line(x1: W / 2 - short * 0.05, y1: y, x2: W / 2 + short * 0.05, y2: y, width: max(1, short * 0.002), color: style.accent))
            baseline += l.size * 0.1
        }
        let attributionFace = style.face(cjk: LineBreaking.isMostlyCJK(attributionLines.joined()), bold: false)
        // Flush with the quote, unless that would push a long attribution past the margin.
        let creditWidth = LineBreaking.widest(attributionLines) * l.attributionSize * style.widthFactor(cjk: cjk)
        let flush = max(margin, min(left, W - margin - creditWidth))
        for (i, line) in attributionLines.enumerated() {
            let x = style.centredAttribution ? W / 2 : flush
            p.add(.text(line, x: x, y: baseline, size: l.attributionSize,
                        face: FontFace(families: attributionFace.families, bold: i < l.attributionFromTitle && style == .modern, italic: false),
                        color: i < l.attributionFromTitle ? style.ink : style.muted, anchor: style.centredAttribution ? .middle : .start,
                        maxWidth: style.centredAttribution ? W - 2 * margin : W - margin - x))
            baseline += l.attributionSize * 1.45
        }
        return p
    }
}
