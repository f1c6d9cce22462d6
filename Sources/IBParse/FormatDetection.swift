// The format of an input comes from its content: magic bytes, a ZIP's
// `mimetype` entry (EPUB) or `[Content_Types].xml` (DOCX), HTML markup, audio
// containers (AudioFormat).
// The extension is only a hint for text against Markdown, which look alike.
import IBCore

enum FormatDetection {
    static func detect(_ bytes: InputBytes, extensionHint: String?, contentType: String? = nil) throws(ParseError) -> BookFormat {
        if bytes.isEmpty { throw ParseError("empty file (0 bytes)") }
        let head = Array(bytes.prefix(1024))
        if ByteSearch.contains(Array("%PDF-".utf8), in: head) { return .pdf }
        if ImageParser.isImage(head) { return .image }
        if AudioFormat.detect(head) != nil { return .audio }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            return try zipFormat(bytes)
        }
        let hasUTF16BOM = bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
        if !hasUTF16BOM {
            if let zero = bytes.prefix(8192).firstIndex(of: 0) {
                throw ParseError("binary data of an unknown format (a zero byte at offset \(zero))")
            }
            if looksLikeHTML(head) { return .html }
        }
        let ext = extensionHint?.lowercased() ?? ""
        if let type = contentType?.lowercased() {
            if type.contains("markdown") { return .markdown }
            if type.contains("html") { return .html }
            if type.hasPrefix("text/") && ext != "md" && ext != "markdown" { return .text }
        }
        switch ext {
        case "md", "markdown", "mdown", "mkd": return .markdown
        case "html", "htm", "xhtml": return .html
        default: return .text
        }
    }

    static func zipFormat(_ bytes: InputBytes) throws(ParseError) -> BookFormat {
        let zip = try ZipArchive(bytes)
        if let entry = zip.entry("mimetype") {
            let type = TextClasses.trim(String(decoding: try zip.read(entry, limit: 256), as: UTF8.self),
                                        where: TextClasses.isASCIISpace)
            if type == "application/epub+zip" { return .epub }
        }
        if zip.entry("META-INF/container.xml") != nil { return .epub }
        if let types = zip.entry("[Content_Types].xml") {
            let text = String(decoding: try zip.read(types, limit: 1 << 20), as: UTF8.self)
            if text.contains("wordprocessingml.document.main") || zip.entry("word/document.xml") != nil { return .docx }
            throw ParseError("an Office file that is not a Word document (.docx)")
        }
        throw ParseError("a ZIP archive that is neither EPUB nor DOCX")
    }

    static func looksLikeHTML(_ head: [UInt8]) -> Bool {
        let lower = String(decoding: head.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
        var trimmed = Substring(lower)
        if trimmed.hasPrefix("\u{FEFF}") { trimmed = trimmed.dropFirst() }
        trimmed = trimmed.drop(while: { $0.isWhitespace })
        if trimmed.hasPrefix("<!doctype html") || trimmed.hasPrefix("<html") { return true }
        if trimmed.hasPrefix("<?xml") || trimmed.hasPrefix("<!--") || trimmed.hasPrefix("<!doctype") {
            return lower.contains("<html")
        }
        if trimmed.hasPrefix("<head") || trimmed.hasPrefix("<body") { return true }
        return false
    }
}
