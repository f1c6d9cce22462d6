enum MarkdownParser {
    static func parse(_ bytes: [UInt8], options: ParseOptions) throws(ParseError) -> ParsedBook {
        throw ParseError("Markdown is not supported yet")
    }
}
