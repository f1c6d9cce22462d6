// Chunks, their window vectors and their nearest neighbours, as the search
// stages read them: by ChunkRef and within a SearchScope. Every statement is
// prepared once per connection (Database.prepare caches by SQL text); a search
// runs each a few dozen to a few thousand times.
import IBCore

extension Library {
    /// The chunk `ref` names (without its embedding).
    public func chunk(_ ref: ChunkRef) throws -> ChunkRecord? {
        try chunk(seq: ref.seq)
    }

    /// How many chunks `scope` holds (nil: the whole library), counted up to `cap`.
    public func chunkCount(in scope: SearchScope?, cap: Int) throws -> Int {
        let statement: Statement
        if let scope {
            statement = try db.prepare("""
                SELECT count(*) FROM (SELECT 1 FROM chunks c JOIN json_each(?1) scope ON scope.key = c.book_id
                WHERE scope.value IS NULL OR c.end_page <= scope.value LIMIT ?2)
                """)
            try statement.bind(1, scope.json)
        } else {
            // The whole library: a plain count(*) counts an index's cells page by page
            // (~15x faster at 100k chunks than stepping through cap rows), then the cap.
            // (A negative cap is no limit, as SQLite's LIMIT reads it.)
            let all = try db.scalarInt("SELECT count(*) FROM chunks") ?? 0
            return cap < 0 ? all : min(all, cap)
        }
        try statement.bind(2, cap)
        defer { statement.reset() }   // a cached statement left mid-step would hold the read transaction open
        guard try statement.step() else { return 0 }
        return statement.int(0)
    }

    /// Calls `body` with every chunk in `scope` that has window codes. The codes
    /// are valid only during the call; no strings are made per row.
    public func forEachWindows(in scope: SearchScope?, _ body: (ChunkRef, UnsafeRawBufferPointer) throws -> Void) throws {
        let statement: Statement
        if let scope {
            statement = try db.prepare("""
                SELECT c.seq, c.windows FROM chunks c JOIN json_each(?1) scope ON scope.key = c.book_id
                WHERE c.windows IS NOT NULL AND (scope.value IS NULL OR c.end_page <= scope.value)
                """)
            try statement.bind(1, scope.json)
        } else {
            statement = try db.prepare("SELECT seq, windows FROM chunks WHERE windows IS NOT NULL")
        }
        defer { statement.reset() }   // also when body throws
        while try statement.step() {
            let ref = ChunkRef(seq: statement.int(0))
            try statement.withBlob(1) { try body(ref, $0) }
        }
    }

    /// Calls `body` with the window codes of each of `refs` that has them, each
    /// read by its key. The codes are valid only during the call (nothing is
    /// copied: a search scores them where SQLite holds them).
    public func forEachWindows(of refs: [ChunkRef], _ body: (ChunkRef, UnsafeRawBufferPointer) throws -> Void) throws {
        let statement = try db.prepare("SELECT windows FROM chunks WHERE seq = ? AND windows IS NOT NULL")
        defer { statement.reset() }
        for ref in refs {
            statement.reset()
            try statement.bind(1, ref.seq)
            if try statement.step() { try statement.withBlob(0) { try body(ref, $0) } }
        }
    }

    /// The book and chunk index of each of `refs` that exists.
    public func locations(of refs: [ChunkRef]) throws -> [ChunkRef: (bookID: String, index: Int)] {
        let statement = try db.prepare("SELECT book_id, chunk_index FROM chunks WHERE seq = ?")
        defer { statement.reset() }
        var out: [ChunkRef: (bookID: String, index: Int)] = [:]
        for ref in refs {
            statement.reset()
            try statement.bind(1, ref.seq)
            if try statement.step() { out[ref] = (statement.text(0), statement.int(1)) }
        }
        return out
    }

    /// The `k` chunks in `scope` whose vectors are nearest `vector` by cosine
    /// distance (the hit's score), nearest first, from ibvec_knn. Exact search
    /// reads the int8 codes first when the library has them (the default) and
    /// returns the rows of a float scan; a library that opted into 'bits' is
    /// ranked by sign bits and re-scored with floats.
    public func nearestChunks(to vector: [Float], k: Int, in scope: SearchScope?) throws -> [ChunkHit] {
        let mode = try meta("quantize") == "bits" ? "binary" : "exact"
        let statement = try db.prepare("SELECT book_id, key, distance FROM ibvec_knn(?1, ?2, ?3, ?4)")
        defer { statement.reset() }
        try statement.bind(1, .blob(Float32LE.bytes(vector)))
        try statement.bind(2, min(k, 10000))
        try statement.bind(3, scope?.json)
        try statement.bind(4, mode)
        var found: [(bookID: String, index: Int, distance: Double)] = []
        while try statement.step() { found.append((statement.text(0), statement.int(1), statement.double(2))) }
        statement.reset()
        var hits: [ChunkHit] = []
        hits.reserveCapacity(found.count)
        for hit in found {
            // ibvec_knn names a chunk by book and index; a vector whose chunk is gone is skipped.
            guard let ref = try chunkRef(bookID: hit.bookID, index: hit.index) else { continue }
            hits.append(ChunkHit(ref: ref, bookID: hit.bookID, index: hit.index, score: hit.distance))
        }
        return hits
    }

    /// The reference of a book's chunk `index`, when it exists.
    public func chunkRef(bookID: String, index: Int) throws -> ChunkRef? {
        let statement = try db.prepare("SELECT seq FROM chunks WHERE book_id = ? AND chunk_index = ?")
        defer { statement.reset() }
        try statement.bind(1, bookID)
        try statement.bind(2, index)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return ChunkRef(seq: statement.int(0))
    }

    /// A read-only connection to the library at `path`, without migrating it: a
    /// search runs its full-text half on a second one, on another thread.
    public static func openForReading(path: String) throws -> Library {
        let immutable = !LibraryLocation(flag: path).isWritable && !FileSystem.exists(path + "-shm")
        return Library(db: try Database(path: path, readOnly: true, immutable: immutable), readOnlyImmutable: immutable)
    }
}
