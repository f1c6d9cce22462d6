// Plain text for a terminal: column widths that count CJK and full-width
// characters as two and combining marks as none, and the tables and
// key-value lines `list`, `show` and `stats` print when stdout is a terminal.
import IBCore
import IBStore

extension String {
    /// Terminal columns: CJK and full-width characters take two, combining marks none.
    var displayWidth: Int {
        var width = 0
        for s in unicodeScalars {
            let v = s.value
            if s.properties.generalCategory == .nonspacingMark || s.properties.generalCategory == .enclosingMark || v == 0x200B { continue }
            width += TextClasses.isWide(v) ? 2 : 1
        }
        return width
    }

    /// Cut to at most `width` columns, with an ellipsis when cut.
    func truncated(toWidth width: Int) -> String {
        if displayWidth <= width { return self }
        var out = "", used = 0
        for c in self {
            let w = String(c).displayWidth
            if used + w > width - 1 { break }
            out.append(c); used += w
        }
        return out + "…"
    }

    /// Padded with spaces to `width` columns, and always at least one.
    func padded(toWidth width: Int) -> String {
        self + String(repeating: " ", count: max(1, width - displayWidth))
    }
}

enum TextTable {
    /// A plain text table; wide columns (titles) are cut to fit 100 columns.
    static func render(header: [String], rows: [[String]]) -> String {
        var widths = header.map(\.displayWidth)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.displayWidth) } }
        widths[1] = min(widths[1], 48)
        widths[2] = min(widths[2], 24)
        func line(_ cells: [String]) -> String {
            var out = ""
            for (i, cell) in cells.enumerated() {
                let c = cell.truncated(toWidth: widths[i])
                out += i == cells.count - 1 ? c : c.padded(toWidth: widths[i] + 1)
            }
            return out + "\n"
        }
        return line(header) + rows.map(line).joined()
    }

    /// One "key value" line each, the values starting at column `keyWidth`
    /// (a key as long or longer gets one space). Characters are counted, not columns.
    static func keyValueLines(_ pairs: [(String, String)], keyWidth: Int) -> String {
        pairs.map { key, value in
            (key.count >= keyWidth ? key + " " : key + String(repeating: " ", count: keyWidth - key.count)) + value + "\n"
        }.joined()
    }
}
