// libFuzzer harness: IBParse's EPUB reader (EPUBParser.parse), with the ZIP
// reader and the pagination under it. Built and run by scripts/fuzz/run epub.
// The input is a .epub file, or a bundle of its entries (see shared/Bundle.swift)
// so the fuzzer mutates the XML inside a valid archive. A thrown ParseError is
// a refusal, not a finding; a crash, trap, leak, hang or sanitizer report is one.
@testable import IBParse

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzDocument(data, size) { try EPUBParser.parse(Bundle.archive($0), options: $1) }
}
