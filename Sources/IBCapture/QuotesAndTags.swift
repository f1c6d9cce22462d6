// Quoted spans and #tags: both are found by walking the line past quotation
// marks, so a '#' or a language cue inside a quotation does not count.
import IBCore

extension CaptureParser {
    // MARK: tags

    /// `#word` tags outside quoted text; returns the tags (lower case, in order) and the line without them.
    static func extractTags(_ s: String) -> ([String], String) {
        let chars = Array(s)
        var tags: [String] = []
        var out: [Character] = []
        var i = 0
        var quoteClose: Character? = nil
        while i < chars.count {
            let c = chars[i]
            if let close = quoteClose {
                out.append(c)
                if c == close { quoteClose = nil }
                i += 1
                continue
            }
            if let close = quotePairs[c], !(c == "'" ) {
                quoteClose = close
                out.append(c)
                i += 1
                continue
            }
            if (c == "#" || c == "＃"), i + 1 < chars.count, chars[i + 1].isLetter,
               i == 0 || TextClasses.isSpace(chars[i - 1]) || chars[i - 1] == "," || chars[i - 1] == "，" || TextClasses.isHan(chars[i - 1])
                || "\"”」』»’)）。".contains(chars[i - 1]) {
                var j = i + 1
                var tag = ""
                while j < chars.count, chars[j].isLetter || chars[j].isNumber || chars[j] == "_" || chars[j] == "-" {
                    tag.append(chars[j]); j += 1
                }
                if j < chars.count, chars[j] == "#" { j += 1 }  // Weibo style #标签#
                while tag.hasSuffix("-") { tag.removeLast() }
                let t = tag.lowercased()
                if !tags.contains(t) { tags.append(t) }
                // Drop one adjoining space so the text reads naturally.
                if j < chars.count, TextClasses.isSpace(chars[j]), out.last.map(TextClasses.isSpace) ?? true { j += 1 }
                i = j
                continue
            }
            out.append(c)
            i += 1
        }
        var text = String(out)
        while text.contains("  ") { text = text.replacingAll("  ", " ") }
        return (tags, TextClasses.trim(text))
    }

    static let quotePairs: [Character: Character] = [
        "\"": "\"", "“": "”", "„": "“", "«": "»", "「": "」", "『": "』", "‘": "’", "'": "'", "”": "”", "〝": "〞",
    ]

    /// The line without quoted spans (to decide the language from the reader's own words).
    static func outsideQuotes(_ s: String) -> String {
        var out = ""
        var close: Character? = nil
        for c in s {
            if let cl = close { if c == cl { close = nil }; continue }
            if let cl = quotePairs[c], c != "'" && c != "‘" { close = cl; continue }
            out.append(c)
        }
        return out
    }

    // MARK: quoted text

    /// Finds the first quoted span: (before, inside, after), or nil.
    static func quoted(_ s: String) -> (before: String, inside: String, after: String)? {
        let chars = Array(s)
        for (i, c) in chars.enumerated() {
            guard let close = quotePairs[c] else { continue }
            // A straight or curly apostrophe only opens a quote at the start or after a space/colon.
            if c == "'" || c == "‘" {
                if i > 0 && !(TextClasses.isSpace(chars[i - 1]) || chars[i - 1] == ":") { continue }
            }
            var j: Int? = nil
            var k = chars.count - 1
            // The closing mark: the last one in the line (quotes may contain the same mark inside).
            while k > i {
                if chars[k] == close || (close == "”" && chars[k] == "\"") || (close == "\"" && chars[k] == "”") { j = k; break }
                k -= 1
            }
            if c == "'" || c == "‘" {
                guard let jj = j, jj + 1 == chars.count || !chars[jj + 1].isLetter else { continue }
            }
            let before = String(chars[..<i])
            if let j {
                return (before, String(chars[(i + 1)..<j]), String(chars[(j + 1)...]))
            }
            // Unclosed: to the end.
            return (before, String(chars[(i + 1)...]), "")
        }
        return nil
    }
}
