// Tests of the ibvec SQLite extension (Sources/CIBVec) through a real
// SQLite connection: every SQL function against a plain Swift reference, the
// errors for bad input, ibvec_knn's in-scan book/page filter, identical
// results across the forced SIMD kernels, and int8/binary recall.
import CIBSimd
import CIBVec
import CSQLite
import Dispatch
import Synchronization
import XCTest

/// Parts the test runner of testSplitScanGivesTheSameResults was given.
let splitScanParts = Atomic<Int>(0)

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A tiny SQLite wrapper for these tests only.
private final class VecDB {
    let db: OpaquePointer

    init() throws {
        var handle: OpaquePointer?
        guard sqlite3_open(":memory:", &handle) == SQLITE_OK, let handle else {
            throw TestError("cannot open an in-memory database")
        }
        db = handle
        var err: UnsafeMutablePointer<CChar>?
        guard sqlite3_ibvec_init(db, &err, nil) == SQLITE_OK else {
            throw TestError("ibvec init failed: \(err.map { String(cString: $0) } ?? "?")")
        }
    }

    deinit { sqlite3_close(db) }

    enum Arg {
        case blob([UInt8]), text(String), int(Int), null, real(Double)
    }

    /// Runs a statement; returns all rows as arrays of SQLite values, or throws the error message.
    @discardableResult
    func rows(_ sql: String, _ args: [Arg] = []) throws -> [[Value]] {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw TestError(String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(stmt) }
        for (i, arg) in args.enumerated() {
            let n = Int32(i + 1)
            switch arg {
            case .blob(let b): _ = b.withUnsafeBytes { sqlite3_bind_blob(stmt, n, $0.baseAddress, Int32($0.count), transient) }
            case .text(let t): sqlite3_bind_text(stmt, n, t, -1, transient)
            case .int(let v): sqlite3_bind_int64(stmt, n, sqlite3_int64(v))
            case .real(let v): sqlite3_bind_double(stmt, n, v)
            case .null: sqlite3_bind_null(stmt, n)
            }
        }
        var out: [[Value]] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw TestError(String(cString: sqlite3_errmsg(db))) }
            var row: [Value] = []
            for c in 0..<sqlite3_column_count(stmt) {
                switch sqlite3_column_type(stmt, c) {
                case SQLITE_INTEGER: row.append(.int(Int(sqlite3_column_int64(stmt, c))))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(stmt, c)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(stmt, c))))
                case SQLITE_BLOB:
                    let n = Int(sqlite3_column_bytes(stmt, c))
                    let p = sqlite3_column_blob(stmt, c)
                    row.append(.blob(n == 0 ? [] : Array(UnsafeRawBufferPointer(start: p, count: n))))
                default: row.append(.null)
                }
            }
            out.append(row)
        }
        return out
    }

    func one(_ sql: String, _ args: [Arg] = []) throws -> Value {
        let r = try rows(sql, args)
        guard let first = r.first?.first else { throw TestError("no row for \(sql)") }
        return first
    }

    /// The error message of a statement that must fail.
    func error(_ sql: String, _ args: [Arg] = [], file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try rows(sql, args)
            XCTFail("expected an error from \(sql)", file: file, line: line)
            return ""
        } catch let e as TestError {
            return e.message
        } catch {
            return "\(error)"
        }
    }
}

private enum Value: Equatable {
    case int(Int), real(Double), text(String), blob([UInt8]), null
    var double: Double { if case .real(let d) = self { return d }; if case .int(let i) = self { return Double(i) }; return .nan }
    var int: Int { if case .int(let i) = self { return i }; return Int.min }
    var string: String { if case .text(let s) = self { return s }; return "" }
    var bytes: [UInt8] { if case .blob(let b) = self { return b }; return [] }
    var floats: [Float] {
        let b = bytes
        return stride(from: 0, to: b.count, by: 4).map { i in
            Float(bitPattern: UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24)
        }
    }
}

private struct TestError: Error { let message: String; init(_ m: String) { message = m } }

private func blob(_ v: [Float]) -> [UInt8] {
    v.flatMap { f -> [UInt8] in let u = f.bitPattern; return [UInt8(u & 0xff), UInt8(u >> 8 & 0xff), UInt8(u >> 16 & 0xff), UInt8(u >> 24)] }
}
private func blob64(_ v: [Int64]) -> [UInt8] { v.flatMap { x in (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: x) >> (8 * UInt64($0))) } } }
private func blob32(_ v: [Int32]) -> [UInt8] { v.flatMap { x in (0..<4).map { UInt8(truncatingIfNeeded: UInt32(bitPattern: x) >> (8 * UInt32($0))) } } }

/// A deterministic generator (SplitMix64), so failures reproduce.
private struct Rng {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func float() -> Float { Float(Double(next() >> 11) / Double(1 << 53) * 2 - 1) }
    mutating func vector(_ n: Int) -> [Float] { (0..<n).map { _ in float() } }
}

private func refCosine(_ a: [Float], _ b: [Float]) -> Double {
    var d = 0.0, aa = 0.0, bb = 0.0
    for i in a.indices { d += Double(a[i]) * Double(b[i]); aa += Double(a[i]) * Double(a[i]); bb += Double(b[i]) * Double(b[i]) }
    return 1 - d / (aa.squareRoot() * bb.squareRoot())
}

private let schema = """
    CREATE TABLE vector_blocks (
      id INTEGER PRIMARY KEY, book_id TEXT NOT NULL, model TEXT NOT NULL, dim INTEGER NOT NULL,
      count INTEGER NOT NULL, keys BLOB NOT NULL, end_pages BLOB NOT NULL, vectors BLOB NOT NULL,
      vectors_i8 BLOB, scales BLOB, bits BLOB);
    CREATE INDEX vector_blocks_book ON vector_blocks(book_id);
    """

private struct Chunk { var book: String; var key: Int; var endPage: Int; var vector: [Float] }

/// Stores chunks in blocks of at most `blockSize`, one book and model at a time.
private func store(_ db: VecDB, _ chunks: [Chunk], model: String = "m", blockSize: Int = 1024, quantise: Bool = true) throws {
    let byBook = Dictionary(grouping: chunks, by: \.book)
    for book in byBook.keys.sorted() {
        let list = byBook[book]!
        for start in stride(from: 0, to: list.count, by: blockSize) {
            let part = Array(list[start..<min(start + blockSize, list.count)])
            let dim = part[0].vector.count
            let sql = quantise
                ? "INSERT INTO vector_blocks(book_id,model,dim,count,keys,end_pages,vectors,vectors_i8,scales,bits) VALUES(?1,?2,?3,?4,?5,?6,?7,vec_block_i8(?7,?3),vec_block_scales(?7,?3),vec_block_bits(?7,?3))"
                : "INSERT INTO vector_blocks(book_id,model,dim,count,keys,end_pages,vectors) VALUES(?1,?2,?3,?4,?5,?6,?7)"
            try db.rows(sql, [.text(book), .text(model), .int(dim), .int(part.count),
                              .blob(blob64(part.map { Int64($0.key) })), .blob(blob32(part.map { Int32($0.endPage) })),
                              .blob(blob(part.flatMap(\.vector)))])
        }
    }
}

private func availableKernels() -> [String] {
    ["scalar", "avx2", "avx512"].filter { ibvec_set_kernel($0) == 0 }
}

/// The kernels to compare: every one this CPU runs, and AVX-512 once more with
/// IBVEC_VNNI=0 ("avx512-novnni") so that the plain AVX-512 int8 and bit kernels run
/// on CPUs that have VNNI too. useKernel selects one of them.
private func kernelVariants() -> [String] {
    let names = availableKernels()
    return names.contains("avx512") ? names + ["avx512-novnni"] : names
}

/// Selects a kernel variant through SQL, as a caller would; returns the name ibvec reports.
private func useKernel(_ db: VecDB, _ variant: String) throws -> String {
    if variant == "avx512-novnni" { setenv("IBVEC_VNNI", "0", 1) } else { unsetenv("IBVEC_VNNI") }
    defer { unsetenv("IBVEC_VNNI") }
    return try db.one("SELECT ibvec_set_kernel(?)", [.text(variant == "avx512-novnni" ? "avx512" : variant)]).string
}

final class IBVecTests: XCTestCase {
    override func tearDown() { unsetenv("IBVEC_VNNI"); _ = ibvec_set_kernel("auto") }

    func testF32JsonDims() throws {
        let db = try VecDB()
        let v = try db.one("SELECT vec_f32('[1, 2.5, -3e-7, 0]')")
        XCTAssertEqual(v.floats, [1, 2.5, -3e-7, 0])
        XCTAssertEqual(v.bytes, blob([1, 2.5, -3e-7, 0]))
        XCTAssertEqual(try db.one("SELECT vec_f32(?)", [.blob(blob([0.5, -1]))]).floats, [0.5, -1])
        XCTAssertEqual(try db.one("SELECT vec_json(?)", [.blob(blob([1, 2.5, -3e-7]))]).string, "[1,2.5,-3e-07]")
        // JSON text round-trips every float32 exactly
        var rng = Rng(state: 7)
        let r = rng.vector(50)
        let back = try db.one("SELECT vec_f32(vec_json(?))", [.blob(blob(r))]).floats
        XCTAssertEqual(back, r)
        XCTAssertEqual(try db.one("SELECT vec_dims('[1,2,3]')").int, 3)
        XCTAssertEqual(try db.one("SELECT vec_dims(?)", [.blob(blob(r))]).int, 50)
        XCTAssertEqual(try db.one("SELECT vec_f32(NULL)"), .null)
    }

    func testDistancesAgainstReference() throws {
        let db = try VecDB()
        var rng = Rng(state: 42)
        for dim in [1, 3, 15, 16, 17, 33, 384, 1000] {
            let a = rng.vector(dim), b = rng.vector(dim)
            var dot = 0.0, l2 = 0.0
            for i in 0..<dim { dot += Double(a[i]) * Double(b[i]); l2 += Double(a[i] - b[i]) * Double(a[i] - b[i]) }
            let args: [VecDB.Arg] = [.blob(blob(a)), .blob(blob(b))]
            XCTAssertEqual(try db.one("SELECT vec_distance_cosine(?,?)", args).double, refCosine(a, b), accuracy: 1e-5, "dim \(dim)")
            XCTAssertEqual(try db.one("SELECT vec_distance_l2(?,?)", args).double, l2.squareRoot(), accuracy: 1e-4 * max(1, l2.squareRoot()))
            XCTAssertEqual(try db.one("SELECT vec_distance_dot(?,?)", args).double, -dot, accuracy: 1e-4 * max(1, abs(dot)))
        }
        XCTAssertEqual(try db.one("SELECT vec_distance_cosine('[1,0]','[0,1]')").double, 1, accuracy: 1e-12)
        XCTAssertEqual(try db.one("SELECT vec_distance_cosine('[1,2]','[2,4]')").double, 0, accuracy: 1e-7)
        XCTAssertEqual(try db.one("SELECT vec_distance_cosine('[0,0]','[2,4]')").double, 1)  // a zero vector: 1
        XCTAssertEqual(try db.one("SELECT vec_distance_l2('[0,0]','[3,4]')").double, 5)
        XCTAssertEqual(try db.one("SELECT vec_distance_dot('[1,2]','[3,4]')").double, -11)
    }

    func testNormalizeQuantizeHamming() throws {
        let db = try VecDB()
        let n = try db.one("SELECT vec_normalize('[3,4]')").floats
        XCTAssertEqual(n[0], 0.6, accuracy: 1e-7); XCTAssertEqual(n[1], 0.8, accuracy: 1e-7)
        var rng = Rng(state: 3)
        for dim in [1, 5, 8, 9, 384] {
            let x = rng.vector(dim)
            // int8: scale = max|x| / 127, code = round-half-even(x / max|x| * 127)
            let mx = x.map(abs).max()!
            let want = x.map { Int8(max(-127, min(127, ($0 / mx * 127).rounded(.toNearestOrEven)))) }
            let got = try db.one("SELECT vec_quantize_i8(?)", [.blob(blob(x))]).bytes.map { Int8(bitPattern: $0) }
            XCTAssertEqual(got, want, "dim \(dim)")
            // bits: bit i set when x[i] > 0, least significant bit first
            var bits = [UInt8](repeating: 0, count: (dim + 7) / 8)
            for i in 0..<dim where x[i] > 0 { bits[i / 8] |= UInt8(1 << (i % 8)) }
            XCTAssertEqual(try db.one("SELECT vec_quantize_bits(?)", [.blob(blob(x))]).bytes, bits)
            // normalise: unit length, same direction
            let u = try db.one("SELECT vec_normalize(?)", [.blob(blob(x))]).floats
            XCTAssertEqual(u.reduce(0.0) { $0 + Double($1) * Double($1) }, 1, accuracy: 1e-5)
            XCTAssertEqual(refCosine(u, x), 0, accuracy: 1e-6)
        }
        let a: [UInt8] = [0xff, 0x00, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8], b: [UInt8] = [0x0f, 0x01, 0xf0, 1, 2, 3, 4, 5, 6, 7, 0]
        let want = zip(a, b).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount }
        XCTAssertEqual(try db.one("SELECT vec_distance_hamming(?,?)", [.blob(a), .blob(b)]).int, want)
        XCTAssertEqual(try db.one("SELECT vec_distance_hamming(vec_quantize_bits('[1,-1,1]'), vec_quantize_bits('[1,1,-1]'))").int, 2)
    }

    /// The one int8 rule (ib_quantize_i8): ties round to even, in vec_quantize_i8, in
    /// vec_block_i8 and in ib-embed's window codes (WindowTests.testWindowCodesRoundTiesToEven
    /// pins the same bytes for the same vector on the Swift side).
    func testInt8TiesRoundToEven() throws {
        let db = try VecDB()
        let row: [Float] = [127, 12.5, -8.5, 4.5, -2.5]
        let want: [Int8] = [127, 12, -8, 4, -2]  // half away from zero: 127, 13, -9, 5, -3
        XCTAssertEqual(try db.one("SELECT vec_quantize_i8(?)", [.blob(blob(row))]).bytes.map { Int8(bitPattern: $0) }, want)
        XCTAssertEqual(try db.one("SELECT vec_block_i8(?, 5)", [.blob(blob(row))]).bytes.map { Int8(bitPattern: $0) }, want)
        let pooled = row.map { $0 / 128 }  // what the window pooling makes of it: exact
        XCTAssertEqual(try db.one("SELECT vec_quantize_i8(?)", [.blob(blob(pooled))]).bytes.map { Int8(bitPattern: $0) }, want)
        XCTAssertEqual(try db.one("SELECT hex(vec_quantize_i8('[127,0.5,1.5,2.5,-0.5,-1.5,-2.5]'))").string, "7F00020200FEFE")
    }

    /// ib_quantize_i8 takes its max |x| eight lanes at a time: the scale and codes must
    /// be the scalar rule's, bit for bit, for every length (tails included), with NaNs
    /// ignored by the maximum and -0 counted as 0.
    func testInt8QuantiserMatchesTheScalarRule() {
        var state: UInt64 = 7
        func random() -> Float { state = state &* 6364136223846793005 &+ 1442695040888963407; return Float(Int64(bitPattern: state >> 11) % 200001 - 100000) / 997 }
        for dim in [1, 7, 8, 9, 15, 16, 17, 31, 64, 383, 384, 1536] {
            var x = (0..<dim).map { _ in random() }
            if dim > 3 { x[dim / 2] = .nan; x[1] = -0.0; x[dim - 1] = -x.map(abs).filter { !$0.isNaN }.max()! * 1.5 }
            var mx: Float = 0
            for v in x where abs(v) > mx { mx = abs(v) }
            let want = x.map { v -> Int8 in
                var t = v / mx * 127
                t = t > 127 ? 127 : (t < -127 ? -127 : t)
                return Int8(t.isNaN ? 0 : t.rounded(.toNearestOrEven))
            }
            var codes = [Int8](repeating: 0, count: dim), scale: Float = 0
            ib_quantize_i8(x, Int32(dim), &codes, &scale)
            XCTAssertEqual(scale.bitPattern, (mx / 127).bitPattern, "scale, dim \(dim)")
            XCTAssertEqual(codes, want, "codes, dim \(dim)")
        }
    }

    func testBlockHelpersMatchPerVectorFunctions() throws {
        let db = try VecDB()
        var rng = Rng(state: 11)
        let dim = 13, count = 5
        let vs = (0..<count).map { _ in rng.vector(dim) }
        let whole = VecDB.Arg.blob(blob(vs.flatMap { $0 }))
        let i8 = try db.one("SELECT vec_block_i8(?, 13)", [whole]).bytes
        let scales = try db.one("SELECT vec_block_scales(?, 13)", [whole]).floats
        let bits = try db.one("SELECT vec_block_bits(?, 13)", [whole]).bytes
        XCTAssertEqual(i8.count, dim * count); XCTAssertEqual(scales.count, count); XCTAssertEqual(bits.count, 2 * count)
        for (i, v) in vs.enumerated() {
            XCTAssertEqual(Array(i8[i * dim..<(i + 1) * dim]), try db.one("SELECT vec_quantize_i8(?)", [.blob(blob(v))]).bytes)
            XCTAssertEqual(Array(bits[i * 2..<(i + 1) * 2]), try db.one("SELECT vec_quantize_bits(?)", [.blob(blob(v))]).bytes)
            XCTAssertEqual(scales[i], v.map(abs).max()! / 127)
        }
    }

    func testErrors() throws {
        let db = try VecDB()
        XCTAssertTrue(db.error("SELECT vec_f32(?)", [.blob(blob([1, .nan]))]).contains("NaN"))
        XCTAssertTrue(db.error("SELECT vec_f32(?)", [.blob(blob([.infinity]))]).contains("NaN or infinite"))
        XCTAssertTrue(db.error("SELECT vec_f32('[1, NaN]')").contains("NaN"))
        XCTAssertTrue(db.error("SELECT vec_f32('[1e39]')").contains("float32 range"))
        XCTAssertTrue(db.error("SELECT vec_f32('[1,2')").contains("malformed JSON"))
        XCTAssertTrue(db.error("SELECT vec_f32('[1,2] x')").contains("malformed JSON"))
        XCTAssertTrue(db.error("SELECT vec_f32('[1,\"a\"]')").contains("not a number"))
        XCTAssertTrue(db.error("SELECT vec_f32('{\"a\":1}')").contains("array"))
        XCTAssertTrue(db.error("SELECT vec_f32('[]')").contains("empty"))
        XCTAssertTrue(db.error("SELECT vec_f32(x'000000')").contains("multiple of 4"))
        XCTAssertTrue(db.error("SELECT vec_f32(x'')").contains("empty"))
        XCTAssertTrue(db.error("SELECT vec_f32(3)").contains("expected"))
        XCTAssertTrue(db.error("SELECT vec_distance_cosine('[1,2]','[1,2,3]')").contains("dimension mismatch"))
        XCTAssertTrue(db.error("SELECT vec_distance_l2('[1]','[1,2]')").contains("dimension mismatch"))
        XCTAssertTrue(db.error("SELECT vec_distance_dot('[1]', x'0000')").contains("multiple of 4"))
        XCTAssertTrue(db.error("SELECT vec_normalize('[0,0]')").contains("zero vector"))
        XCTAssertTrue(db.error("SELECT vec_distance_hamming(x'00', x'0000')").contains("length mismatch"))
        XCTAssertTrue(db.error("SELECT vec_distance_hamming('a', 'b')").contains("bit blobs"))
        XCTAssertTrue(db.error("SELECT vec_block_i8(?, 3)", [.blob(blob([1, 2, 3, 4]))]).contains("multiple of dim"))
        XCTAssertTrue(db.error("SELECT vec_block_bits(?, 0)", [.blob(blob([1, 2]))]).contains("dim must be"))
        XCTAssertTrue(db.error("SELECT vec_block_scales(?, 2)", [.blob(blob([1, .nan]))]).contains("NaN"))
        XCTAssertTrue(db.error("SELECT ibvec_set_kernel('sse9')").contains("unknown kernel"))
    }

    func testKernelsGiveBitIdenticalResults() throws {
        let db = try VecDB()
        try db.rows(schema)
        var rng = Rng(state: 99)
        let chunks = (0..<700).map { Chunk(book: $0 % 2 == 0 ? "a" : "b", key: $0, endPage: $0 % 40 + 1, vector: rng.vector(37)) }
        try store(db, chunks, blockSize: 128)
        let wide = try VecDB()
        try wide.rows(schema)
        try store(wide, (0..<150).map { Chunk(book: "w", key: $0, endPage: 1, vector: rng.vector(600)) }, blockSize: 64)
        let kernels = kernelVariants()
        XCTAssertTrue(kernels.contains("scalar"))
        var reference: [String: [Value]]?
        for kernel in kernels {
            let name = kernel == "avx512-novnni" ? "avx512" : kernel
            XCTAssertEqual(try useKernel(db, kernel), name)
            XCTAssertEqual(try db.one("SELECT ibvec_kernel()").string, name)
            var results: [String: [Value]] = [:]
            var local = Rng(state: 5)
            for dim in [1, 7, 16, 31, 384] {
                let args: [VecDB.Arg] = [.blob(blob(local.vector(dim))), .blob(blob(local.vector(dim)))]
                results["d\(dim)"] = try db.rows("SELECT vec_distance_cosine(?1,?2), vec_distance_l2(?1,?2), vec_distance_dot(?1,?2), vec_normalize(?1)", args)[0]
            }
            var qr = Rng(state: 8)
            let q = VecDB.Arg.blob(blob(qr.vector(37)))
            // (small pools, so that the int8 and bit scores choose what is rescored)
            for mode in ["exact", "int8", "binary", "int8:30", "binary:30"] {
                results[mode] = try db.rows("SELECT book_id, key, distance FROM ibvec_knn(?, 25, NULL, ?)", [q, .text(mode)]).flatMap { $0 }
            }
            // wide vectors: 75 bytes of bits (past VNNI's 64-byte path), 600 int8 codes
            let wq = VecDB.Arg.blob(blob(qr.vector(600)))
            for mode in ["exact", "int8:10", "binary:10"] {
                results["wide-" + mode] = try wide.rows("SELECT key, distance FROM ibvec_knn(?, 7, NULL, ?)", [wq, .text(mode)]).flatMap { $0 }
            }
            if let reference {
                for (name, values) in reference {
                    // compare the bits of every double, not an approximation
                    let a = values.map { v -> String in if case .real(let d) = v { return String(d.bitPattern) }; return "\(v)" }
                    let b = results[name]!.map { v -> String in if case .real(let d) = v { return String(d.bitPattern) }; return "\(v)" }
                    XCTAssertEqual(a, b, "kernel \(kernel) differs from scalar in \(name)")
                }
            } else {
                reference = results
            }
        }
    }

    func testKnnFiltersInsideTheScan() throws {
        let db = try VecDB()
        try db.rows(schema)
        var rng = Rng(state: 1)
        let dim = 24
        let q = rng.vector(dim)
        var chunks: [Chunk] = []
        // book "a": the query itself as a chunk spanning pages 5-6 (end_page 6), 1500 near chunks
        // past page 5, and 30 far chunks ending on or before page 5.
        chunks.append(Chunk(book: "a", key: 0, endPage: 6, vector: q))
        for i in 1...1500 { chunks.append(Chunk(book: "a", key: i, endPage: 6 + i % 50, vector: q.map { $0 + rng.float() * 0.1 })) }
        for i in 1501...1530 { chunks.append(Chunk(book: "a", key: i, endPage: 1 + i % 5, vector: rng.vector(dim))) }
        // book "b": very near chunks on early pages
        for i in 0..<100 { chunks.append(Chunk(book: "b", key: i, endPage: 1, vector: q.map { $0 + rng.float() * 0.01 })) }
        try store(db, chunks, blockSize: 512)
        let qa = VecDB.Arg.blob(blob(q))

        func reference(_ k: Int, _ scope: [String: Int?]?) -> [String] {
            chunks.filter { c in
                guard let scope else { return true }
                guard let limit = scope[c.book] else { return false }
                return limit.map { c.endPage <= $0 } ?? true
            }
            .map { ($0, refCosine(q, $0.vector)) }
            .sorted { $0.1 < $1.1 }.prefix(k).map { "\($0.0.book):\($0.0.key)" }
        }

        for mode in ["exact", "int8", "binary"] {
            // at page 5 the chunk spanning pages 5-6 must not come back; k rows still do
            let r5 = try db.rows("SELECT book_id, key, end_page, distance FROM ibvec_knn(?, 10, '{\"a\": 5}', ?)", [qa, .text(mode)])
            XCTAssertEqual(r5.count, 10, mode)
            XCTAssertTrue(r5.allSatisfy { $0[0].string == "a" && $0[2].int <= 5 }, mode)
            XCTAssertFalse(r5.contains { $0[1].int == 0 }, mode)
            XCTAssertEqual(r5.map { "\($0[0].string):\($0[1].int)" }, reference(10, ["a": 5]), mode)
            // at page 6 it is the nearest
            let r6 = try db.rows("SELECT book_id, key, end_page, distance FROM ibvec_knn(?, 3, '{\"a\": 6}', ?)", [qa, .text(mode)])
            XCTAssertEqual(r6.first?[1].int, 0, mode); XCTAssertEqual(r6.first?[2].int, 6, mode)
            XCTAssertEqual(r6.first?[3].double ?? 1, 0, accuracy: 1e-6)
            // all of both books, no page limit; and two books with different limits
            XCTAssertEqual(try db.rows("SELECT book_id||':'||key FROM ibvec_knn(?, 20, NULL, ?)", [qa, .text(mode)]).map { $0[0].string },
                           reference(20, nil), mode)
            XCTAssertEqual(try db.rows("SELECT book_id||':'||key FROM ibvec_knn(?, 40, '{\"a\": 5, \"b\": null}', ?)", [qa, .text(mode)]).map { $0[0].string },
                           reference(40, ["a": 5, "b": nil]), mode)
            // fewer pass than k: all of them, no more
            XCTAssertEqual(try db.rows("SELECT key FROM ibvec_knn(?, 100, '{\"a\": 1}', ?)", [qa, .text(mode)]).count,
                           chunks.filter { $0.book == "a" && $0.endPage <= 1 }.count)
            XCTAssertEqual(try db.rows("SELECT key FROM ibvec_knn(?, 10, '{\"zz\": null}', ?)", [qa, .text(mode)]).count, 0)
        }
        // the distance is exactly vec_distance_cosine
        let r = try db.rows("SELECT distance, key FROM ibvec_knn(?, 5, '{\"b\": null}')", [qa])
        for row in r {
            let v = chunks.first { $0.book == "b" && $0.key == row[1].int }!.vector
            XCTAssertEqual(row[0].double.bitPattern, try db.one("SELECT vec_distance_cosine(?, ?)", [qa, .blob(blob(v))]).double.bitPattern)
        }
        // ascending distances, JSON query accepted, trailing arguments optional (k defaults to 10)
        let json = try db.one("SELECT vec_json(?)", [qa]).string
        let d = try db.rows("SELECT distance FROM ibvec_knn(?)", [.text(json)]).map { $0[0].double }
        XCTAssertEqual(d.count, 10); XCTAssertEqual(d, d.sorted())
    }

    func testKnnModelDimAndArgumentErrors() throws {
        let db = try VecDB()
        try db.rows(schema)
        var rng = Rng(state: 2)
        try store(db, (0..<50).map { Chunk(book: "a", key: $0, endPage: 1, vector: rng.vector(8)) }, model: "m1")
        try store(db, (0..<50).map { Chunk(book: "a", key: 100 + $0, endPage: 1, vector: rng.vector(4)) }, model: "m2")
        let q8 = VecDB.Arg.blob(blob(rng.vector(8)))
        // model filter: only m1's 8-dimensional vectors
        let rows = try db.rows("SELECT key FROM ibvec_knn(?, 100, NULL, 'exact', 'm1')", [q8])
        XCTAssertEqual(rows.count, 50); XCTAssertTrue(rows.allSatisfy { $0[0].int < 100 })
        // without it the 4-dimensional block is an error, not silently skipped
        XCTAssertTrue(db.error("SELECT key FROM ibvec_knn(?, 10)", [q8]).contains("dimensions"))
        XCTAssertTrue(db.error("SELECT key FROM ibvec_knn(?, 0)", [q8]).contains("k must be"))
        XCTAssertTrue(db.error("SELECT key FROM ibvec_knn(?, 10001)", [q8]).contains("k must be"))
        XCTAssertTrue(db.error("SELECT key FROM ibvec_knn(?, 10, '[1]', NULL, 'm1')", [q8]).contains("scope"))
        XCTAssertTrue(db.error("SELECT key FROM ibvec_knn(?, 10, '{\"a\": \"x\"}', NULL, 'm1')", [q8]).contains("integer page or null"))
        XCTAssertTrue(db.error("SELECT key FROM ibvec_knn(?, 10, NULL, 'fast', 'm1')", [q8]).contains("mode"))
        XCTAssertTrue(db.error("SELECT key FROM ibvec_knn('[1, NaN]', 10)").contains("NaN"))
        XCTAssertTrue(db.error("SELECT key FROM ibvec_knn").contains("query"))
        // a corrupt block is reported
        try db.rows("UPDATE vector_blocks SET keys = x'00' WHERE model = 'm1'")
        XCTAssertTrue(db.error("SELECT key FROM ibvec_knn(?, 10, NULL, 'exact', 'm1')", [q8]).contains("corrupt"))
    }

    func testQuantisedRecallAndFallback() throws {
        let db = try VecDB()
        try db.rows(schema)
        var rng = Rng(state: 77)
        let dim = 64
        let chunks = (0..<6000).map { Chunk(book: "b\($0 % 3)", key: $0, endPage: $0 % 100 + 1, vector: rng.vector(dim)) }
        try store(db, chunks)
        var hits = [String: Int]()
        let queries = 10
        for _ in 0..<queries {
            let q = VecDB.Arg.blob(blob(rng.vector(dim)))
            let exact = Set(try db.rows("SELECT key FROM ibvec_knn(?, 10, NULL, 'exact')", [q]).map { $0[0].int })
            XCTAssertEqual(exact.count, 10)
            for mode in ["int8", "binary"] {
                let got = try db.rows("SELECT key, distance FROM ibvec_knn(?, 10, NULL, ?)", [q, .text(mode)])
                XCTAssertEqual(got.count, 10)
                hits[mode, default: 0] += got.filter { exact.contains($0[0].int) }.count
            }
        }
        let int8Recall = Double(hits["int8"]!) / Double(10 * queries)
        let binaryRecall = Double(hits["binary"]!) / Double(10 * queries)
        XCTAssertGreaterThanOrEqual(int8Recall, 0.95, "int8 recall@10")
        XCTAssertGreaterThanOrEqual(binaryRecall, 0.8, "binary recall@10")
        // blocks without quantised columns fall back to exact scoring
        try db.rows("UPDATE vector_blocks SET vectors_i8 = NULL, scales = NULL, bits = NULL")
        let q = VecDB.Arg.blob(blob(rng.vector(dim)))
        let exact = try db.rows("SELECT key, distance FROM ibvec_knn(?, 10, NULL, 'exact')", [q])
        XCTAssertEqual(try db.rows("SELECT key, distance FROM ibvec_knn(?, 10, NULL, 'int8')", [q]), exact)
        XCTAssertEqual(try db.rows("SELECT key, distance FROM ibvec_knn(?, 10, NULL, 'binary')", [q]), exact)
    }

    /// Exact mode uses the int8 codes (when a block has them) to skip vectors
    /// that provably cannot be among the k nearest; the rows and distances must
    /// be those of the plain float scan, bit for bit, with every kernel: ties
    /// (duplicates, across books), zero vectors, tiny and huge magnitudes.
    func testExactPruningGivesTheFullScanResults() throws {
        let db = try VecDB()
        try db.rows(schema)
        var rng = Rng(state: 4242)
        let dim = 48
        let base = (0..<6).map { _ in rng.vector(dim) }
        var chunks: [Chunk] = []
        for i in 0..<2400 {
            let book = ["a", "b", "c"][i % 3]
            var v: [Float]
            switch i % 8 {
            case 0: v = base[i % 6]                                               // exact duplicates: ties
            case 1: v = base[i % 6].map { $0 + rng.float() * 0.02 }               // near duplicates
            case 2: v = rng.vector(dim).map { $0 * 1e-25 }                        // underflowing squares
            case 3: v = i % 24 == 3 ? [Float](repeating: 0, count: dim) : rng.vector(dim)  // zero vectors
            default: v = rng.vector(dim).map { $0 * Float(1 + i % 5) }
            }
            chunks.append(Chunk(book: book, key: i, endPage: i % 60 + 1, vector: v))
        }
        try store(db, chunks, blockSize: 100)
        let queries = [base[2], base[4].map { -$0 }, rng.vector(dim), rng.vector(dim).map { $0 * 1e-20 }]
        for kernel in kernelVariants() {
            _ = try useKernel(db, kernel)
            for q in queries {
                for (k, scope) in [(10, nil), (1, "{\"b\": null}"), (50, "{\"a\": 20, \"c\": null}"), (300, nil)] as [(Int, String?)] {
                    let args: [VecDB.Arg] = [.blob(blob(q)), .int(k), scope.map { .text($0) } ?? .null]
                    let sql = "SELECT book_id, key, end_page, distance FROM ibvec_knn(?1, ?2, ?3)"
                    let pruned = try db.rows(sql, args)
                    try db.rows("SAVEPOINT full")
                    try db.rows("UPDATE vector_blocks SET vectors_i8 = NULL")
                    let full = try db.rows(sql, args)
                    try db.rows("ROLLBACK TO full")
                    try db.rows("RELEASE full")
                    XCTAssertEqual(pruned.count, min(k, full.count))
                    let bits = { (rows: [[Value]]) in rows.map { $0.map { v -> String in if case .real(let d) = v { return String(d.bitPattern) }; return "\(v)" } } }
                    XCTAssertEqual(bits(pruned), bits(full), "kernel \(kernel), k \(k), scope \(scope ?? "all")")
                }
            }
        }
        // a huge vector (its square overflows float32) is still reported, as by the full scan
        try store(db, [Chunk(book: "z", key: 0, endPage: 1, vector: [Float](repeating: 3e19, count: dim))], blockSize: 1)
        XCTAssertTrue(db.error("SELECT key FROM ibvec_knn(?, 10)", [.blob(blob(base[0]))]).contains("NaN or infinite"))
    }

    /// The int8 code scan split over threads a host lends (parallel.c): the same
    /// rows and distances, bit for bit, with 1, 2 or 3 threads; the host's runner
    /// is called for blocks large enough to split, and not after it is removed.
    func testSplitScanGivesTheSameResults() throws {
        let db = try VecDB()
        try db.rows(schema)
        var rng = Rng(state: 77)
        let dim = 48
        let chunks = (0..<2600).map { i in Chunk(book: ["a", "b"][i % 2], key: i, endPage: i % 40 + 1, vector: rng.vector(dim)) }
        try store(db, chunks, blockSize: 1000)
        let queries = (0..<4).map { _ in rng.vector(dim) }
        let sql = "SELECT book_id, key, end_page, distance FROM ibvec_knn(?1, ?2, ?3)"
        let bits = { (rows: [[Value]]) in rows.map { $0.map { v -> String in if case .real(let d) = v { return String(d.bitPattern) }; return "\(v)" } } }
        func results() throws -> [[[String]]] {
            try queries.flatMap { q in
                try [(10, nil), (40, "{\"b\": 30}")].map { (k: Int, scope: String?) in
                    bits(try db.rows(sql, [.blob(blob(q)), .int(k), scope.map { .text($0) } ?? .null]))
                }
            }
        }
        let serial = try results()
        defer { ibvec_set_parallel(nil); ibvec_set_scan_threads(1) }
        splitScanParts.store(0, ordering: .relaxed)
        ibvec_set_parallel { _, parts, fn, ctx in
            splitScanParts.add(Int(parts), ordering: .relaxed)
            DispatchQueue.concurrentPerform(iterations: Int(parts)) { fn?(ctx, Int32($0)) }
        }
        for threads in [1, 2, 3] {
            ibvec_set_scan_threads(Int32(threads))
            XCTAssertEqual(try results(), serial, "\(threads) threads")
        }
        XCTAssertGreaterThan(splitScanParts.load(ordering: .relaxed), 16, "the host's threads were used")
        ibvec_set_parallel(nil)
        let before = splitScanParts.load(ordering: .relaxed)
        XCTAssertEqual(try results(), serial)
        XCTAssertEqual(splitScanParts.load(ordering: .relaxed), before, "no runner: one call")
    }

    /// A connection that searches again scores the int8 codes it kept from an
    /// earlier search (knn_cache.c): the same rows and distances, bit for bit,
    /// and never codes of a library that has changed since, here through
    /// commits of this connection that reuse the same block ids.
    func testKeptCodesGiveTheSameResultsAndFollowChanges() throws {
        let db = try VecDB()
        try db.rows(schema)
        var rng = Rng(state: 77)
        let dim = 32
        var chunks = (0..<600).map { Chunk(book: ["a", "b"][$0 % 2], key: $0, endPage: 1 + $0 % 9, vector: rng.vector(dim)) }
        try store(db, chunks, blockSize: 100)
        let q = rng.vector(dim)
        let sql = "SELECT book_id, key, distance FROM ibvec_knn(?1, ?2, ?3)"
        let text = { (rows: [[Value]]) in rows.map { $0.map { v -> String in if case .real(let d) = v { return String(d.bitPattern) }; return "\(v)" } } }
        for (k, scope) in [(5, nil), (20, "{\"a\": 4}")] as [(Int, String?)] {
            let args: [VecDB.Arg] = [.blob(blob(q)), .int(k), scope.map { .text($0) } ?? .null]
            let first = text(try db.rows(sql, args))
            XCTAssertEqual(first.count, k)
            // the second search keeps the codes it reads, the later ones score them
            for _ in 0..<3 { XCTAssertEqual(text(try db.rows(sql, args)), first) }
        }
        // Chunk 1 (book b) becomes the query itself; everything is stored again,
        // under the same block ids, one commit at a time.
        let args: [VecDB.Arg] = [.blob(blob(q)), .int(5), .null]
        XCTAssertFalse(text(try db.rows(sql, args)).contains { $0[1] == "int(1)" })
        chunks[1].vector = q
        try db.rows("DELETE FROM vector_blocks")
        try store(db, chunks, blockSize: 100)
        let after = try db.rows(sql, args)
        XCTAssertEqual(after.first?[1], .int(1), "codes kept from before the change ruled the chunk out")
        XCTAssertEqual(after.first?[2].double ?? 1, 0, accuracy: 1e-6)
        // ... and the results are the full float scan's
        try db.rows("SAVEPOINT full")
        try db.rows("UPDATE vector_blocks SET vectors_i8 = NULL")
        let full = try db.rows(sql, args)
        try db.rows("ROLLBACK TO full")
        try db.rows("RELEASE full")
        XCTAssertEqual(text(after), text(full))
        XCTAssertEqual(text(try db.rows(sql, args)), text(full))
    }

    /// binary:P keeps the P vectors with the largest sum of the query's int8
    /// codes over their sign bits (ties: the earlier block and position), and
    /// returns the k nearest of those by exact distance. Few dimensions make
    /// many ties at the pool's edge.
    func testBinaryPoolIsTheBestCodeSums() throws {
        let db = try VecDB()
        try db.rows(schema)
        var rng = Rng(state: 31337)
        for dim in [6, 40] {
            try db.rows("DELETE FROM vector_blocks")
            let chunks = (0..<1500).map { Chunk(book: "a", key: $0, endPage: $0 % 9 + 1, vector: rng.vector(dim)) }
            try store(db, chunks, blockSize: 128)
            for _ in 0..<3 {
                let q = rng.vector(dim)
                let q8 = try db.one("SELECT vec_quantize_i8(?)", [.blob(blob(q))]).bytes.map { Int(Int8(bitPattern: $0)) }
                for (pool, k, limit) in [(37, 5, Int.max), (200, 12, 4), (1500, 3, Int.max)] {
                    let passing = chunks.filter { $0.endPage <= limit }
                    let scored = passing.map { c in (c, zip(c.vector, q8).reduce(0) { $0 + ($1.0 > 0 ? $1.1 : 0) }) }
                    let kept = scored.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.key < $1.0.key }.prefix(pool).map(\.0)
                    let expected = kept.map { ($0.key, refCosine(q, $0.vector)) }.sorted { $0.1 < $1.1 }.prefix(k).map(\.0)
                    let scope = limit == Int.max ? VecDB.Arg.null : .text("{\"a\": \(limit)}")
                    let got = try db.rows("SELECT key FROM ibvec_knn(?, ?, ?, ?)", [.blob(blob(q)), .int(k), scope, .text("binary:\(pool)")]).map { $0[0].int }
                    XCTAssertEqual(got, Array(expected), "dim \(dim), pool \(pool)")
                }
            }
        }
    }
}
