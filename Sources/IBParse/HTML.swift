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
        var dayEntries = DayEntries()
        let allMarks = dayEntries.adding(to: headingMarks(headings), text: text)
        func marks(_ range: Range<Int>) -> [PlacedMark] {
            allMarks.filter { range.contains($0.offset) }.map { var m = $0; m.offset -= range.lowerBound; return m }
        }
        var sections: [Pagination.Section] = []
        var position = 0
        var title: String? = nil
        for heading in starts where heading.offset >= position {
            if heading.offset > position || !sections.isEmpty || title != nil {
                let slice = Array(text[position..<heading.offset])
                if slice.contains(where: { !Pagination.isSpace($0) }) {
                    sections.append(.init(index: sections.count, title: title, text: slice,
                                          marks: marks(position..<heading.offset)))
                }
            }
            position = heading.offset
            title = heading.title
        }
        let rest = Array(text[position...])
        if rest.contains(where: { !Pagination.isSpace($0) }) || sections.isEmpty {
            sections.append(.init(index: sections.count, title: title, text: rest, marks: marks(position..<text.count + 1)))
        }
        return sections
    }

    /// Every heading as a structure mark, its depth the rank of its level among
    /// the levels used; a lone title heading above all the others is left out.
    static func headingMarks(_ headings: [(offset: Int, level: Int, title: String)]) -> [PlacedMark] {
        var kept = headings
        let top = headings.map(\.level).min() ?? 1
        if headings.filter({ $0.level == top }).count == 1, headings.first?.level == top, headings.count > 1 { kept.removeFirst() }
        let levels = Array(Set(kept.map(\.level))).sorted()
        return kept.map { DocumentStructure.mark(title: $0.title, depth: levels.firstIndex(of: $0.level) ?? 0, offset: $0.offset) }
    }
}
