enum PDFParser {
    static func parse(_ bytes: [UInt8], options: ParseOptions) throws(ParseError) -> ParsedBook {
        throw ParseError("PDF is not supported yet")
    }
}
