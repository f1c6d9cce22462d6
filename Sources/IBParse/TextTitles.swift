// Titles that stand alone in a plain text: a collection's stories ("A Scandal
// in Bohemia", "The Adventure of the Speckled Band") or a book's essays
// ("Economy", "Where I Lived, and What I Lived For") as converters write them,
// a line of their own between blank lines, with no label, no number and no
// contents list to name them (TextContents reads the ones a list names).
//
// Any short line written as a title is one of these candidates: a signature, a
// place above a letter, a newspaper's name. What tells a collection's titles
// from them is where they stand, so they are taken together or not at all:
// - each title's text holds no heading, or opens with a count of its own ("I",
//   "CHAPTER 1"), which it then holds: a story in parts;
// - the first of the book's own titles opens the book (within its first tenth);
// - there are at least `minimumTitles` of them and their texts are long
//   (the median at least `minimumMedianBytes`): a dictionary's headwords and a
//   novel's signatures stand close together.
// The publisher's pages a converter titles the same way ("Imprint", "Colophon")
// come with them and count for none of it.
import IBCore

enum TextTitles {
    static let minimumTitles = 3
    static let minimumMedianBytes = 4_096
    /// A count opens a title's text when its first heading is this close to it (in bytes).
    static let openingGap = 256
    /// The book's first own title lies in this share of the text.
    static let openingShare = 0.1

    /// A one-line paragraph that may be such a title: written as a title is
    /// (TextHeadings.title), ending in no stop, comma, dash or quote.
    static func candidate(_ text: [UInt8], _ line: Range<Int>) -> String? {
        guard let last = line.last.map({ text[$0] }), !".,;:!?-)]\"'_*".utf8.contains(last),
              !(last >= 0x80 && isClosingPunctuation(text, line)) else { return nil }
        guard let title = TextHeadings.title(text, line), title.filter(\.isLetter).count >= 3 else { return nil }
        return title
    }

    /// A line ending in a closing quote (” ’), an em or en dash, or a word joiner before one.
    static func isClosingPunctuation(_ text: [UInt8], _ line: Range<Int>) -> Bool {
        guard let scalar = String(decoding: text[line.suffix(4)], as: UTF8.self).unicodeScalars.last else { return true }
        return ["\u{201D}", "\u{2019}", "\u{2014}", "\u{2013}", "\u{2060}", "\u{00BB}"].contains(scalar)
    }

    /// The candidates (offset and title, in order) that are a collection's titles,
    /// given the text's other `headings` and its length; none when they are not.
    static func collected(_ candidates: [(offset: Int, title: String)], headings: [TextHeadings.Heading],
                          textBytes: Int) -> [TextHeadings.Heading] {
        guard candidates.count >= minimumTitles else { return [] }
        let own = headings.filter { !TextHeadings.isPublishers($0.kind) }   // in order, as the candidates are
        let end = headings.first { $0.kind == "licence" }?.offset ?? textBytes
        var kept: [TextHeadings.Heading] = []
        var sizes: [Int] = []
        var h = 0   // the first of `own` after the candidate: one pass over both lists
        for (i, candidate) in candidates.enumerated() {
            let next = i + 1 < candidates.count ? candidates[i + 1].offset : end
            while h < own.count && own[h].offset <= candidate.offset { h += 1 }
            if h < own.count, own[h].offset < next {
                let first = own[h]
                // A story in parts opens with its first ("I"); a heading further in is the book's.
                guard first.offset - candidate.offset <= openingGap, first.number == 1 else { return [] }
            }
            kept.append(TextHeadings.Heading(offset: candidate.offset, title: candidate.title, kind: "work"))
            if !BookMatter.isPublisherMatter(section: [candidate.title]) { sizes.append(next - candidate.offset) }
        }
        let firstOwn = kept.first { !BookMatter.isPublisherMatter(section: [$0.title]) }
        guard sizes.count >= minimumTitles, let firstOwn, Double(firstOwn.offset) <= openingShare * Double(textBytes),
              sizes.sorted()[sizes.count / 2] >= minimumMedianBytes else { return [] }
        return kept
    }
}
