// The body of the document-reader harnesses (epub, docx, html, markdown, text): the
// fuzzer's bytes, with the first byte also setting the page length (short
// pages reach more page breaks), handed to one IBParse reader. A thrown
// ParseError is a refusal, not a finding; a crash, trap, leak, hang or
// sanitizer report is one.
@testable import IBParse

func fuzzDocument(_ data: UnsafePointer<UInt8>?, _ size: Int,
                  _ parse: ([UInt8], ParseOptions) throws -> ParsedBook) -> Int32 {
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data!, count: size))
    var options = ParseOptions()
    options.pageCharacters = 200 + (size > 0 ? Int(input[0]) * 8 : 0)
    _ = try? parse(input, options)
    return 0
}
