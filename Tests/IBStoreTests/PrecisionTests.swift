// The library's precision (meta 'embedding_precision'): recorded with the first
// vectors, absent reads as fp32, another precision is refused with nothing of
// the book stored unless allowMixedPrecision, and export writes it back out.
import XCTest
import IBCore
#if canImport(Glibc)
import Glibc
#endif
@testable import IBStore

extension LibraryTests {
    /// Book `n`'s records with every vector marked as made in `precision` (nil: no field).
    static func book(_ n: Int, precision: String?) -> [Record] {
        book(n).map { record in
            guard case .chunk(var chunk) = record else { return record }
            chunk.precision = precision
            return .chunk(chunk)
        }
    }

    func testPrecisionIsRecordedWithTheFirstVectors() throws {
        let library = try Library.open(path: dbPath)
        XCTAssertNil(try library.embeddingPrecision(), "no vectors, no precision")
        try store(Self.book(1, precision: "int8"), library: library)
        XCTAssertEqual(try library.meta("embedding_precision"), "int8")
        XCTAssertEqual(try library.embeddingPrecision(), "int8")
        XCTAssertEqual(try library.stats()["precision"]?.stringValue, "int8")
        XCTAssertNil(try library.stats()["mixed_precision"])
    }

    func testRecordsWithoutPrecisionMakeAnFP32Library() throws {
        try store(Self.book(1, precision: nil))
        let library = try Library.open(path: dbPath)
        XCTAssertEqual(try library.meta("embedding_precision"), "fp32")
        // A library made before precisions were recorded has no entry: it reads as fp32.
        try library.setMeta("embedding_precision", nil)
        XCTAssertEqual(try library.embeddingPrecision(), "fp32")
        try store(Self.book(2, precision: "fp32"), library: library)
        try assertNothingStored(Self.book(3, precision: "int8"), contains: "int8 embeddings, but the library holds fp32 vectors")
    }

    func testAnotherPrecisionIsRefusedUnlessMixingIsAllowed() throws {
        try store(Self.book(1, precision: nil))
        try assertNothingStored(Self.book(2, precision: "int8"), contains: "--mixed-precision")
        try assertNothingStored(Self.book(3, precision: "bf16"), contains: "bf16 embeddings")
        let library = try Library.open(path: dbPath)
        XCTAssertNil(try library.mixedPrecisions().first)

        let indexer = Indexer(library: library)
        indexer.allowMixedPrecision = true
        var reports: [String] = []
        indexer.report = { reports.append($0) }
        // The stored book again, now in int8: a no-op, so no int8 vector came in.
        for record in Self.book(1, precision: "int8") { try indexer.add(record) }
        try indexer.finish()
        XCTAssertEqual(try library.mixedPrecisions(), [])
        for record in Self.book(2, precision: "int8") { try indexer.add(record) }
        try indexer.finish()
        XCTAssertEqual(try library.book(id: bookID(Self.book(2)))?.vectorCount, 10)
        XCTAssertEqual(try library.embeddingPrecision(), "fp32", "the library keeps its first precision")
        XCTAssertEqual(try library.mixedPrecisions(), ["int8"])
        XCTAssertEqual(try library.stats()["mixed_precision"], JSON(["int8"]))
        XCTAssertTrue(reports.contains { $0.contains("int8 embeddings stored beside the library's fp32 vectors") }, "\(reports)")
    }

    func testOneBookInTwoPrecisionsIsRefused() throws {
        var records = Self.book(1, precision: "int8")
        if case .chunk(var c) = records[records.count - 1] { c.precision = nil; records[records.count - 1] = .chunk(c) }
        try assertNothingStored(records, contains: "was embedded in fp32, others in int8")
        XCTAssertNil(try Library.open(path: dbPath).meta("embedding_precision"), "nothing recorded for a refused book")
    }

    func testFillingMissingVectorsChecksThePrecision() throws {
        try store(Self.book(1, embedded: 5))
        var rest = Self.book(1, precision: "int8")
        rest.removeFirst()   // no book record: vectors for a stored book
        XCTAssertThrowsError(try store(rest)) { XCTAssertTrue("\($0)".contains("int8 embeddings"), "\($0)") }
        XCTAssertEqual(try Library.open(path: dbPath).book(id: bookID(Self.book(1)))?.vectorCount, 5)
    }

    func testExportWritesTheLibrarysPrecision() throws {
        try store(Self.book(1, precision: "int8"))
        let path = directory + "/export.jsonl"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let out = OutputStream(fd: fd)
        try Exporter(library: try Library.open(path: dbPath)).export(to: out)
        out.flush()
        close(fd)
        var precisions: [String?] = []
        try RecordReader.forEach(paths: [path]) { record, _ in
            if case .chunk(let chunk) = record, chunk.embedding != nil { precisions.append(chunk.precision) }
        }
        XCTAssertEqual(precisions, Array(repeating: "int8", count: 10))
    }
}
