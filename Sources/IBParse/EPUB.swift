enum EPUBParser {
    static func parse(_ bytes: [UInt8], options: ParseOptions) throws(ParseError) -> ParsedBook {
        throw ParseError("EPUB is not supported yet")
    }
}
