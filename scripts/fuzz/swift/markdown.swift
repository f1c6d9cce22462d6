// libFuzzer harness: IBParse's Markdown reader (MarkdownParser.parse) and the
// pagination under it. Built and run by scripts/fuzz/run markdown. The input is the
// document's bytes; the first byte also sets the page length (short pages
// reach more page breaks). A thrown ParseError is a refusal, not a finding;
// a crash, trap, leak, hang or sanitizer report is one.
@testable import IBParse

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzDocument(data, size) { try MarkdownParser.parse($0, options: $1) }
}
