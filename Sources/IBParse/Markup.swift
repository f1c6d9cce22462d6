// Shared markup helpers over libxml2: a streaming XML reader for package
// files (OPF, NCX, nav, DOCX parts) and a SAX-driven HTML/XHTML text
// extractor. Neither ever expands entities or touches the network: no
// XML_PARSE_NOENT, no XML_PARSE_DTDLOAD, always XML_PARSE_NONET, and any
// DOCTYPE with an internal subset (where entity bombs and external entities
// live) is refused before libxml2 sees the document.
import CXML2
import IBCore
#if canImport(Glibc)
import Glibc
#endif

enum XMLSafety {
    /// Refuses documents whose DOCTYPE carries an internal subset (`<!DOCTYPE x [ ... ]>`).
    static func check(_ bytes: [UInt8], name: String) throws(ParseError) {
        let limit = min(bytes.count, 1 << 16)
        var i = 0
        // Only the prolog (before the root element) can hold a DOCTYPE.
        while i < limit {
            guard bytes[i] == UInt8(ascii: "<") else { i += 1; continue }
            guard i + 1 < limit else { return }
            let next = bytes[i + 1]
            if next == UInt8(ascii: "?") || (next == UInt8(ascii: "!") && i + 3 < limit && bytes[i + 2] == UInt8(ascii: "-")) {
                i += 2; continue  // a processing instruction or comment
            }
            if next == UInt8(ascii: "!") {
                // <!DOCTYPE ...: look for '[' before the closing '>'.
                var j = i + 2
                var quote: UInt8 = 0
                while j < bytes.count {
                    let c = bytes[j]
                    if quote != 0 { if c == quote { quote = 0 } }
                    else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") { quote = c }
                    else if c == UInt8(ascii: "[") {
                        throw ParseError("\(name): XML with a DOCTYPE internal subset (entity declarations) is refused")
                    } else if c == UInt8(ascii: ">") { break }
                    j += 1
                }
                i = j; continue
            }
            return  // the root element
        }
        // A prolog longer than the scan: refuse only if entity declarations appear at all.
        if bytes.count > limit && ByteSearch.contains(Array("<!ENTITY".utf8), in: bytes) {
            throw ParseError("\(name): XML with entity declarations after a long prolog is refused")
        }
    }
}

/// A pull reader over libxml2's xmlTextReader.
final class XMLStream {
    enum Kind { case start, end, text, other }
    private let reader: xmlTextReaderPtr
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    let name: String

    init(_ bytes: [UInt8], name: String) throws(ParseError) {
        try XMLSafety.check(bytes, name: name)
        self.name = name
        buffer = .allocate(capacity: max(bytes.count, 1))
        _ = buffer.initialize(from: bytes)
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
                            | XML_PARSE_NOCDATA.rawValue | XML_PARSE_COMPACT.rawValue)
        guard let r = buffer.withMemoryRebound(to: CChar.self, { xmlReaderForMemory($0.baseAddress, Int32(bytes.count), nil, "UTF-8", options) }) else {
            buffer.deallocate()
            throw ParseError("\(name): cannot read XML")
        }
        reader = r
    }

    deinit {
        xmlFreeTextReader(reader)
        buffer.deallocate()
    }

    private(set) var kind: Kind = .other
    private(set) var isEmptyElement = false

    /// Advances to the next node; nil at the end. Malformed XML throws.
    func next() throws(ParseError) -> Kind? {
        let status = xmlTextReaderRead(reader)
        if status == 0 { return nil }
        if status < 0 { throw ParseError("\(name): malformed XML") }
        switch xmlTextReaderNodeType(reader) {
        case 1: kind = .start; isEmptyElement = xmlTextReaderIsEmptyElement(reader) == 1
        case 15: kind = .end
        case 3, 4, 13, 14: kind = .text
        default: kind = .other
        }
        return kind
    }

    var depth: Int { Int(xmlTextReaderDepth(reader)) }

    /// The element's local name (no prefix).
    var localName: String {
        guard let p = xmlTextReaderConstLocalName(reader) else { return "" }
        return String(cString: p)
    }

    /// The element's local name compared without making a String.
    func isNamed(_ name: StaticString) -> Bool {
        guard let p = xmlTextReaderConstLocalName(reader) else { return false }
        return strcmp(UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self),
                      UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
    }

    var value: String {
        guard let p = xmlTextReaderConstValue(reader) else { return "" }
        return String(cString: p)
    }

    /// Appends a text node's UTF-8 bytes.
    func appendValue(to out: inout [UInt8]) {
        guard let p = xmlTextReaderConstValue(reader) else { return }
        out.append(contentsOf: UnsafeBufferPointer(start: p, count: Int(strlen(UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self)))))
    }

    /// An attribute by local name, whatever its namespace prefix.
    func attribute(_ local: String) -> String? {
        guard xmlTextReaderHasAttributes(reader) == 1 else { return nil }
        var found: String? = nil
        if xmlTextReaderMoveToFirstAttribute(reader) == 1 {
            repeat {
                if let p = xmlTextReaderConstLocalName(reader), String(cString: p) == local {
                    found = value
                    break
                }
            } while xmlTextReaderMoveToNextAttribute(reader) == 1
            xmlTextReaderMoveToElement(reader)
        }
        return found
    }

    /// The text content of the current element (for short elements such as dc:title).
    func elementText() throws(ParseError) -> String {
        if isEmptyElement { return "" }
        let startDepth = depth
        var out: [UInt8] = []
        while let k = try next() {
            if k == .text { appendValue(to: &out) }
            if k == .end && depth == startDepth { break }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Text from HTML or XHTML through libxml2's HTML SAX parser: all visible text,
/// script/style/template/noscript/head dropped (the <title> kept aside), block
/// elements as paragraph breaks, <br> as a line break, table cells joined with
/// " | " and a row per line, white space collapsed outside <pre>.
final class HTMLTextExtractor {
    struct Heading { var offset: Int; var level: Int; var text: String }

    private(set) var text: [UInt8] = []
    private(set) var title = ""
    private(set) var authors: [String] = []
    private(set) var language: String?
    private(set) var headings: [Heading] = []
    /// Byte offsets in `text` of elements with an id (for EPUB page-list and nav targets).
    private(set) var anchors: [String: Int] = [:]
    var collectAnchors = false
    /// Set to collect diaries, entries, letters and datelines from the markup (EPUB).
    var markupUnits: MarkupUnitCollector?

    private var skipDepth = 0
    /// Inside a note reference (NoteReference): its number is not the text's.
    private var inNoteref = false
    private var preDepth = 0
    private var inTitle = false
    private var inHead = false
    private var titleBytes: [UInt8] = []
    private var pendingBreak = 0      // 0 none, 1 line, 2 paragraph
    private var pendingSpace = false
    private var pendingCellSeparator = false
    private var headingLevel = 0
    private var headingStart: Int?
    private var cellInRow = 0

    enum Tag { case block, skip, br, pre, td, tr, head, title, heading(Int), meta, html, other }

    static let tags: [String: Tag] = {
        var t: [String: Tag] = [:]
        for name in ["address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dialog", "dir",
                     "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup", "hr",
                     "li", "main", "menu", "nav", "ol", "p", "section", "summary", "table", "tbody", "thead", "tfoot",
                     "ul", "caption", "legend", "frameset", "noframes", "option", "blockquote", "aside", "h", "img"] {
            t[name] = .block
        }
        t["img"] = .other
        for name in ["script", "style", "template", "noscript", "svg", "object", "iframe", "button", "select", "textarea"] { t[name] = .skip }
        t["br"] = .br; t["pre"] = .pre; t["td"] = .td; t["th"] = .td; t["tr"] = .tr
        t["head"] = .head; t["title"] = .title; t["meta"] = .meta; t["html"] = .html
        for level in 1...6 { t["h\(level)"] = .heading(level) }
        return t
    }()

    /// Parses `bytes`. `utf8` forces UTF-8 (else libxml2 reads <meta charset>).
    func parse(_ bytes: [UInt8], name: String) throws(ParseError) {
        try XMLSafety.check(bytes, name: name)
        var sax = htmlSAXHandler()
        sax.startElement = { ctx, name, attrs in
            guard let ctx, let name else { return }
            Unmanaged<HTMLTextExtractor>.fromOpaque(ctx).takeUnretainedValue().start(name, attrs)
        }
        sax.endElement = { ctx, name in
            guard let ctx, let name else { return }
            Unmanaged<HTMLTextExtractor>.fromOpaque(ctx).takeUnretainedValue().end(name)
        }
        let characters: charactersSAXFunc = { ctx, ch, len in
            guard let ctx, let ch, len > 0 else { return }
            Unmanaged<HTMLTextExtractor>.fromOpaque(ctx).takeUnretainedValue().characters(UnsafeBufferPointer(start: ch, count: Int(len)))
        }
        sax.characters = characters
        sax.ignorableWhitespace = characters
        let encoding: String? = TextParser.firstInvalidUTF8(bytes) == nil ? "UTF-8" : nil
        let me = Unmanaged.passUnretained(self).toOpaque()
        let ctxt: htmlParserCtxtPtr? = withUnsafeMutablePointer(to: &sax) { saxPointer in
            if let encoding {
                return htmlCreatePushParserCtxt(saxPointer, me, nil, 0, nil, xmlParseCharEncoding(encoding))
            }
            // Let libxml2 find the encoding from the first bytes (<meta charset>).
            return bytes.withUnsafeBufferPointer { b in
                b.withMemoryRebound(to: CChar.self) {
                    htmlCreatePushParserCtxt(saxPointer, me, $0.baseAddress, Int32(min(b.count, 4)), nil, XML_CHAR_ENCODING_NONE)
                }
            }
        }
        guard let ctxt else { throw ParseError("\(name): cannot start the HTML parser") }
        defer { htmlFreeParserCtxt(ctxt) }
        _ = htmlCtxtUseOptions(ctxt, Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
                                          | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NOBLANKS.rawValue * 0))
        let start = encoding == nil ? min(bytes.count, 4) : 0
        bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { c in
                var offset = start
                let step = 1 << 18
                while offset < c.count {
                    let n = min(step, c.count - offset)
                    _ = htmlParseChunk(ctxt, c.baseAddress! + offset, Int32(n), 0)
                    offset += n
                }
                _ = htmlParseChunk(ctxt, nil, 0, 1)
            }
        }
        title = String(decoding: titleBytes, as: UTF8.self).collapsedWhitespace
    }

    /// A link to a note, as EPUB 3 and DPUB-ARIA mark it (epub:type="noteref",
    /// role="doc-noteref"): a superscript number set against the word it
    /// annotates ("the King's baker's<a>2956</a> house", "Rusticus<a>6</a>").
    /// Kept, it glues to that word ("Rusticus6", "Virginalls2961"), which full
    /// text then cannot find and the model reads as another word; an annotated
    /// edition marks its names, places and rare things, the very words a
    /// question recalls. The note itself stays where the book keeps it.
    static func isNoteref(_ attrs: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) -> Bool {
        guard var p = attrs else { return false }
        while let key = p.pointee {
            if let value = (p + 1).pointee {
                let v = UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self)
                if strcmp(key, "epub:type") == 0, strstr(v, "noteref") != nil { return true }
                if strcmp(key, "role") == 0, strcmp(v, "doc-noteref") == 0 { return true }
            }
            p += 2
        }
        return false
    }

    private func attributes(_ attrs: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, _ body: (String, String) -> Void) {
        guard var p = attrs else { return }
        while let key = p.pointee {
            let value = (p + 1).pointee.map { String(cString: $0) } ?? ""
            body(String(cString: key), value)
            p += 2
        }
    }

    private func start(_ rawName: UnsafePointer<xmlChar>, _ attrs: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        let name = String(cString: rawName)
        let tag = Self.tags[name] ?? .other
        if collectAnchors && skipDepth == 0 {
            attributes(attrs) { key, value in
                if key == "id" && anchors[value] == nil { anchors[value] = text.count }
            }
        }
        if skipDepth > 0 {
            if case .skip = tag { skipDepth += 1 }
            return
        }
        if inNoteref { return }
        if name == "a" && Self.isNoteref(attrs) { inNoteref = true; return }
        if let markupUnits {
            // Only two attributes matter: compared as C strings, not made into Strings.
            var epubType: String?, datetime: String?
            if var p = attrs {
                while let key = p.pointee {
                    if let value = (p + 1).pointee {
                        if strcmp(key, "epub:type") == 0 { epubType = String(cString: value) }
                        else if strcmp(key, "datetime") == 0 { datetime = String(cString: value) }
                    }
                    p += 2
                }
            }
            markupUnits.start(name, epubType: epubType, datetime: datetime, at: text.count)
        }
        switch tag {
        case .skip: skipDepth = 1
        case .head: inHead = true
        case .title: if inHead || title.isEmpty { inTitle = true }
        case .html:
            attributes(attrs) { key, value in if (key == "lang" || key == "xml:lang") && language == nil && !value.isEmpty { language = value } }
        case .meta:
            var isAuthor = false, content = ""
            attributes(attrs) { key, value in
                if key == "name" && value.lowercased() == "author" { isAuthor = true }
                if key == "content" { content = value }
            }
            if isAuthor && !content.isEmpty { authors.append(content) }
        case .block: pendingBreak = 2
        case .heading(let level):
            pendingBreak = 2
            if !inHead { headingLevel = level; headingStart = nil }
        case .pre: pendingBreak = 2; preDepth += 1
        case .br: if pendingBreak < 1 { pendingBreak = 1 }; pendingSpace = false
        case .tr: pendingBreak = max(pendingBreak, 1); cellInRow = 0
        case .td:
            if cellInRow > 0 { pendingCellSeparator = true }
            cellInRow += 1
        case .other: break
        }
    }

    private func end(_ rawName: UnsafePointer<xmlChar>) {
        let name = String(cString: rawName)
        let tag = Self.tags[name] ?? .other
        if skipDepth > 0 {
            if case .skip = tag { skipDepth -= 1 }
            return
        }
        if inNoteref {
            if name == "a" { inNoteref = false }
            return
        }
        markupUnits?.end(name, at: text.count)
        switch tag {
        case .head: inHead = false; inTitle = false
        case .title: inTitle = false
        case .block: pendingBreak = 2
        case .heading:
            if headingLevel > 0, let start = headingStart {
                let heading = String(decoding: text[start...], as: UTF8.self).collapsedWhitespace
                if !heading.isEmpty { headings.append(Heading(offset: start, level: headingLevel, text: heading)) }
            }
            headingLevel = 0; headingStart = nil
            pendingBreak = 2
        case .pre: pendingBreak = 2; preDepth = max(0, preDepth - 1)
        case .tr: pendingBreak = max(pendingBreak, 1); cellInRow = 0
        default: break
        }
    }

    private func characters(_ chars: UnsafeBufferPointer<UInt8>) {
        if skipDepth > 0 || inNoteref { return }
        if inTitle { titleBytes.append(contentsOf: chars); return }
        if inHead { return }
        if preDepth > 0 {
            for c in chars {
                if c == 0x0A || c == 0x0D {
                    if c == 0x0D { continue }
                    if !text.isEmpty && pendingBreak < 1 { pendingBreak = 1 }
                    pendingSpace = false
                } else { emit(c) }
            }
            return
        }
        for c in chars {
            if c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D || c == 0x0C {
                pendingSpace = true
            } else {
                emit(c)
            }
        }
    }

    @inline(__always) private func emit(_ c: UInt8) {
        if pendingBreak > 0 || pendingSpace || pendingCellSeparator {
            if !text.isEmpty {
                if pendingBreak == 2 { text.append(0x0A); text.append(0x0A) }
                else if pendingBreak == 1 { text.append(0x0A) }
                else if pendingCellSeparator { text.append(contentsOf: [0x20, 0x7C, 0x20]) }
                else { text.append(0x20) }
            }
            pendingBreak = 0; pendingSpace = false; pendingCellSeparator = false
        }
        if headingLevel > 0 && headingStart == nil { headingStart = text.count }
        text.append(c)
    }
}
