// DOCX (WordprocessingML): paragraphs and tables (cells joined with " | ", a
// row per line). Headings come from styles.xml: a style named "heading N" or
// "Title", or with an outline level (own or inherited through basedOn), or a
// paragraph's own outline level; so localized style ids work. Pages come from
// explicit page breaks and Word's lastRenderedPageBreak marks when present,
// else they are estimated (headings start sections). Title and authors come
// from docProps/core.xml.

enum DOCXParser {
    struct Style { var name: String; var outlineLevel: Int?; var basedOn: String? }

    static func parse(_ bytes: [UInt8], options: ParseOptions) throws(ParseError) -> ParsedBook {
        try parse(InputBytes(bytes), options: options)
    }

    static func parse(_ bytes: InputBytes, options: ParseOptions) throws(ParseError) -> ParsedBook {
        let zip = try ZipArchive(bytes)
        var book = ParsedBook(format: .docx)

        // The main part: from the package relationships, else the usual path.
        var documentPath = "word/document.xml"
        if let rels = zip.entry("_rels/.rels") {
            let stream = try XMLStream(try zip.read(rels, limit: 1 << 20), name: "_rels/.rels")
            while let kind = try stream.next() {
                if kind == .start && stream.isNamed("Relationship"), let type = stream.attribute("Type"),
                   type.hasSuffix("/officeDocument"), let target = stream.attribute("Target") {
                    documentPath = EPUBParser.resolve(target, from: "")
                }
            }
        }
        guard let documentEntry = zip.entry(documentPath) else { throw ParseError("not a Word document: '\(documentPath)' is missing") }

        // Metadata.
        if let core = zip.entry("docProps/core.xml") {
            let stream = try XMLStream(try zip.read(core, limit: 4 << 20), name: "docProps/core.xml")
            while let kind = try stream.next() {
                guard kind == .start else { continue }
                if stream.isNamed("title") { book.title = try stream.elementText().collapsedWhitespace }
                else if stream.isNamed("creator") {
                    let creators = try stream.elementText()
                    book.authors += creators.split(separator: ";").map { String($0).collapsedWhitespace }.filter { !$0.isEmpty }
                } else if stream.isNamed("language") {
                    let language = try stream.elementText().collapsedWhitespace
                    if !language.isEmpty { book.language = language }
                }
            }
        }

        // Styles: heading levels by name and outline level.
        var styles: [String: Style] = [:]
        let directory = EPUBParser.directory(of: documentPath)
        if let stylesEntry = zip.entry(directory + "styles.xml") {
            let stream = try XMLStream(try zip.read(stylesEntry, limit: 32 << 20), name: "styles.xml")
            var current: String? = nil
            while let kind = try stream.next() {
                if kind == .end && stream.isNamed("style") { current = nil; continue }
                guard kind == .start else { continue }
                if stream.isNamed("style") {
                    current = stream.attribute("styleId")
                    if let id = current { styles[id] = Style(name: "", outlineLevel: nil, basedOn: nil) }
                    if stream.isEmptyElement { current = nil }
                } else if let id = current {
                    if stream.isNamed("name") { styles[id]?.name = stream.attribute("val") ?? "" }
                    else if stream.isNamed("basedOn") { styles[id]?.basedOn = stream.attribute("val") }
                    else if stream.isNamed("outlineLvl"), let v = stream.attribute("val").flatMap({ Int($0) }) { styles[id]?.outlineLevel = v }
                }
            }
        }
        var headingLevels: [String: Int] = [:]
        for id in styles.keys {
            var seen = Set<String>()
            var cursor: String? = id
            while let c = cursor, let style = styles[c], !seen.contains(c) {
                seen.insert(c)
                let name = style.name.lowercased()
                if name == "title" { headingLevels[id] = 1; break }
                if name.hasPrefix("heading "), let n = Int(name.dropFirst(8)), (1...9).contains(n) { headingLevels[id] = n; break }
                if let level = style.outlineLevel, level < 9 { headingLevels[id] = level + 1; break }
                cursor = style.basedOn
            }
        }

        // The body.
        try ZipArchive.checkTextSize([documentEntry] + ["footnotes.xml", "endnotes.xml"].compactMap { zip.entry(directory + $0) },
                                     what: "document's text (its body and notes)")
        let stream = try XMLStream(try zip.read(documentEntry), name: documentPath)
        var text: [UInt8] = []
        var pendingBreak = 0, pendingSpace = false, pendingCell = false
        var breaks: [Int] = []
        var renderedBreaks = 0
        var headings: [(offset: Int, level: Int, title: String)] = []
        var paragraphDepth = 0
        var paragraphStart = 0
        var paragraphLevel: Int? = nil
        var inText = false
        var skipDepth = 0
        var tableDepth = 0
        var cellIndex: [Int] = []
        var cellParagraphs = 0
        func flushPending() {
            if pendingBreak > 0 || pendingSpace || pendingCell {
                if !text.isEmpty {
                    if pendingBreak == 2 { text += [0x0A, 0x0A] } else if pendingBreak == 1 { text.append(0x0A) }
                    else if pendingCell { text += [0x20, 0x7C, 0x20] } else { text.append(0x20) }
                }
                pendingBreak = 0; pendingSpace = false; pendingCell = false
            }
        }
        func pageBreak() {
            if breaks.last != text.count { breaks.append(text.count) }
            pendingBreak = max(pendingBreak, 1)
        }
        func walk(_ stream: XMLStream) throws(ParseError) {
        while let kind = try stream.next() {
            if skipDepth > 0 {
                if stream.isNamed("Fallback") || stream.isNamed("delText") || stream.isNamed("instrText") {
                    if kind == .start && !stream.isEmptyElement { skipDepth += 1 } else if kind == .end { skipDepth -= 1 }
                }
                continue
            }
            switch kind {
            case .text:
                if inText {
                    flushPending()
                    stream.appendValue(to: &text)
                }
            case .start:
                guard let name = Optional(stream.localName) else { continue }
                switch name {
                case "t": inText = !stream.isEmptyElement
                case "p":
                    if paragraphDepth == 0 {
                        if tableDepth > 0 {
                            if cellParagraphs > 0 { pendingSpace = true }
                            cellParagraphs += 1
                        } else {
                            pendingBreak = 2
                        }
                        paragraphStart = -1
                        paragraphLevel = nil
                    } else { pendingSpace = true }
                    if !stream.isEmptyElement { paragraphDepth += 1 }
                case "pStyle":
                    if paragraphDepth == 1, tableDepth == 0, let id = stream.attribute("val"), let level = headingLevels[id] { paragraphLevel = level }
                case "outlineLvl":
                    if paragraphDepth == 1, tableDepth == 0, let v = stream.attribute("val").flatMap({ Int($0) }), v < 9 { paragraphLevel = v + 1 }
                case "pageBreakBefore":
                    if stream.attribute("val").map({ $0 != "0" && $0 != "false" }) ?? true { pageBreak() }
                case "br":
                    if stream.attribute("type") == "page" { pageBreak() } else if stream.attribute("type") != "column" { pendingBreak = max(pendingBreak, 1) }
                case "lastRenderedPageBreak":
                    renderedBreaks += 1
                    pageBreak()
                case "tab": pendingSpace = true
                case "cr": pendingBreak = max(pendingBreak, 1)
                case "noBreakHyphen": flushPending(); text.append(UInt8(ascii: "-"))
                case "Fallback", "delText", "instrText": if !stream.isEmptyElement { skipDepth = 1 }
                case "tbl":
                    if tableDepth == 0 { pendingBreak = 2 }
                    tableDepth += 1
                case "tr":
                    if tableDepth == 1 { pendingBreak = max(pendingBreak, 1); cellIndex = [0] }
                case "tc":
                    if tableDepth == 1 {
                        if (cellIndex.first ?? 0) > 0 { pendingCell = true }
                        cellIndex = [(cellIndex.first ?? 0) + 1]
                        cellParagraphs = 0
                    }
                default: break
                }
                if paragraphStart < 0 && paragraphDepth == 1 && name == "t" { paragraphStart = -2 }
            case .end:
                switch stream.localName {
                case "t": inText = false
                case "p":
                    paragraphDepth -= 1
                    if paragraphDepth == 0 && tableDepth == 0 {
                        if let level = paragraphLevel {
                            // The heading's text is the paragraph just written.
                            var start = text.count
                            while start > 0 && text[start - 1] != 0x0A { start -= 1 }
                            let title = String(decoding: text[start...], as: UTF8.self).collapsedWhitespace
                            if !title.isEmpty { headings.append((start, level, title)) }
                        }
                        pendingBreak = 2
                    }
                case "tbl":
                    tableDepth -= 1
                    if tableDepth == 0 { pendingBreak = 2 }
                default: break
                }
            case .other: break
            }
        }
        }
        try walk(stream)
        // Footnotes and endnotes follow the body, so their words are not lost.
        for part in ["footnotes.xml", "endnotes.xml"] {
            guard let entry = zip.entry(directory + part) else { continue }
            pendingBreak = 2
            try walk(try XMLStream(try zip.read(entry), name: directory + part))
        }

        if book.title?.isEmpty ?? true { book.title = headings.first(where: { $0.level == 1 })?.title }
        let target = options.pageCharacters
        if breaks.isEmpty {
            book.pages = Pagination.pages(sections: Sectioning.split(text, headings: headings), target: target)
            return book
        }
        // Pages between breaks; without Word's rendered breaks, long stretches are subdivided.
        var sectionIndex: Int? = nil
        var sectionTitle: String? = nil
        var sectionLevel = 6
        for level in 1...6 where headings.filter({ $0.level <= level }).count >= 2 { sectionLevel = level; break }
        let sectionStarts = headings.filter { $0.level <= sectionLevel }
        var nextHeading = 0
        var count = -1
        func section(at offset: Int) {
            while nextHeading < sectionStarts.count && sectionStarts[nextHeading].offset <= offset {
                sectionTitle = sectionStarts[nextHeading].title
                nextHeading += 1
            }
            let index = nextHeading + (sectionStarts.first.map { $0.offset > 0 ? 0 : -1 } ?? 0)
            if index != count { count = index }
            sectionIndex = sectionStarts.isEmpty ? nil : max(index, 0)
        }
        let bounds = [0] + breaks + [text.count]
        for i in 0..<(bounds.count - 1) {
            let slice = Array(text[bounds[i]..<bounds[i + 1]])
            let ranges = renderedBreaks > 0 ? [EPUBParser.trimmedRange(slice)].compactMap { $0 } : Pagination.split(slice, target: target)
            for range in ranges {
                section(at: bounds[i] + range.lowerBound)
                book.pages.append(ParsedPage(sectionIndex: sectionIndex, sectionTitle: sectionTitle,
                                             text: String(decoding: slice[range], as: UTF8.self)))
            }
        }
        return book
    }
}

extension EPUBParser {
    static func trimmedRange(_ bytes: [UInt8]) -> Range<Int>? {
        var s = 0, e = bytes.count
        while s < e && Pagination.isSpace(bytes[s]) { s += 1 }
        while e > s && Pagination.isSpace(bytes[e - 1]) { e -= 1 }
        return s < e ? s..<e : nil
    }
}
