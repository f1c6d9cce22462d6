// Front and back matter as EPUB 3 marks it: a spine document whose <body> is
// typed "frontmatter" or "backmatter" and whose first section is typed as a
// preface, foreword, introduction, afterword and the like (Standard Ebooks,
// EPUB 3 structural semantics). An edition's introduction is often the
// editor's, not the author's ("Particulars of the Life of Samuel Pepys", some
// 90,000 characters before the diary's first day), and its title says nothing
// of that: only the markup does. ib-parse gives the document's units that kind
// (BookMatter.prefatoryKinds) and ib-search's hybrid ranking puts them after
// the book's own text. A cast list, glossary or appendix stays where it is.
import IBCore

struct DocumentMatter {
    /// The kind of front or back matter the document is; nil for the book's own text.
    private(set) var kind: String?
    private var inMatter = false
    private var decided = false

    /// An element's start, with its epub:type: only <body> and the first
    /// <section> or <article> count.
    mutating func see(_ name: String, epubType: String?) {
        guard !decided else { return }
        let words = epubType?.split(separator: " ").map { $0.split(separator: ":").last.map(String.init) ?? "" } ?? []
        switch name {
        case "body":
            inMatter = words.contains("frontmatter") || words.contains("backmatter")
            if inMatter, let kind = words.first(where: BookMatter.prefatoryKinds.contains) { self.kind = kind; decided = true }
        case "section", "article":
            if inMatter { kind = words.first(where: BookMatter.prefatoryKinds.contains) }
            decided = true
        default: break
        }
    }
}
