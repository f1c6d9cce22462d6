// Writes and reads vector_blocks: up to 1024 vectors of one book per row,
// keys int64 LE, end_pages int32 LE, vectors float32 LE row-major. The blobs
// are built in Swift and bound without copies through JSON or text.
import IBCore

public struct VectorEntry: Sendable, Equatable {
    /// The chunk index within the book.
    public var key: Int
    public var endPage: Int
    public var vector: [Float]
    public init(key: Int, endPage: Int, vector: [Float]) {
        self.key = key; self.endPage = endPage; self.vector = vector
    }
}

public enum VectorBlocks {
    public static let blockSize = 1024

    /// Appends blocks for `entries` (sorted by key here). The caller holds the write transaction.
    /// With `quantize` ('i8' or 'bits') each block's quantised columns are made in the same
    /// INSERT (one write of the row, not an insert then an update).
    public static func write(_ db: Database, bookID: String, model: String, dim: Int,
                             entries: [VectorEntry], quantize: String? = nil) throws {
        guard !entries.isEmpty else { return }
        let sorted = entries.sorted { $0.key < $1.key }
        let insert: Statement
        switch quantize {
        case "i8":
            insert = try db.prepare("""
                INSERT INTO vector_blocks (book_id, model, dim, count, keys, end_pages, vectors, vectors_i8, scales)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, vec_block_i8(?7, ?3), vec_block_scales(?7, ?3))
                """)
        case "bits":
            insert = try db.prepare("""
                INSERT INTO vector_blocks (book_id, model, dim, count, keys, end_pages, vectors, bits)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, vec_block_bits(?7, ?3))
                """)
        default:
            insert = try db.prepare("""
                INSERT INTO vector_blocks (book_id, model, dim, count, keys, end_pages, vectors)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                """)
        }
        var start = 0
        var keys: [Int64] = []
        var endPages: [Int32] = []
        var floats: [UInt8] = []
        while start < sorted.count {
            let end = min(start + blockSize, sorted.count)
            keys.removeAll(keepingCapacity: true)
            endPages.removeAll(keepingCapacity: true)
            floats.removeAll(keepingCapacity: true)
            floats.reserveCapacity((end - start) * dim * 4)
            for entry in sorted[start..<end] {
                precondition(entry.vector.count == dim, "vector dimension checked by the caller")
                keys.append(Int64(entry.key).littleEndian)
                endPages.append(Int32(clamping: entry.endPage).littleEndian)
                Float32LE.append(entry.vector, to: &floats)
            }
            insert.reset()
            try insert.bind(1, bookID)
            try insert.bind(2, model)
            try insert.bind(3, dim)
            try insert.bind(4, end - start)
            try keys.withUnsafeBytes { b in try insert.bind(5, bytes: b) }
            try endPages.withUnsafeBytes { b in try insert.bind(6, bytes: b) }
            try floats.withUnsafeBytes { b in try insert.bind(7, bytes: b) }
            try insert.execute()
            start = end
        }
    }

    /// Every vector of a book, by key.
    public static func read(_ db: Database, bookID: String) throws -> [VectorEntry] {
        try read(db, bookID: bookID, keys: nil)
    }

    /// The vectors of a book whose keys lie in `keys` (nil: all). Only the
    /// matching vectors are made into arrays, so a caller walking a long book
    /// range by range holds one range at a time.
    public static func read(_ db: Database, bookID: String, keys range: ClosedRange<Int>?) throws -> [VectorEntry] {
        let select = try db.prepare("SELECT dim, count, keys, end_pages, vectors FROM vector_blocks WHERE book_id = ? ORDER BY id")
        try select.bind(1, bookID)
        defer { select.reset() }
        var out: [VectorEntry] = []
        while try select.step() {
            let dim = select.int(0), count = select.int(1)
            let keys: [Int64] = select.withBlob(2) { raw in
                (0..<min(count, raw.count / 8)).map { Int64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self)) }
            }
            let wanted = (0..<keys.count).filter { range?.contains(Int(keys[$0])) ?? true }
            guard !wanted.isEmpty else { continue }
            let pages: [Int32] = select.withBlob(3) { raw in
                (0..<min(count, raw.count / 4)).map { Int32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
            }
            select.withBlob(4) { raw in
                guard raw.count >= count * dim * 4, keys.count == count, pages.count == count else { return }
                for i in wanted {
                    let vector = Float32LE.floats(UnsafeRawBufferPointer(rebasing: raw[(i * dim * 4)..<((i + 1) * dim * 4)]))
                    out.append(VectorEntry(key: Int(keys[i]), endPage: Int(pages[i]), vector: vector))
                }
            }
        }
        return out
    }

    /// The chunk indices of a book that have a vector.
    public static func keys(_ db: Database, bookID: String) throws -> Set<Int> {
        let select = try db.prepare("SELECT count, keys FROM vector_blocks WHERE book_id = ?")
        try select.bind(1, bookID)
        var out = Set<Int>()
        while try select.step() {
            let count = select.int(0)
            select.withBlob(1) { raw in
                for i in 0..<min(count, raw.count / 8) {
                    out.insert(Int(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 8, as: Int64.self))))
                }
            }
        }
        return out
    }

    public static func delete(_ db: Database, bookID: String) throws {
        try db.run("DELETE FROM vector_blocks WHERE book_id = ?", bookID)
    }
}

/// The vector index (meta 'quantize': 'i8' by default in a new library, 'bits' or 'off'): fills
/// vectors_i8 + scales, or bits, of a book's blocks through ibvec's block functions.
public enum Quantization {
    public static let modes = ["off", "i8", "bits"]

    public static func fill(_ db: Database, bookID: String?, mode: String) throws {
        let scope = bookID == nil ? "" : " WHERE book_id = ?1"
        let arguments: [SQLValue] = bookID.map { [.text($0)] } ?? []
        switch mode {
        case "i8":
            try db.run("UPDATE vector_blocks SET vectors_i8 = vec_block_i8(vectors, dim), scales = vec_block_scales(vectors, dim), bits = NULL" + scope, arguments)
        case "bits":
            try db.run("UPDATE vector_blocks SET bits = vec_block_bits(vectors, dim), vectors_i8 = NULL, scales = NULL" + scope, arguments)
        default:
            try db.run("UPDATE vector_blocks SET vectors_i8 = NULL, scales = NULL, bits = NULL" + scope, arguments)
        }
    }
}
