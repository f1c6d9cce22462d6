#if canImport(Glibc)
import Glibc
#endif
import XCTest
import IBCore
@testable import IBStore

/// MappedPages: the extent of SQLite's map of the library file; released, its pages
/// leave the process (the mapping's resident size falls to nothing) and what is read
/// afterwards comes back through the same map, the same.
extension LibraryTests {
    func testMappedPagesAreReleasedAndReadAgain() throws {
        let first = Self.book(1, chunks: 40), second = Self.book(2, chunks: 40)
        try store(first + second)
        let library = try Library.open(path: dbPath)
        guard case .chunk(let own) = first.first(where: { if case .chunk = $0 { true } else { false } }),
              let vector = own.embedding else { return XCTFail("no chunk") }
        let near = try library.nearestChunks(to: vector, k: 5, in: nil)
        let words = try library.fullTextCandidates(match: "plain", concepts: nil, in: nil, limit: 10)
        let map = try XCTUnwrap(MappedPages(library))
        XCTAssertEqual(map.length, FileSystem.size(dbPath))
        XCTAssertGreaterThan(try residentKB(map), 0, "the reads went through the map")
        map.release()
        XCTAssertEqual(try residentKB(map), 0)
        XCTAssertEqual(try library.nearestChunks(to: vector, k: 5, in: nil), near)
        XCTAssertEqual(try library.fullTextCandidates(match: "plain", concepts: nil, in: nil, limit: 10), words)
        XCTAssertGreaterThan(try residentKB(map), 0, "read again through the same map")
    }

    func testALibraryReadWithoutAMapHasNoMappedPages() throws {
        try store(Self.book(1))
        let saved = Database.mmapSize
        Database.mmapSize = 0
        defer { Database.mmapSize = saved }
        let library = try Library.open(path: dbPath)
        XCTAssertEqual(try library.chunkTotal(), 10)
        XCTAssertNil(MappedPages(library))
    }

    /// The resident size of the mapping starting at `map.start` (/proc/self/smaps).
    private func residentKB(_ map: MappedPages) throws -> Int {
        let smaps = String(decoding: try FileSystem.read("/proc/self/smaps"), as: UTF8.self)
        let start = String(map.start, radix: 16) + "-"
        var inside = false
        for line in smaps.split(separator: "\n") {
            if let first = line.first, first.isHexDigit, line.contains("-") && !line.hasSuffix(":") && line.split(separator: " ").count >= 5 {
                inside = line.hasPrefix(start)
            } else if inside && line.hasPrefix("Rss:") {
                return Int(line.split(separator: " ")[1]) ?? -1
            }
        }
        XCTFail("no mapping at \(start) in /proc/self/smaps")
        return -1
    }
}
