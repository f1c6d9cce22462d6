#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import XCTest
import IBCore
@testable import IBStore

/// MappedPages: the page-table entries of SQLite's map of the library file, cleared
/// on another thread while the connection reads in one transaction; after finish()
/// the mapping holds no page, the connection is out of its transaction, and what is
/// read afterwards comes back through the same map, the same.
extension LibraryTests {
    func testMappedPagesAreClearedAndReadAgain() throws {
        let first = Self.book(1, chunks: 40), second = Self.book(2, chunks: 40)
        try store(first + second)
        let library = try Library.open(path: dbPath)
        guard case .chunk(let own) = first.first(where: { if case .chunk = $0 { true } else { false } }),
              let vector = own.embedding else { return XCTFail("no chunk") }
        let near = try library.nearestChunks(to: vector, k: 5, in: nil)
        let words = try library.fullTextCandidates(match: "plain", concepts: nil, in: nil, limit: 10)
        let pages = MappedPages(releasing: [library])
        XCTAssertEqual(pages.extents.count, 1)
        XCTAssertEqual(pages.extents.first?.length, FileSystem.size(dbPath))
        XCTAssertEqual(sqlite3_get_autocommit(library.db.handle), 0, "reads in one transaction until finish()")
        let start = try XCTUnwrap(pages.extents.first?.start)
        pages.finish()
        XCTAssertEqual(sqlite3_get_autocommit(library.db.handle), 1)
        XCTAssertEqual(try residentKB(start), 0)
        XCTAssertEqual(try library.nearestChunks(to: vector, k: 5, in: nil), near)
        XCTAssertEqual(try library.fullTextCandidates(match: "plain", concepts: nil, in: nil, limit: 10), words)
        XCTAssertGreaterThan(try residentKB(start), 0, "read again through the same map")
        pages.finish()   // idempotent
    }

    /// Another connection adds a book while the pages are cleared: this one keeps reading
    /// its snapshot, and sees the book once finished.
    func testAWriterDuringTheClearingIsSeenAfterIt() throws {
        try store(Self.book(1, chunks: 40))
        let library = try Library.open(path: dbPath)
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks"), 40)
        let pages = MappedPages(releasing: [library])
        XCTAssertEqual(pages.extents.count, 1)
        try store(Self.book(2, chunks: 400, text: "other words"))
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks"), 40, "the snapshot of the transaction")
        pages.finish()
        XCTAssertEqual(try library.db.scalarInt("SELECT count(*) FROM chunks"), 440)
        XCTAssertEqual(try library.fullTextCandidates(match: "other", concepts: nil, in: nil, limit: 1000).count, 400)
    }

    func testAConnectionWithoutAMapOrInATransactionIsLeftAlone() throws {
        try store(Self.book(1))
        let busy = try Library.open(path: dbPath)
        try busy.db.execute("BEGIN")
        XCTAssertEqual(try busy.chunkTotal(), 10)
        XCTAssertTrue(MappedPages(releasing: [busy]).extents.isEmpty)
        XCTAssertEqual(sqlite3_get_autocommit(busy.db.handle), 0, "its own transaction goes on")
        try busy.db.execute("COMMIT")

        let saved = Database.mmapSize
        Database.mmapSize = 0
        defer { Database.mmapSize = saved }
        let unmapped = try Library.open(path: dbPath)
        XCTAssertEqual(try unmapped.chunkTotal(), 10)
        XCTAssertTrue(MappedPages(releasing: [unmapped]).extents.isEmpty)
        XCTAssertEqual(sqlite3_get_autocommit(unmapped.db.handle), 1)
    }

    /// The resident size of the mapping starting at `start` (/proc/self/smaps).
    private func residentKB(_ start: Int) throws -> Int {
        let smaps = String(decoding: try FileSystem.read("/proc/self/smaps"), as: UTF8.self)
        let prefix = String(start, radix: 16) + "-"
        var inside = false
        for line in smaps.split(separator: "\n") {
            if let first = line.first, first.isHexDigit, !line.hasSuffix(":"), line.split(separator: " ").count >= 5 {
                inside = line.hasPrefix(prefix)
            } else if inside && line.hasPrefix("Rss:") {
                return Int(line.split(separator: " ")[1]) ?? -1
            }
        }
        XCTFail("no mapping at \(prefix) in /proc/self/smaps")
        return -1
    }
}
