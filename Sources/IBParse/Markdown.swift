// Markdown through cmark-gfm (tables, strikethrough, autolinks): the tree is
// walked to plain text with paragraph breaks; a hard line break is a line
// break (it separates words), a soft break a space; headings start sections;
// images' alt text and raw HTML tags are dropped. YAML front matter gives the
// title and authors; pandoc's attribute blocks ({#id .class}) and fenced-div
// markers (:::) are removed first.
import IBCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

enum MarkdownParser {
    static func parse(_ bytes: [UInt8], options: ParseOptions) throws(ParseError) -> ParsedBook {
        var book = ParsedBook(format: .markdown)
        var source = TextParser.normalizeNewlines(try TextParser.decode(bytes, encoding: options.encoding))
        let front = frontMatter(&source)
        book.title = front.title
        book.authors = front.authors
        book.language = front.language
        source = removePandocSyntax(source)

        cmark_gfm_core_extensions_ensure_registered()
        guard let parser = cmark_parser_new(CMARK_OPT_DEFAULT | CMARK_OPT_SMART | CMARK_OPT_FOOTNOTES) else { throw ParseError("cmark could not start") }
        defer { cmark_parser_free(parser) }
        for name in ["table", "strikethrough", "autolink", "tasklist"] {
            if let ext = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, ext) }
        }
        source.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { cmark_parser_feed(parser, $0.baseAddress, $0.count) }
        }
        guard let root = cmark_parser_finish(parser) else { throw ParseError("cmark could not parse the document") }
        defer { cmark_node_free(root) }

        var text: [UInt8] = []
        var pendingBreak = 0, pendingSpace = false, pendingCell = false
        var headings: [(offset: Int, level: Int, title: String)] = []
        var headingStart: Int? = nil, headingLevel = 0
        var skipDepth = 0
        func append(_ p: UnsafePointer<CChar>?) {
            guard let p else { return }
            let count = strlen(p)
            guard count > 0 else { return }
            let chars = UnsafeRawBufferPointer(start: p, count: count)
            if pendingBreak > 0 || pendingSpace || pendingCell {
                if !text.isEmpty {
                    if pendingBreak == 2 { text += [0x0A, 0x0A] } else if pendingBreak == 1 { text.append(0x0A) }
                    else if pendingCell { text += [0x20, 0x7C, 0x20] } else { text.append(0x20) }
                }
                pendingBreak = 0; pendingSpace = false; pendingCell = false
            }
            if headingLevel > 0 && headingStart == nil { headingStart = text.count }
            text.append(contentsOf: chars)
        }
        guard let iter = cmark_iter_new(root) else { throw ParseError("cmark could not start") }
        defer { cmark_iter_free(iter) }
        var cellIndex = 0
        while true {
            let event = cmark_iter_next(iter)
            if event == CMARK_EVENT_DONE { break }
            guard let node = cmark_iter_get_node(iter) else { continue }
            let entering = event == CMARK_EVENT_ENTER
            let type = cmark_node_get_type(node)
            if skipDepth > 0 {
                if type == CMARK_NODE_IMAGE && !entering { skipDepth -= 1 }
                else if type == CMARK_NODE_IMAGE && entering { skipDepth += 1 }
                continue
            }
            switch type {
            case CMARK_NODE_TEXT, CMARK_NODE_CODE:
                append(cmark_node_get_literal(node))
            case CMARK_NODE_SOFTBREAK:
                pendingSpace = true
            case CMARK_NODE_LINEBREAK:
                if pendingBreak < 1 { pendingBreak = 1 }
            case CMARK_NODE_IMAGE:
                if entering { skipDepth = 1 }
            case CMARK_NODE_HTML_INLINE, CMARK_NODE_FOOTNOTE_REFERENCE:
                break
            case CMARK_NODE_CODE_BLOCK:
                pendingBreak = 2
                if let literal = cmark_node_get_literal(node) {
                    var lines = String(cString: literal)
                    while lines.hasSuffix("\n") { lines.removeLast() }
                    lines.withCString { append($0) }
                }
                pendingBreak = 2
            case CMARK_NODE_HTML_BLOCK:
                pendingBreak = 2
                if let literal = cmark_node_get_literal(node) {
                    let stripped = stripTags(String(cString: literal)).collapsedWhitespace
                    if !stripped.isEmpty { stripped.withCString { append($0) } }
                }
                pendingBreak = 2
            case CMARK_NODE_HEADING:
                pendingBreak = 2
                if entering {
                    headingLevel = Int(cmark_node_get_heading_level(node)); headingStart = nil
                } else {
                    if let start = headingStart {
                        let title = String(decoding: text[start...], as: UTF8.self).collapsedWhitespace
                        if !title.isEmpty { headings.append((start, headingLevel, title)) }
                    }
                    headingLevel = 0; headingStart = nil
                }
            default:
                if Int32(bitPattern: type.rawValue) & 0xC000 == CMARK_NODE_TYPE_BLOCK {
                    let name = cmark_node_get_type_string(node).map { String(cString: $0) } ?? ""
                    switch name {
                    case "table_row", "table_header":
                        if pendingBreak < 1 { pendingBreak = 1 }; cellIndex = 0
                    case "table_cell":
                        if entering { if cellIndex > 0 { pendingCell = true }; cellIndex += 1 }
                    default:
                        pendingBreak = 2
                    }
                }
            }
        }
        if book.title == nil { book.title = headings.first(where: { $0.level == 1 })?.title }
        book.pages = Pagination.pages(sections: Sectioning.split(text, headings: headings), target: options.pageCharacters)
        return book
    }

    struct FrontMatter { var title: String?; var authors: [String] = []; var language: String? }

    /// Reads and removes YAML front matter (`---` ... `---` or `...`): title, author(s), language.
    static func frontMatter(_ source: inout [UInt8]) -> FrontMatter {
        var result = FrontMatter()
        guard source.starts(with: Array("---\n".utf8)) else { return result }
        // Only the front matter itself is turned into lines (at most 64 KiB of it).
        var end = 4
        while end < min(source.count, 1 << 16) {
            if source[end - 1] == 0x0A && (source[end...].starts(with: Array("---".utf8)) || source[end...].starts(with: Array("...".utf8))) { end += 4; break }
            end += 1
        }
        let text = String(decoding: source[..<min(end, source.count)], as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
        var consumed = 4
        var key: String? = nil
        var found = false
        while let line = lines.first {
            lines = lines.dropFirst()
            consumed += line.utf8.count + 1
            if line == "---" || line == "..." { found = true; break }
            let trimmed = TextClasses.trim(line, where: TextClasses.isBlank)
            if trimmed.hasPrefix("- "), let key {
                let value = unquote(String(trimmed.dropFirst(2)))
                if key == "author" || key == "authors" || key == "creator" { result.authors.append(value) }
                continue
            }
            if !line.hasPrefix(" "), let colon = line.firstIndex(of: ":") {
                key = String(line[..<colon]).lowercased()
                let value = unquote(TextClasses.trim(line[line.index(after: colon)...], where: TextClasses.isBlank))
                guard !value.isEmpty else { continue }
                switch key {
                case "title": result.title = value
                case "author", "authors", "creator": result.authors += flowSequence(value) ?? [value]
                case "lang", "language": result.language = value
                default: break
                }
            }
        }
        guard found else { return FrontMatter() }
        source.removeFirst(min(consumed, source.count))
        return result
    }

    /// A YAML flow sequence (`[A, "B, Jr."]`): its items, unquoted; nil when `s` is not one.
    static func flowSequence(_ s: String) -> [String]? {
        guard s.hasPrefix("["), s.hasSuffix("]") else { return nil }
        var items: [String] = []
        var current = ""
        var quote: Character? = nil
        for c in s.dropFirst().dropLast() {
            if let q = quote {
                if c == q { quote = nil }
                current.append(c)
            } else if c == "\"" || c == "'" {
                quote = c
                current.append(c)
            } else if c == "," {
                items.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        items.append(current)
        return items.map(unquote).filter { !$0.isEmpty }
    }

    static func unquote(_ s: String) -> String {
        var v = TextClasses.trim(s, where: TextClasses.isBlank)
        if v.count >= 2, (v.hasPrefix("\"") && v.hasSuffix("\"")) || (v.hasPrefix("'") && v.hasSuffix("'")) {
            v = String(v.dropFirst().dropLast())
        }
        return v.replacingAll("\\\"", with: "\"")
    }

    /// Drops pandoc's fenced-div lines (`::: {...}`, `:::`) and attribute blocks (`]{#id .class}`, `){...}`, ` {#id}` on headings).
    static func removePandocSyntax(_ source: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(source.count)
        var i = 0
        let n = source.count
        var lineStart = true
        while i < n {
            let c = source[i]
            if lineStart && c == UInt8(ascii: ":") && i + 2 < n && source[i + 1] == c && source[i + 2] == c {
                while i < n && source[i] != 0x0A { i += 1 }
                continue
            }
            if lineStart && c == UInt8(ascii: "`") && source[i...].starts(with: Array("```{=".utf8)) {
                // A raw block (```{=html} ... ```): markup for another format, dropped.
                while i < n && source[i] != 0x0A { i += 1 }
                while i < n {
                    i += 1
                    if source[i...].starts(with: Array("```".utf8)) { while i < n && source[i] != 0x0A { i += 1 }; break }
                    while i < n && source[i] != 0x0A { i += 1 }
                }
                continue
            }
            if c == UInt8(ascii: "`") {
                // A raw inline (`<abbr>`{=html}): dropped.
                var j = i + 1
                while j < n && j - i < 4000 && source[j] != UInt8(ascii: "`") { j += 1 }
                if j + 2 < n && source[j] == UInt8(ascii: "`") && source[j + 1] == UInt8(ascii: "{") && source[j + 2] == UInt8(ascii: "=") {
                    var k = j + 3
                    while k < n && k - j < 40 && source[k] != UInt8(ascii: "}") { k += 1 }
                    if k < n && source[k] == UInt8(ascii: "}") { i = k + 1; lineStart = false; continue }
                }
            }
            lineStart = c == 0x0A
            if c == UInt8(ascii: "{") && i + 1 < n && (source[i + 1] == UInt8(ascii: "#") || source[i + 1] == UInt8(ascii: "."))
                && i > 0 && (source[i - 1] == UInt8(ascii: "]") || source[i - 1] == UInt8(ascii: ")") || source[i - 1] == 0x20) {
                var j = i + 1
                while j < n && j - i < 2000 && source[j] != UInt8(ascii: "}") && source[j] != UInt8(ascii: "{") { j += 1 }
                if j < n && source[j] == UInt8(ascii: "}") { i = j + 1; continue }
            }
            out.append(c)
            i += 1
        }
        return out
    }

    static func stripTags(_ html: String) -> String {
        var out = ""
        var inTag = false
        for ch in html {
            if ch == "<" { inTag = true; out.append(" ") } else if ch == ">" && inTag { inTag = false } else if !inTag { out.append(ch) }
        }
        return out
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
