// libFuzzer harness: IBParse's ZIP reader (ZipArchive), under EPUB and DOCX.
// Built and run by scripts/fuzz/run zip. The input is a ZIP archive, or a
// bundle that becomes one (see shared/Bundle.swift). Every entry is read,
// with a limit taken from the input so the capped path is reached too; a
// thrown ParseError is a refusal, not a finding. Invariants (trap on failure):
// an entry read whole has its declared size; a capped read is at most the cap.
@testable import IBParse

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data!, count: size))
    let bytes = Bundle.archive(input)
    guard let zip = try? ZipArchive(bytes) else { return 0 }
    let cap = size > 0 ? Int(input[size - 1]) * 64 : 0
    for entry in zip.entries {
        _ = zip.entry(entry.name)
        _ = zip.entry(entry.name.uppercased())
        if let whole = try? zip.read(entry) {
            if whole.count != entry.uncompressedSize { fatalError("'\(entry.name)': read \(whole.count) bytes, declared \(entry.uncompressedSize)") }
        }
        if let part = try? zip.read(entry, limit: cap), part.count > cap {
            fatalError("'\(entry.name)': read \(part.count) bytes past the limit \(cap)")
        }
    }
    _ = try? ZipArchive.checkTextSize(zip.entries, what: "archive")
    return 0
}
