enum HTMLParser {
    static func parse(_ bytes: [UInt8], options: ParseOptions) throws(ParseError) -> ParsedBook {
        throw ParseError("HTML is not supported yet")
    }
}
