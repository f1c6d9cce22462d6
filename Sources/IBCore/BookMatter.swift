// Front and back matter: the pages of a book that are not its own text (a
// title page, an imprint, a licence, a table of contents, a cast list). They
// sound like many questions ("Hamlet, by William Shakespeare") and answer
// none: ib-ask never quotes them, and ib-search's hybrid ranking puts the
// publisher's pages and the editor's notes after the book's own text.
public enum BookMatter {
    /// Section titles of front and back matter.
    public static let titles: Set<String> = publisherTitles.union(apparatusTitles).union([
        "dramatis personae", "persons represented", "characters", "cast", "cast of characters",
        "dedication", "acknowledgements", "acknowledgments", "about the author",
    ])

    /// The publisher's pages, not the author's: what a reader never means by a
    /// question about the book (its cast list may be; the notes and index are
    /// the editor's, apparatusTitles).
    public static let publisherTitles: Set<String> = [
        "titlepage", "title page", "half title", "halftitle", "imprint", "contents", "table of contents",
        "colophon", "uncopyright", "copyright", "license", "licence", "also by",
        "list of illustrations", "illustrations", "transcriber's note", "transcribers note",
    ]

    /// The editor's apparatus: notes and an index explain the text or point
    /// into it. A reader recalling a passage means the text itself, and the
    /// notes, dense with its names, places and dates, would answer for it (in a
    /// heavily annotated diary, a great share of the book's chunks).
    public static let apparatusTitles: Set<String> = ["endnotes", "notes", "footnotes", "index"]

    /// Kinds of front and back matter around the book's own text (EPUB 3
    /// structural semantics, as a spine document marked front or back matter
    /// types its section): an edition's introduction is often the editor's.
    /// ib-parse gives a unit such a kind only from that markup, never from a
    /// title (an author's "Introduction" chapter is the book).
    public static let prefatoryKinds: Set<String> = [
        "preface", "foreword", "introduction", "preamble", "prologue", "afterword", "epilogue",
        "epigraph", "dedication", "acknowledgments", "acknowledgements",
    ]

    /// Words of licence and imprint text, never of a story.
    public static let markers = [
        "ebook", "e-book", "project gutenberg", "gutenberg.org", "standardebooks", "standard ebooks",
        "public domain", "copyright", "license", "licence", "trademark", "http://", "https://", "www.",
    ]

    /// Whether a section path (any level) is titled as front or back matter.
    public static func isMatter(section path: [String]?) -> Bool { holds(path, titles) }

    /// Whether a section path (any level) is one of the publisher's pages.
    public static func isPublisherMatter(section path: [String]?) -> Bool { holds(path, publisherTitles) }

    /// Whether a section path (any level) is titled as the editor's notes or index.
    public static func isApparatus(section path: [String]?) -> Bool { holds(path, apparatusTitles) }

    /// A text with two or more licence and imprint words (for books without sections).
    /// The markers are ASCII: the text's bytes are lowered and searched as
    /// bytes (String.contains is far slower, and a search over a large library
    /// asks this of up to 30 chunks).
    public static func soundsLikeMatter(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        for i in bytes.indices where bytes[i] &- 65 < 26 { bytes[i] |= 0x20 }
        var found = 0
        for marker in markerBytes where ByteSearch.contains(marker, in: bytes) {
            found += 1
            if found == 2 { return true }
        }
        return false
    }

    /// The markers' bytes, made once.
    static let markerBytes = markers.map { Array($0.utf8) }

    static func holds(_ path: [String]?, _ set: Set<String>) -> Bool {
        guard let path else { return false }
        return path.contains { title in
            let t = String(title.lowercased().map { $0 == "’" ? "'" : $0 }).trimmingCharacters(in: " .:\t")
            // Project Gutenberg's licence: "THE FULL PROJECT GUTENBERG LICENSE", or the unit a plain
            // text's end line starts ("*** END OF THE PROJECT GUTENBERG EBOOK DRACULA ***").
            return set.contains(t) || t.contains("project gutenberg")
        }
    }
}
