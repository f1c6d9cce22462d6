// EPUB 2 and 3: META-INF/container.xml names the OPF; the OPF gives the
// metadata, the manifest and the spine (reading order). Every XHTML document
// of the spine gives all its text (HTMLTextExtractor). Print page numbers come
// from the EPUB 3 nav page-list or the EPUB 2 NCX pageList when present, else
// pages are estimated per spine document. Each page's section is its spine
// index, titled from the nav/NCX table of contents.
//
// DRM: encryption.xml entries with any algorithm other than font obfuscation
// (IDPF or Adobe), Apple's sinf.xml, or a Readium LCP license mean the content
// is encrypted: `drm_protected`. Font obfuscation alone parses normally.

import IBCore

enum EPUBParser {
    static let fontObfuscation: Set<String> = ["http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"]

    struct ManifestItem { var href: String; var mediaType: String; var properties: String }
    struct NavEntry { var path: String; var fragment: String?; var title: String; var depth: Int }

    static func parse(_ bytes: [UInt8], options: ParseOptions) throws(ParseError) -> ParsedBook {
        try parse(InputBytes(bytes), options: options)
    }

    static func parse(_ bytes: InputBytes, options: ParseOptions) throws(ParseError) -> ParsedBook {
        let zip = try ZipArchive(bytes)
        try checkDRM(zip)

        // container.xml -> the OPF path.
        var opfPath: String?
        let container = try XMLStream(try zip.read("META-INF/container.xml", limit: 1 << 20), name: "META-INF/container.xml")
        while let kind = try container.next() {
            if kind == .start && container.isNamed("rootfile"), let path = container.attribute("full-path") {
                let type = container.attribute("media-type") ?? "application/oebps-package+xml"
                if type == "application/oebps-package+xml" && opfPath == nil { opfPath = path }
            }
        }
        guard let opfPath else { throw ParseError("META-INF/container.xml names no OPF package (rootfile)") }
        let opfDirectory = directory(of: opfPath)

        // The OPF: metadata, manifest, spine.
        var book = ParsedBook(format: .epub)
        var manifest: [String: ManifestItem] = [:]
        var spine: [String] = []
        var ncxID: String?
        let opf = try XMLStream(try zip.read(opfPath, limit: 16 << 20), name: opfPath)
        var inMetadata = false
        while let kind = try opf.next() {
            if kind == .end && opf.isNamed("metadata") { inMetadata = false; continue }
            guard kind == .start else { continue }
            if opf.isNamed("metadata") { inMetadata = !opf.isEmptyElement; continue }
            if inMetadata {
                if opf.isNamed("title") {
                    let title = try opf.elementText().collapsedWhitespace
                    if book.title == nil && !title.isEmpty { book.title = title }
                } else if opf.isNamed("creator") {
                    let role = opf.attribute("role")
                    let name = try opf.elementText().collapsedWhitespace
                    if !name.isEmpty && (role == nil || role == "aut") { book.authors.append(name) }
                } else if opf.isNamed("language") {
                    let language = try opf.elementText().collapsedWhitespace
                    if book.language == nil && !language.isEmpty { book.language = language }
                }
            } else if opf.isNamed("item"), let id = opf.attribute("id"), let href = opf.attribute("href") {
                manifest[id] = ManifestItem(href: resolve(href, from: opfDirectory), mediaType: opf.attribute("media-type") ?? "",
                                            properties: opf.attribute("properties") ?? "")
            } else if opf.isNamed("spine") {
                ncxID = opf.attribute("toc")
            } else if opf.isNamed("itemref"), let idref = opf.attribute("idref") {
                spine.append(idref)
            }
        }
        if spine.isEmpty { throw ParseError("\(opfPath): the spine is empty") }

        // The table of contents and page list: EPUB 3 nav first, else the EPUB 2 NCX.
        var toc: [NavEntry] = []
        var pageList: [NavEntry] = []
        if let nav = manifest.values.first(where: { $0.properties.split(separator: " ").contains("nav") }),
           let navBytes = try? zip.read(nav.href, limit: 16 << 20) {
            (toc, pageList) = (try? readNav(navBytes, path: nav.href)) ?? ([], [])
        }
        if toc.isEmpty || pageList.isEmpty {
            let ncx = ncxID.flatMap { manifest[$0] } ?? manifest.values.first(where: { $0.mediaType == "application/x-dtbncx+xml" })
            if let ncx, let ncxBytes = try? zip.read(ncx.href, limit: 16 << 20),
               let (ncxTOC, ncxPages) = try? readNCX(ncxBytes, path: ncx.href) {
                if toc.isEmpty { toc = ncxTOC }
                if pageList.isEmpty { pageList = ncxPages }
            }
        }

        // The spine's documents, in order.
        struct Document {
            var spineIndex: Int; var path: String; var text: [UInt8]; var anchors: [String: Int]; var fallbackTitle: String?
            var headings: [DocumentStructure.Heading]; var units: [MarkupUnitCollector.Unit]
            /// The kind of front or back matter the document is (DocumentMatter); nil for the book's text.
            var matter: String?
            var marks: [PlacedMark] = []
        }
        var documents: [Document] = []
        try ZipArchive.checkTextSize(spine.compactMap { manifest[$0].flatMap { zip.entry($0.href) } }, what: "book's text (its spine documents)")
        for (index, idref) in spine.enumerated() {
            guard let item = manifest[idref] else { continue }
            let type = item.mediaType.lowercased()
            guard type.contains("html") || type.contains("xml") && !type.contains("svg") && !type.contains("ncx") else { continue }
            guard let entry = zip.entry(item.href) else {
                throw ParseError("spine document '\(item.href)' is missing from the archive")
            }
            let content = try zip.read(entry)
            let extractor = HTMLTextExtractor()
            extractor.collectAnchors = true
            let units = MarkupUnitCollector()
            extractor.markupUnits = units
            try extractor.parse(content, name: item.href)
            let fallback = extractor.headings.first?.text ?? (extractor.title.isEmpty ? nil : extractor.title)
            documents.append(Document(spineIndex: index, path: item.href, text: extractor.text, anchors: extractor.anchors,
                                      fallbackTitle: fallback,
                                      headings: extractor.headings.map { .init(offset: $0.offset, level: $0.level, title: $0.text) },
                                      units: units.finish(at: extractor.text.count), matter: units.matter.kind))
        }

        // The book's structure: every nav level, unlisted headings, dated and addressed units.
        let outlineTOC = withoutBookTitle(toc, bookTitle: book.title)
        var outlineByPath: [String: [NavEntry]] = [:]
        for entry in outlineTOC { outlineByPath[entry.path, default: []].append(entry) }
        var carried: [Int: String] = [:]
        var previousDepth = 0
        var dayEntries = DayEntries()
        for d in documents.indices {
            let entries = (outlineByPath[documents[d].path] ?? []).map {
                DocumentStructure.Entry(offset: $0.fragment.flatMap { documents[d].anchors[$0] } ?? 0, depth: $0.depth, title: $0.title)
            }
            var outline = DocumentStructure.outline(entries: entries, headings: documents[d].headings,
                                                    baseDepth: entries.map(\.depth).min() ?? previousDepth)
            if let matter = documents[d].matter { DocumentStructure.mark(&outline, asMatter: matter) }
            let units = DocumentStructure.units(documents[d].units, text: documents[d].text, outline: outline,
                                                baseDepth: (outline.map(\.mark.depth).min() ?? previousDepth) + 1, carried: &carried)
            documents[d].marks = dayEntries.adding(to: outline + units, text: documents[d].text)
            if let first = entries.first { previousDepth = first.depth }
        }

        // Section titles: the TOC entries that point into each document, at the document's own TOC level.
        var titlesByPath: [String: [(offset: Int, title: String)]] = [:]
        var tocByPath: [String: [NavEntry]] = [:]
        for entry in toc { tocByPath[entry.path, default: []].append(entry) }
        let totalText = documents.reduce(0) { $0 + $1.text.count }
        let bookTitle = book.title?.lowercased()
        for document in documents {
            guard let entries = tocByPath[document.path] else { continue }
            var level = entries.map(\.depth).min() ?? 0
            // One entry for the whole document and chapters below it (a book in one file, or a
            // document titled with the book's own title): the chapters are the sections.
            while true {
                let here = entries.filter { $0.depth == level }
                guard here.count == 1, entries.contains(where: { $0.depth == level + 1 }),
                      here[0].title.lowercased() == bookTitle || document.text.count * 2 > totalText else { break }
                level += 1
            }
            var titles: [(Int, String)] = []
            for entry in entries where entry.depth <= level {
                let offset = entry.fragment.flatMap { document.anchors[$0] } ?? 0
                titles.append((offset, entry.title))
            }
            titles.sort { $0.0 < $1.0 }
            titlesByPath[document.path] = titles
        }
        func sectionTitle(_ document: Document, at offset: Int) -> String? {
            guard let titles = titlesByPath[document.path], !titles.isEmpty else { return document.fallbackTitle }
            var title = titles[0].title
            for t in titles where t.offset <= offset { title = t.title }
            return title
        }

        // Print pages from the page list, when its targets resolve.
        let docIndex = Dictionary(documents.enumerated().map { ($0.element.path, $0.offset) }, uniquingKeysWith: { a, _ in a })
        var markers: [(doc: Int, offset: Int, label: String)] = []
        for entry in pageList {
            guard let d = docIndex[entry.path] else { continue }
            let offset = entry.fragment.map { documents[d].anchors[$0] } ?? 0
            guard let offset else { continue }
            markers.append((d, offset, entry.title))
        }
        if !markers.isEmpty && markers.count * 2 >= pageList.count {
            markers.sort { ($0.doc, $0.offset) < ($1.doc, $1.offset) }
            // Text before the first print page (cover, front matter) gets unlabeled estimated pages.
            let first = markers[0]
            var front: [Pagination.Section] = []
            for d in 0..<first.doc {
                front.append(.init(index: documents[d].spineIndex, title: sectionTitle(documents[d], at: 0), text: documents[d].text,
                                   marks: documents[d].marks))
            }
            if first.offset > 0 {
                front.append(.init(index: documents[first.doc].spineIndex, title: sectionTitle(documents[first.doc], at: 0),
                                   text: Array(documents[first.doc].text[..<first.offset]),
                                   marks: documents[first.doc].marks.filter { $0.offset < first.offset }))
            }
            book.pages = Pagination.pages(sections: front, target: options.pageCharacters)
            for (i, marker) in markers.enumerated() {
                // The page's text: each document's piece trimmed, joined by a blank line.
                var text: [UInt8] = []
                var marks: [StructureMark] = []
                let endDoc = i + 1 < markers.count ? markers[i + 1].doc : documents.count - 1
                let endOffset = i + 1 < markers.count ? markers[i + 1].offset : documents[endDoc].text.count
                var d = marker.doc
                var start = marker.offset
                while d <= endDoc {
                    let docText = documents[d].text
                    let end = d == endDoc ? min(endOffset, docText.count) : docText.count
                    if start < end, let kept = trimmedRange(docText, start..<end) {
                        if !text.isEmpty { text.append(contentsOf: [0x0A, 0x0A]) }
                        let base = text.count
                        text.append(contentsOf: docText[kept])
                        for placed in documents[d].marks where placed.offset >= start && placed.offset < end {
                            var mark = placed.mark
                            let byte = base + min(max(placed.offset - kept.lowerBound, 0), kept.count)
                            mark.at = text[..<byte].reduce(0) { $0 + ($1 & 0xC0 != 0x80 ? 1 : 0) }
                            marks.append(mark)
                        }
                    }
                    d += 1; start = 0
                }
                let document = documents[marker.doc]
                var page = ParsedPage(label: marker.label, sectionIndex: document.spineIndex,
                                      sectionTitle: sectionTitle(document, at: marker.offset),
                                      text: String(decoding: text, as: UTF8.self))
                page.structure = marks
                book.pages.append(page)
            }
        } else {
            for document in documents {
                let ranges = Pagination.split(document.text, target: options.pageCharacters)
                let marks = Pagination.assign(document.marks, text: document.text, ranges: ranges)
                for (i, range) in ranges.enumerated() {
                    var page = ParsedPage(sectionIndex: document.spineIndex, sectionTitle: sectionTitle(document, at: range.lowerBound),
                                          text: String(decoding: document.text[range], as: UTF8.self))
                    page.structure = marks[i]
                    book.pages.append(page)
                }
            }
        }
        if book.title == nil { book.title = documents.first(where: { $0.fallbackTitle != nil })?.fallbackTitle }
        return book
    }

    /// The table of contents without the entry for the book's own title (a half-title
    /// page holding every book and chapter): its children move up a level.
    static func withoutBookTitle(_ toc: [NavEntry], bookTitle: String?) -> [NavEntry] {
        guard let bookTitle = bookTitle?.lowercased() else { return toc }
        var out: [NavEntry] = []
        var lifted: [Int] = []  // depths of dropped entries still open
        for var entry in toc {
            while let last = lifted.last, last >= entry.depth { lifted.removeLast() }
            if entry.title.lowercased() == bookTitle { lifted.append(entry.depth); continue }
            entry.depth -= lifted.count
            out.append(entry)
        }
        return out
    }

    /// `range` of `bytes` without white space at either end; nil when only white space.
    static func trimmedRange(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int>? {
        var s = range.lowerBound, e = range.upperBound
        while s < e && Pagination.isSpace(bytes[s]) { s += 1 }
        while e > s && Pagination.isSpace(bytes[e - 1]) { e -= 1 }
        return s < e ? s..<e : nil
    }

    static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        guard let range = trimmedRange(bytes) else { return [] }
        return range == bytes.indices ? bytes : Array(bytes[range])
    }

    static func checkDRM(_ zip: ZipArchive) throws(ParseError) {
        if zip.entry("META-INF/sinf.xml") != nil {
            throw ParseError("the book is encrypted with Apple FairPlay DRM", kind: "drm_protected")
        }
        let lcp = zip.entry("META-INF/license.lcpl") != nil
        let adobe = zip.entry("META-INF/rights.xml") != nil
        guard let encryption = zip.entry("META-INF/encryption.xml") else {
            if lcp { throw ParseError("the book is protected by Readium LCP", kind: "drm_protected") }
            return
        }
        let stream = try XMLStream(try zip.read(encryption, limit: 16 << 20), name: "META-INF/encryption.xml")
        var encrypted: [String] = []
        var algorithm: String?
        while let kind = try stream.next() {
            guard kind == .start else { continue }
            if stream.isNamed("EncryptedData") { algorithm = nil }
            if stream.isNamed("EncryptionMethod") { algorithm = stream.attribute("Algorithm") }
            if stream.isNamed("CipherReference"), let uri = stream.attribute("URI") {
                if !fontObfuscation.contains(algorithm ?? "") { encrypted.append(uri) }
            }
        }
        if !encrypted.isEmpty || lcp {
            let scheme = lcp ? "Readium LCP" : adobe ? "Adobe ADEPT" : "DRM"
            throw ParseError("the book's content is encrypted (\(scheme); \(encrypted.count) encrypted file\(encrypted.count == 1 ? "" : "s"), e.g. \(encrypted.first ?? "?"))",
                             kind: "drm_protected")
        }
    }

    /// The EPUB 3 navigation document: toc and page-list.
    static func readNav(_ bytes: [UInt8], path: String) throws(ParseError) -> ([NavEntry], [NavEntry]) {
        let base = directory(of: path)
        let stream = try XMLStream(bytes, name: path)
        var toc: [NavEntry] = [], pages: [NavEntry] = []
        var navKind: String? = nil
        var navDepth = 0
        var olDepth = 0
        while let kind = try stream.next() {
            if kind == .start && stream.isNamed("nav") {
                let type = stream.attribute("type") ?? ""
                navKind = type.contains("page-list") ? "pages" : type.contains("toc") ? "toc" : "other"
                navDepth = stream.depth; olDepth = 0
            } else if kind == .end && stream.isNamed("nav") && stream.depth == navDepth {
                navKind = nil
            } else if navKind == "toc" || navKind == "pages" {
                if stream.isNamed("ol") { olDepth += kind == .start && !stream.isEmptyElement ? 1 : kind == .end ? -1 : 0 }
                if kind == .start && stream.isNamed("a"), let href = stream.attribute("href") {
                    let title = try stream.elementText().collapsedWhitespace
                    let (file, fragment) = split(href)
                    let entry = NavEntry(path: file.isEmpty ? path : resolve(file, from: base), fragment: fragment,
                                         title: title, depth: max(olDepth - 1, 0))
                    if navKind == "toc" { toc.append(entry) } else { pages.append(entry) }
                }
            }
        }
        return (toc, pages)
    }

    /// The EPUB 2 NCX: navMap and pageList.
    static func readNCX(_ bytes: [UInt8], path: String) throws(ParseError) -> ([NavEntry], [NavEntry]) {
        let base = directory(of: path)
        let stream = try XMLStream(bytes, name: path)
        var toc: [NavEntry] = [], pages: [NavEntry] = []
        var pointDepth = 0
        var label = ""
        var inPageList = false
        while let kind = try stream.next() {
            if stream.isNamed("navPoint") || stream.isNamed("pageTarget") {
                if kind == .start { if stream.isNamed("navPoint") { pointDepth += 1 }; label = "" }
                if kind == .end && stream.isNamed("navPoint") { pointDepth -= 1 }
            } else if stream.isNamed("pageList") {
                inPageList = kind == .start && !stream.isEmptyElement
            } else if kind == .start && stream.isNamed("text") && label.isEmpty {
                label = try stream.elementText().collapsedWhitespace
            } else if kind == .start && stream.isNamed("content"), let src = stream.attribute("src") {
                let (file, fragment) = split(src)
                let entry = NavEntry(path: resolve(file, from: base), fragment: fragment, title: label, depth: max(pointDepth - 1, 0))
                if inPageList { pages.append(entry) } else { toc.append(entry) }
            }
        }
        return (toc, pages)
    }

    static func split(_ href: String) -> (String, String?) {
        guard let hash = href.firstIndex(of: "#") else { return (href, nil) }
        let fragment = String(href[href.index(after: hash)...])
        return (String(href[..<hash]), fragment.isEmpty ? nil : percentDecoded(fragment))
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }

    /// A manifest href resolved against the OPF's folder, percent-decoded, `.` and `..` folded.
    static func resolve(_ href: String, from base: String) -> String {
        let (file, _) = split(href)
        let joined = file.hasPrefix("/") ? String(file.dropFirst()) : base + file
        var parts: [Substring] = []
        for part in percentDecoded(joined).split(separator: "/") {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return parts.joined(separator: "/")
    }

    static func percentDecoded(_ s: String) -> String {
        guard s.contains("%") else { return s }
        var out: [UInt8] = []
        let bytes = Array(s.utf8)
        var i = 0
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x41...0x46: c - 0x41 + 10
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }
        while i < bytes.count {
            if bytes[i] == 0x25, i + 2 < bytes.count, let h = hex(bytes[i + 1]), let l = hex(bytes[i + 2]) {
                out.append(h << 4 | l); i += 3
            } else { out.append(bytes[i]); i += 1 }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
