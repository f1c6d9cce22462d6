// The parts of an offline recap no sentence choice gives: the people who
// matter so far (the capitalised names the text keeps coming back to, counted
// only where a capital cannot be a sentence's first word) and the last whole
// sentence before the reader stopped.
import IBCore
import IBStore

enum SummaryRecap {
    struct Person { var name: String; var mentions: Int; var firstPage: Int }

    /// Capitalised words that are not names.
    static let notNames: Set<String> = [
        "I", "The", "A", "An", "And", "But", "Or", "If", "It", "He", "She", "They", "We", "You", "His", "Her", "My", "Our",
        "Your", "Their", "This", "That", "There", "Then", "When", "What", "Why", "How", "Who", "Where", "Yes", "No", "Oh",
        "Mr", "Mrs", "Ms", "Dr", "Sir", "Madam", "Miss", "Lady", "Lord", "God", "King", "Queen", "Majesty", "Highness",
        "Prince", "Princess", "Duke", "Captain", "Colonel", "Doctor", "Professor", "Inspector", "Street", "Square", "Road", "Chapter", "Part", "Book", "Act", "Scene",
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March",
        "April", "May", "June", "July", "August", "September", "October", "November", "December", "English", "French",
    ]

    /// Up to six names mentioned at least three times up to `lastPage`, most mentioned first.
    static func people(_ library: Library, bookID: String, lastPage: Int) throws -> [Person] {
        var counts: [String: (Int, Int)] = [:]
        let outline = try library.chunkOutline(bookID: bookID).filter { $0.endPage <= lastPage }
        guard let first = outline.first, let last = outline.last else { return [] }
        // One chunk at a time: overlapping chunks count a name twice at most, the same for every name.
        for start in stride(from: first.index, through: last.index, by: 200) {
            for chunk in try library.summaryChunks(bookID: bookID, indices: start...min(last.index, start + 199), firstPage: 1, lastPage: lastPage) {
                var previousEndsSentence = true
                for raw in chunk.text.split(whereSeparator: { $0.isWhitespace || $0 == "—" }) {
                    let word = raw.trimmingCharacters(in: "\"'“”‘’()[],;:.!?*_")
                    defer { previousEndsSentence = raw.last.map { ".!?:\"”".contains($0) } ?? true }
                    guard !previousEndsSentence, let c = word.first, c.isUppercase, word.count >= 3,
                          word.dropFirst().allSatisfy({ $0.isLowercase || $0 == "-" }), !notNames.contains(word) else { continue }
                    let seen = counts[word]
                    counts[word] = ((seen?.0 ?? 0) + 1, seen?.1 ?? chunk.startPage)
                }
            }
        }
        return counts.filter { $0.value.0 >= 3 }
            .sorted { $0.value.0 != $1.value.0 ? $0.value.0 > $1.value.0 : $0.key < $1.key }
            .prefix(6).map { Person(name: $0.key, mentions: $0.value.0, firstPage: $0.value.1) }
    }

    /// The last whole sentence of `text`.
    static func lastSentence(_ text: String) -> String? {
        Sentences.split(text).last { $0.count >= 20 && ExtractiveRules.isQuotable($0) && !$0.hasSuffix("…") }
    }
}
