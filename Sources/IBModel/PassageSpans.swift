// PassageSpans: where a chunk's paragraphs lie among its tokens, for the
// paragraph windows of SentenceEncoder.embedWithWindows.
//
// A question usually paraphrases one paragraph or one dictionary entry. The
// fixed 32-token windows cut across those; a window that is exactly the
// paragraph matches it better (on the search evaluation, vector recall@5 0.75
// -> 0.86 with both kinds scanned). Paragraphs are separated by blank lines;
// one longer than `maxTokens` is cut after sentence ends into runs of whole
// sentences of at most `maxTokens` (a single longer sentence stays whole).
//
// Token positions come from tokenizing each piece on its own. Pieces are cut
// only where whitespace starts, and BERT's tokenizer splits on whitespace
// before anything else, so the pieces' counts add up to the whole text's.
import IBTokenizer

enum PassageSpans {
    /// Token spans [start, end) in the model's input (position 0 is [CLS]) of the
    /// text's paragraphs, clipped to `limit` (the position of the final [SEP]).
    /// Empty when the text has fewer than two paragraphs: its own vector covers it.
    static func spans(_ text: String, tokenizer: WordPieceTokenizer, maxTokens: Int, limit: Int) -> [(start: Int, end: Int)] {
        let paragraphs = pieces(text)
        guard paragraphs.count > 1 else { return [] }
        var out: [(start: Int, end: Int)] = []
        var position = 1
        for paragraph in paragraphs {
            var runStart = position, runEnd = position
            for sentence in sentences(paragraph) {
                let n = tokenizer.countTokens(sentence)
                if n == 0 { continue }
                if runEnd > runStart && runEnd + n - runStart > maxTokens {
                    out.append((runStart, runEnd))
                    runStart = runEnd
                }
                runEnd += n
            }
            if runEnd > runStart { out.append((runStart, runEnd)) }
            position = runEnd
            if position >= limit { break }
        }
        let clipped = out.compactMap { span -> (start: Int, end: Int)? in
            let end = min(span.end, limit)
            return end > span.start ? (span.start, end) : nil
        }
        return clipped.count > 1 ? clipped : []
    }

    /// The text cut where a blank line (newline, optional spaces, newline) starts.
    static func pieces(_ text: String) -> [Substring] {
        var out: [Substring] = []
        var start = text.startIndex
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == "\n" {
                var j = text.index(after: i)
                while j < text.endIndex, text[j] == " " || text[j] == "\t" || text[j] == "\r" { j = text.index(after: j) }
                if j < text.endIndex, text[j] == "\n" {
                    if i > start { out.append(text[start..<i]) }
                    start = i
                    i = j
                    continue
                }
            }
            i = text.index(after: i)
        }
        if start < text.endIndex { out.append(text[start...]) }
        return out
    }

    /// A paragraph cut after each sentence end ('.', '!' or '?', then any closing
    /// quotes or brackets), where the following whitespace starts.
    static func sentences(_ paragraph: Substring) -> [Substring] {
        var out: [Substring] = []
        var start = paragraph.startIndex
        var i = paragraph.startIndex
        while i < paragraph.endIndex {
            let c = paragraph[i]
            i = paragraph.index(after: i)
            guard c == "." || c == "!" || c == "?" else { continue }
            while i < paragraph.endIndex, "\"')]\u{201D}\u{2019}".contains(paragraph[i]) { i = paragraph.index(after: i) }
            if i < paragraph.endIndex, paragraph[i].isWhitespace {
                out.append(paragraph[start..<i])
                start = i
            }
        }
        if start < paragraph.endIndex { out.append(paragraph[start...]) }
        return out
    }
}
