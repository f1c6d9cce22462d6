// libFuzzer harness: IBParse's plain text reader (TextParser.parse): decoding,
// the headings that become its structure (TextHeadings: English heading
// paragraphs, contents lists, Chinese counted lines) and a diary's dated
// paragraphs (DayEntries), then the pagination under them. Built and run by
// scripts/fuzz/run text. The input is the file's bytes; the first byte also sets
// the page length. A thrown ParseError (bytes that are not UTF-8) is a refusal,
// not a finding; a crash, trap, leak, hang or sanitizer report is one.
@testable import IBParse

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzDocument(data, size) { try TextParser.parse($0, options: $1) }
}
