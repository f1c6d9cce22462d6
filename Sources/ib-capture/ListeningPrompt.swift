// The text Whisper is told to expect before it hears a spoken capture line
// (its initial prompt, the <|startofprev|> tokens): the library's titles, most
// recent first, then the words a capture line is made of. A
// decoder conditioned on them writes "Moby Dick" where it would hear "movie
// dick", and "Quote, page 47." in the form the spoken grammar reads. Whisper
// keeps only the last 223 prompt tokens, so books are added while they fit.
import IBCore
import IBWhisper

enum ListeningPrompt {
    /// The words of a capture line, as Whisper writes them.
    static let captureWords = "Quote, page 47. End quote. Note for the book, chapter 3. Question. I'm on page 212. Hashtag."
    /// Whisper's prompt budget: half its 448 text positions, less <|startofprev|>.
    static let budget = 223

    static func text(books: [TitleMatcher.Entry], tokenizer: WhisperTokenizer, budget: Int = budget) -> String {
        var used = tokenizer.encode(" " + captureWords).count
        var named: [String] = []
        var seen: Set<String> = []
        for book in books {
            let title = TextClasses.trim(book.title)
            // Titles only: with authors' names in the prompt, Whisper put them into lines that never said them.
            let entry = title + "."
            guard !title.isEmpty, seen.insert(entry).inserted else { continue }
            let cost = tokenizer.encode(" " + entry).count
            if used + cost > budget { break }
            used += cost
            named.append(entry)
        }
        return (named + [captureWords]).joined(separator: " ")
    }
}
