// A captured record as one line for a person at a terminal ("saved quote ·
// Meditations · p. 47 · "…""); in a pipe or with --json the record itself is
// printed (OutputFormat). Built from the record's fields, so every kind of
// capture reads the same way.
import IBCore

enum RecordText {
    /// The record as a line of text (options.text: a terminal or --format text) or as JSON.
    static func write(_ record: JSON, _ options: CaptureOptions, _ out: OutputStream) {
        guard options.text else { out.writeJSON(record); return }
        let text = line(record, dryRun: options.dryRun)
        out.write((Terminal.stdoutIsTerminal ? TerminalText.safe(text) : text) + "\n")
    }

    /// `dryRun`: the line was only parsed, nothing stored.
    static func line(_ record: JSON, dryRun: Bool) -> String {
        let type = record["type"]?.stringValue ?? "record"
        var parts = [(dryRun ? (Messages.current == .zh ? "解析" : "parsed") : (Messages.current == .zh ? "已保存" : "saved")) + " " + type]
        if let title = record["book_title"]?.stringValue ?? record["title"]?.stringValue ?? record["book"]?.stringValue { parts.append(title) }
        if let books = record["books"]?.arrayValue, !books.isEmpty { parts.append(books.compactMap(\.stringValue).joined(separator: ", ")) }
        if let position = record["position"]?.stringValue {
            parts.append(position)
        } else if let page = record["page"]?.intValue, page > 0 {
            var text = "p. \(page)"
            if let total = record["page_count"]?.intValue, type == "progress" { text += " of \(total)" }
            parts.append(text)
        }
        if let status = record["status"]?.stringValue { parts.append(status) }
        if record["finished"]?.boolValue == true { parts.append("finished") }
        if let due = record["due"]?.stringValue { parts.append("by " + due) }
        if let text = record["text"]?.stringValue, !text.isEmpty { parts.append("\u{201C}" + text + "\u{201D}") }
        if let tags = record["tags"]?.arrayValue, !tags.isEmpty { parts.append(tags.compactMap(\.stringValue).map { "#" + $0 }.joined(separator: " ")) }
        return parts.joined(separator: " · ")
    }
}
