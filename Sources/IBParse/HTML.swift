// HTML through libxml2's HTML parser: all visible text (see
// HTMLTextExtractor), title from <title>, authors from <meta name="author">,
// estimated pages, headings as sections.

enum HTMLParser {
    static func parse(_ bytes: [UInt8], options: ParseOptions) throws(ParseError) -> ParsedBook {
        let extractor = HTMLTextExtractor()
        try extractor.parse(bytes, name: "HTML")
        var book = ParsedBook(format: .html)
        book.title = extractor.title.isEmpty ? extractor.headings.first(where: { $0.level == 1 })?.text : extractor.title
        book.authors = extractor.authors
        book.language = extractor.language
        let sections = Sectioning.split(extractor.text, headings: extractor.headings.map { ($0.offset, $0.level, $0.text) })
        book.pages = Pagination.pages(sections: sections, target: options.pageCharacters)
        return book
    }
}

/// Splits text at headings. Sections start at the shallowest heading level
/// that occurs at least twice (and at every shallower heading), so a book's
/// single title heading and its chapters' sub-parts do not each become a section.
enum Sectioning {
    static func split(_ text: [UInt8], headings: [(offset: Int, level: Int, title: String)]) -> [Pagination.Section] {
        var sectionLevel = 6
        for level in 1...6 where headings.filter({ $0.level <= level }).count >= 2 { sectionLevel = level; break }
        let starts = headings.filter { $0.level <= sectionLevel }
        var sections: [Pagination.Section] = []
        var position = 0
        var title: String? = nil
        for heading in starts where heading.offset >= position {
            if heading.offset > position || !sections.isEmpty || title != nil {
                let slice = Array(text[position..<heading.offset])
                if slice.contains(where: { !Pagination.isSpace($0) }) {
                    sections.append(.init(index: sections.count, title: title, text: slice))
                }
            }
            position = heading.offset
            title = heading.title
        }
        let rest = Array(text[position...])
        if rest.contains(where: { !Pagination.isSpace($0) }) || sections.isEmpty {
            sections.append(.init(index: sections.count, title: title, text: rest))
        }
        return sections
    }
}
