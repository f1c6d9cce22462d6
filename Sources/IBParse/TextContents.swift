// A plain text's contents list and the headings it names. Chapters with titles
// and no numbers (Walden's "ECONOMY", "READING", "THE PONDS") look like any
// short paragraph; what marks them is the list near the start of the text
// ("CONTENTS", then a title a line) that names them. A one-line paragraph after
// the list that says what one of its lines says is a heading. The list ends at
// prose (a line longer than a title, or lines wrapped near a page's width), or
// where it names a title a second time: a list that runs straight into the text
// ends at the first heading of the text.
import IBCore

struct TextContents {
    /// How many titles a list may hold (a hostile file of short lines must not grow it without end).
    static let maxTitles = 5_000
    /// A title is a line of at most this many bytes (a paragraph with a longer line is text).
    static let maxLineBytes = 80 * 4
    /// Prose is wrapped near 70 columns: a paragraph of lines this long is text, not a list.
    static let proseLineBytes = 60

    enum State { case seeking, listing, reading }
    private var state = State.seeking
    private var titles: Set<Key> = []

    /// Whether the caller should hand over every line of the paragraphs to come
    /// (a list is often one paragraph of many lines).
    var wantsEveryLine: Bool { state == .listing }

    /// What a paragraph is to the list.
    enum Reading: Equatable {
        /// The list's own heading ("CONTENTS"), a line of the list, a heading it names, or none of them.
        case listHeading, listed, named, text
    }

    /// Reads a paragraph (its lines, trimmed); `isHeading` when it is a heading of its own
    /// ("CHAPTER I").
    mutating func read(_ text: [UInt8], _ lines: [Range<Int>], isHeading: Bool) -> Reading {
        switch state {
        case .seeking:
            guard lines[0].count <= 24, Self.listHeadings.contains(Self.key(text, lines[0])) else { return .text }
            state = .listing
            // The list may follow on the next lines of the same paragraph.
            if lines.count > 1 { _ = read(text, Array(lines.dropFirst()), isHeading: false) }
            return .listHeading
        case .listing:
            // Prose ends the list: a line longer than a title, or lines wrapped near a page's width.
            if lines.contains(where: { $0.count > Self.maxLineBytes }) || (lines.count > 1 && lines.contains { $0.count >= Self.proseLineBytes })
                || titles.count >= Self.maxTitles {
                state = .reading
                return .text
            }
            let keys = lines.map { Self.key(text, $0) }
            if !isHeading, keys.count == 1, titles.contains(keys[0]) {
                state = .reading   // the list named this title before: the text has begun
                return .named
            }
            for key in keys where key.letters >= 3 { titles.insert(key) }
            return .listed
        case .reading:
            guard !isHeading, lines.count == 1, lines[0].count <= Self.maxLineBytes else { return .text }
            return titles.contains(Self.key(text, lines[0])) ? .named : .text
        }
    }

    /// A line as the list and the heading both write it: its letters in lower case
    /// (another script's bytes as they are), without a numeral that counts it ("IV.
    /// Sounds", "4 Sounds") or a page number; kept as a hash, with how many letters it
    /// has. Read from the bytes: every short paragraph after a list is asked.
    struct Key: Hashable {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a
        var letters = 0
    }

    static func key(_ text: [UInt8], _ line: Range<Int>) -> Key {
        var i = line.lowerBound
        // A numeral that counts the line: figures before a space or stop, a roman numeral before a stop.
        var j = i
        while j < line.upperBound, isDigit(text[j]) || "ivxlcdm".utf8.contains(text[j] | 0x20) { j += 1 }
        if j > i, j < line.upperBound, j - i <= 8 {
            let figures = text[i..<j].allSatisfy(isDigit)
            let stop = text[j] == UInt8(ascii: ".") || text[j] == UInt8(ascii: ":") || text[j] == UInt8(ascii: ")")
            if figures ? (stop || text[j] == 0x20) : stop && CalendarWords.roman(String(decoding: text[i..<j], as: UTF8.self)) != nil {
                i = j + 1
            }
        }
        var key = Key()
        while i < line.upperBound {
            let byte = text[i]
            i += 1
            let letter: UInt8
            switch byte {
            case 0x41...0x5A: letter = byte | 0x20
            case 0x61...0x7A: letter = byte
            case 0xE2 where i + 1 < line.upperBound && text[i] == 0x80:
                i += 2   // General Punctuation (U+2000 to U+203F): dashes, curly quotes, the ellipsis
                continue
            case 0x80...: letter = byte   // another script's letters (and the odd sign) as they are
            default: continue
            }
            key.hash = (key.hash ^ UInt64(letter)) &* 0x100_0000_01b3
            key.letters += 1
        }
        return key
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// What heads a list: "CONTENTS", "Table of Contents".
    static let listHeadings: Set<Key> = ["contents", "table of contents"].map { Array($0.utf8) }.reduce(into: []) { $0.insert(key($1, 0..<$1.count)) }
}
