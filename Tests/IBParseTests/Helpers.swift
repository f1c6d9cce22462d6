import XCTest
import IBCore
@testable import IBParse
#if canImport(Glibc)
import Glibc
#endif

/// A fresh temporary directory per test case.
final class TempDir {
    let path: String
    init() {
        var template = Array("/tmp/ib-parse-test-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }
    deinit { _ = system("rm -rf '\(path)'") }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let file = "\(path)/\(name)"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0)
        bytes.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return file
    }
    @discardableResult
    func write(_ name: String, _ text: String) -> String { write(name, Array(text.utf8)) }
}

/// The repository root, found from this file's path.
let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/").map(String.init)
    parts.removeLast(3)
    return "/" + parts.joined(separator: "/")
}()

let fixtureBooks = repositoryRoot + "/shared/fixtures/books"

func parseFile(_ path: String, _ configure: (inout ParseOptions) -> Void = { _ in }) throws -> (BookRecord, [PageRecord]) {
    var options = ParseOptions()
    configure(&options)
    return try Parser.parse(try InputSource.file(path), options: options)
}

func parseError(_ path: String, _ configure: (inout ParseOptions) -> Void = { _ in }) -> String? {
    do { _ = try parseFile(path, configure); return nil } catch { return "\(error)" }
}

/// Words of a text, normalized: lower case, letters and digits only.
func normalizedWords(_ text: String) -> [String] {
    var words: [String] = []
    for raw in text.split(whereSeparator: { $0.isWhitespace || $0 == "\u{2014}" || $0 == "\u{2013}" || $0 == "\u{2060}" }) {
        let w = String(String.UnicodeScalarView(raw.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }))
        if !w.isEmpty { words.append(w) }
    }
    return words
}
