// Text the reader captured, made safe to print on a terminal: a quote of binary
// garbage or raw ESC sequences must not move the cursor, recolour the screen or
// retitle the window when `status` or `export` prints it. Control characters
// become visible escapes (\x1B, \u{9B}); newlines and tabs stay where layout
// needs them. JSON output never goes through here: it keeps the exact text.

enum TerminalText {
    /// `text` with every control character (C0 but \n and \t, DEL, C1, and the
    /// bidirectional overrides that reorder what is shown) written as an escape.
    static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for s in text.unicodeScalars {
            if isUnsafe(s) {
                let hex = String(s.value, radix: 16, uppercase: true)
                out += s.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{" + hex + "}"
            } else {
                out.unicodeScalars.append(s)
            }
        }
        return out
    }

    static func isUnsafe(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x0A, 0x09: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
