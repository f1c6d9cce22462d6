// The embedding cache's file: one SQLite table of vectors keyed on
// (model, sha256 of the text), beside the library rather than inside it.
// Vectors are little-endian float32 blobs; a windowed entry holds the vector
// then its int8 window codes in one blob, under a model key of its own.
// The file is opened plainly (no ibvec, no library tuning) in WAL mode with a
// long busy timeout, so that several ib-embed processes share it.
// What to do when it fails (warn once and go on without it) is IBEmbed's rule.
import IBCore

public final class EmbeddingCacheFile {
    public let path: String
    private var db: Database?

    static let selectSQL = "SELECT dim, vector FROM embeddings WHERE model = ?1 AND sha256 = ?2"
    static let insertSQL = "INSERT OR REPLACE INTO embeddings (model, sha256, dim, vector, created) VALUES (?1, ?2, ?3, ?4, ?5)"

    /// Opens or creates the file (its folder must exist) and its table.
    public init(path: String) throws(IBError) {
        self.path = path
        let db = try Database(path: path, setup: .sideFile(name: "the embedding cache", busyTimeoutMilliseconds: 30_000))
        do {
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA synchronous = NORMAL")
            try db.execute("""
                CREATE TABLE IF NOT EXISTS embeddings (
                    model TEXT NOT NULL,
                    sha256 BLOB NOT NULL,
                    dim INTEGER NOT NULL,
                    vector BLOB NOT NULL,
                    created INTEGER NOT NULL,
                    PRIMARY KEY (model, sha256)
                ) WITHOUT ROWID
                """)
            // Prepared now, so that a file with another table of that name fails here.
            _ = try db.prepare(Self.selectSQL)
            _ = try db.prepare(Self.insertSQL)
        } catch {
            throw IBError("cannot use the embedding cache \(path): \(error.message)")
        }
        self.db = db
    }

    /// Closes the file; later lookups find nothing and stores do nothing.
    public func close() { db = nil }

    /// The cached vector of each digest, or nil.
    public func vectors(model: String, digests: [[UInt8]]) throws(SQLiteError) -> [[Float]?] {
        try blobs(model: model, digests: digests).map { entry in
            guard let entry, entry.dim > 0, entry.bytes.count == entry.dim * 4 else { return nil }
            return Float32LE.floats(entry.bytes)
        }
    }

    /// The cached vector and window codes of each digest, or nil.
    public func windowedVectors(model: String, digests: [[UInt8]]) throws(SQLiteError) -> [(vector: [Float], windows: [Int8])?] {
        try blobs(model: model, digests: digests).map { entry in
            guard let entry, entry.dim > 0, entry.bytes.count >= entry.dim * 4,
                  (entry.bytes.count - entry.dim * 4) % entry.dim == 0 else { return nil }
            let windows = entry.bytes[(entry.dim * 4)...].map { Int8(bitPattern: $0) }
            return (entry.bytes.withUnsafeBytes { Float32LE.floats(UnsafeRawBufferPointer(rebasing: $0[0..<(entry.dim * 4)])) }, windows)
        }
    }

    /// Stores vectors in one transaction, replacing older ones.
    public func store(model: String, vectors: [(digest: [UInt8], vector: [Float])]) throws(SQLiteError) {
        try storeBlobs(model: model, entries: vectors.map { ($0.digest, $0.vector.count, Float32LE.bytes($0.vector)) })
    }

    /// Stores vectors with their window codes, one blob each (vector, then codes).
    public func store(model: String, windowed: [(digest: [UInt8], vector: [Float], windows: [Int8])]) throws(SQLiteError) {
        try storeBlobs(model: model, entries: windowed.map { entry in
            var blob = Float32LE.bytes(entry.vector)
            entry.windows.withUnsafeBytes { blob.append(contentsOf: $0) }
            return (entry.digest, entry.vector.count, blob)
        })
    }

    /// Number of cached vectors (all models, or one); 0 when the file cannot be read.
    public func count(model: String? = nil) -> Int {
        guard let db else { return 0 }
        if let model { return (try? db.scalarInt("SELECT count(*) FROM embeddings WHERE model = ?1", model)) ?? 0 }
        return (try? db.scalarInt("SELECT count(*) FROM embeddings")) ?? 0
    }

    // MARK: blobs

    private func blobs(model: String, digests: [[UInt8]]) throws(SQLiteError) -> [(dim: Int, bytes: [UInt8])?] {
        var out = [(dim: Int, bytes: [UInt8])?](repeating: nil, count: digests.count)
        guard let db else { return out }
        let statement = try db.prepare(Self.selectSQL)
        defer { statement.reset() }
        for (i, digest) in digests.enumerated() {
            statement.reset()
            try statement.bind(1, .text(model))
            try statement.bind(2, .blob(digest))
            guard try statement.step() else { continue }
            let bytes = statement.blob(1)
            if !bytes.isEmpty { out[i] = (statement.int(0), bytes) }
        }
        return out
    }

    private func storeBlobs(model: String, entries: [(digest: [UInt8], dim: Int, blob: [UInt8])]) throws(SQLiteError) {
        guard let db, !entries.isEmpty else { return }
        let created = Int64(Timestamp.now())
        try db.execute("BEGIN IMMEDIATE")
        do {
            let statement = try db.prepare(Self.insertSQL)
            for entry in entries {
                statement.reset()
                try statement.bind([model, entry.digest, entry.dim, entry.blob, created])
                try statement.execute()
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }
}
