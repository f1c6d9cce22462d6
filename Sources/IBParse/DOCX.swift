enum DOCXParser {
    static func parse(_ bytes: [UInt8], options: ParseOptions) throws(ParseError) -> ParsedBook {
        throw ParseError("DOCX is not supported yet")
    }
}
