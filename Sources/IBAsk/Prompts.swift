// The prompts, from shared/prompts (embedded by scripts/gen-prompts), with
// their {{placeholders}} filled in.
import IBCore

public enum Prompts {
    public static func file(_ name: String) -> String { EmbeddedPrompts.files[name] ?? "" }

    static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = template
        for (key, value) in values { out = out.replacing("{{\(key)}}", with: value) }
        return out
    }

    static func bookValues(_ book: BookContext) -> [String: String] {
        let authors = book.authors.isEmpty ? "" : " by " + book.authors.joined(separator: ", ")
        var position: String
        var rule: String
        if let page = book.currentPage {
            let label = book.display(page)
            position = "The reader is on page \(label)" + (book.pageCount > 0 ? " (page \(page) of \(book.pageCount) in the file)." : ".")
            rule = "the reader has read up to page \(label). Never reveal, hint at or speculate about anything after page \(label): no later events, outcomes, twists or summaries. If the question needs later pages, say you can only discuss the book up to page \(label)."
        } else {
            position = "The reader has not recorded a current page, so the whole book may be discussed."
            rule = "do not volunteer plot developments the question does not ask about."
        }
        return ["title": book.title, "authors": authors, "position": position, "spoiler_rule": rule]
    }

    public static func system(tools: Bool, book: BookContext) -> String {
        fill(file(tools ? "system-tools.md" : "system-retrieve.md"), bookValues(book))
    }

    public static func rewrite(book: BookContext) -> String { fill(file("rewrite-query.md"), bookValues(book)) }

    public static var searchToolDescription: String { file("search-tool.md").replacing("\n", with: " ") }

    public static var extractiveIntro: String { file("extractive-intro.md").trimmed }

    public static func withPassages(_ passages: [Passage], question: String, book: BookContext) -> String {
        fill(file("retrieved-passages.md"), [
            "passages": passages.isEmpty ? "(no passages found)" : formatPassages(passages, book: book),
            "question": question,
        ])
    }

    /// "[1] (pp. 12-13)\ntext" blocks, labelled as they must be cited.
    public static func formatPassages(_ passages: [Passage], book: BookContext) -> String {
        passages.enumerated().map { i, p in
            "[\(i + 1)] (\(book.citation(p.startPage, p.endPage)))\n\(p.text)"
        }.joined(separator: "\n\n")
    }

    public static let searchTool = ToolSpec(
        name: "search_book",
        description: searchToolDescription,
        parameters: [
            "type": "object",
            "properties": [
                "query": ["type": "string", "description": "What to look for, in words likely to appear in the book."],
                "k": ["type": "integer", "description": "How many passages (1-10, default 6)."],
            ],
            "required": ["query"],
        ])
}

