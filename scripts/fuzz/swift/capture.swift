// libFuzzer harness: the capture grammar, English and Simplified Chinese
// (CaptureParser.parse, with the date and number parsing under it), and the
// record a dry run writes for the result. Built and run by
// scripts/fuzz/run capture. The input is the line, as UTF-8 (invalid bytes
// repaired, as ib-capture reads its argument); "today" moves with the input's
// length so month ends and leap days come up. The parser never throws: a
// crash, trap, leak, hang or sanitizer report is a finding. Invariants (trap
// on failure): a page reference is 1 or more, or else marked bad; a range
// does not end before it starts.
@testable import IBCapture
import IBCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let line = size == 0 ? "" : String(decoding: UnsafeBufferPointer(start: data!, count: size), as: UTF8.self)
    let parser = CaptureParser(today: Day(serial: 20_000 + size % 4_000))
    let c = parser.parse(line)
    if let page = c.page, page < 1 { fatalError("page \(page) below 1 from \(line.debugDescription)") }
    if let end = c.pageEnd, let page = c.page, end < page { fatalError("page range \(page)-\(end) from \(line.debugDescription)") }
    _ = c.summary
    if c.intent != .unknown && c.badPage == nil { _ = CaptureEngine.dryRunRecord(c).serialized }
    return 0
}
