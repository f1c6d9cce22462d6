// The search's reads inside a focus: a run of one book's chunks (by chunk
// index) that a question points to by its structure ("in Act 3", "on the 4th
// of May"), searched more deeply than the whole scope. The page limit is part
// of every WHERE clause, as in the scope's queries: nothing past a reading
// position is read.
import IBCore

extension Library {
    /// The seq range of a book's chunks `chunks` (by chunk index); nil when it holds none.
    func seqRange(bookID: String, chunks: ClosedRange<Int>) throws -> (Int, Int)? {
        let statement = try db.prepare("SELECT min(seq), max(seq) FROM chunks WHERE book_id = ?1 AND chunk_index BETWEEN ?2 AND ?3")
        defer { statement.reset() }
        try statement.bind(1, bookID)
        try statement.bind(2, chunks.lowerBound)
        try statement.bind(3, chunks.upperBound)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return (statement.int(0), statement.int(1))
    }

    /// Calls `body` with each chunk of `bookID` in `chunks` that has window codes
    /// and ends on or before `lastPage` (nil: any), with its chunk index.
    public func forEachWindows(bookID: String, chunks: ClosedRange<Int>, lastPage: Int?,
                               _ body: (ChunkRef, Int, UnsafeRawBufferPointer) throws -> Void) throws {
        let statement = try db.prepare("""
            SELECT seq, chunk_index, windows FROM chunks
            WHERE book_id = ?1 AND chunk_index BETWEEN ?2 AND ?3 AND end_page <= ?4 AND windows IS NOT NULL
            """)
        defer { statement.reset() }
        try statement.bind(1, bookID)
        try statement.bind(2, chunks.lowerBound)
        try statement.bind(3, chunks.upperBound)
        try statement.bind(4, lastPage ?? Int(Int32.max))
        while try statement.step() {
            let ref = ChunkRef(seq: statement.int(0)), index = statement.int(1)
            try statement.withBlob(2) { try body(ref, index, $0) }
        }
    }

    /// The best `limit` chunks of `bookID` in `chunks` for an FTS5 MATCH
    /// `expression`, scored as fullTextCandidates scores them (bm25() or
    /// -ib_concepts() with `concepts`, against `rows` chunks when given), so the
    /// two lists' scores compare.
    public func fullTextCandidates(match expression: String, concepts: String?, rows: Int? = nil, bookID: String,
                                   chunks: ClosedRange<Int>, lastPage: Int?, limit: Int) throws -> [ChunkHit] {
        guard let (low, high) = try seqRange(bookID: bookID, chunks: chunks) else { return [] }
        let rank = concepts == nil ? "bm25(chunks_fts)" : rows == nil ? "-ib_concepts(chunks_fts, ?6)" : "-ib_concepts(chunks_fts, ?6, ?8)"
        let statement = try db.prepare("""
            SELECT chunks_fts.rowid, c.chunk_index, \(rank) AS s
            FROM chunks_fts JOIN chunks c ON c.seq = chunks_fts.rowid
            WHERE chunks_fts MATCH ?1 AND chunks_fts.rowid BETWEEN ?3 AND ?4 AND c.book_id = ?5 AND c.end_page <= ?7
            ORDER BY s, chunks_fts.rowid LIMIT ?2
            """)
        defer { statement.reset() }
        try statement.bind(1, expression)
        try statement.bind(2, limit)
        try statement.bind(3, low)
        try statement.bind(4, high)
        try statement.bind(5, bookID)
        if let concepts { try statement.bind(6, concepts) }
        try statement.bind(7, lastPage ?? Int(Int32.max))
        if let rows, concepts != nil { try statement.bind(8, rows) }
        var out: [ChunkHit] = []
        while try statement.step() {
            let index = statement.int(1)
            guard chunks.contains(index) else { continue }
            out.append(ChunkHit(ref: ChunkRef(seq: statement.int(0)), bookID: bookID, index: index, score: statement.double(2)))
        }
        return out
    }

    /// fullTextCandidates(match:concepts:rows:bookID:chunks:lastPage:limit:) for
    /// each of `ranges`, their hits concatenated, from one FTS5 query. Range by
    /// range, every query counted each phrase's rows across the library again
    /// for bm25()'s IDF (and expanded each prefix again); here that is done
    /// once. The query reads every match between the ranges' first and last
    /// chunk but scores only those inside a range; each range's best `limit`
    /// are then picked as its own query picks them (the same order, the same
    /// page limit, the chunk index checked after the LIMIT), so the hits and
    /// scores are the same.
    public func fullTextCandidates(match expression: String, concepts: String?, rows: Int? = nil,
                                   ranges: [(bookID: String, chunks: ClosedRange<Int>, lastPage: Int?)], limit: Int) throws -> [ChunkHit] {
        var spans: [(range: Int, seqs: ClosedRange<Int>)] = []
        for (i, range) in ranges.enumerated() {
            if let (low, high) = try seqRange(bookID: range.bookID, chunks: range.chunks) { spans.append((i, low...high)) }
        }
        guard !spans.isEmpty else { return [] }
        let inside = spans.map(\.seqs).merged()
        let rank = concepts == nil ? "bm25(chunks_fts)" : rows == nil ? "-ib_concepts(chunks_fts, ?4)" : "-ib_concepts(chunks_fts, ?4, ?5)"
        // '+' keeps the ranges out of FTS5's index plan: one scan, one set of statistics.
        let within = inside.indices.map { "+chunks_fts.rowid BETWEEN ?\(6 + 2 * $0) AND ?\(7 + 2 * $0)" }.joined(separator: " OR ")
        let statement = try db.prepare("""
            SELECT chunks_fts.rowid, c.book_id, c.chunk_index, c.end_page, \(rank) AS s
            FROM chunks_fts JOIN chunks c ON c.seq = chunks_fts.rowid
            WHERE chunks_fts MATCH ?1 AND chunks_fts.rowid BETWEEN ?2 AND ?3 AND (\(within))
            """)
        defer { statement.reset() }
        try statement.bind(1, expression)
        try statement.bind(2, inside[0].lowerBound)
        try statement.bind(3, inside[inside.count - 1].upperBound)
        if let concepts { try statement.bind(4, concepts) }
        if let rows, concepts != nil { try statement.bind(5, rows) }
        for (i, seqs) in inside.enumerated() {
            try statement.bind(Int32(6 + 2 * i), seqs.lowerBound)
            try statement.bind(Int32(7 + 2 * i), seqs.upperBound)
        }
        var found: [(seq: Int, bookID: String, index: Int, endPage: Int, score: Double)] = []
        while try statement.step() {
            found.append((statement.int(0), statement.text(1), statement.int(2), statement.int(3), statement.double(4)))
        }
        found.sort { $0.score != $1.score ? $0.score < $1.score : $0.seq < $1.seq }
        var out: [ChunkHit] = []
        for (i, seqs) in spans {
            let range = ranges[i], lastPage = range.lastPage ?? Int(Int32.max)
            let best = found.lazy.filter { seqs.contains($0.seq) && $0.bookID == range.bookID && $0.endPage <= lastPage }.prefix(limit)
            for hit in best where range.chunks.contains(hit.index) {
                out.append(ChunkHit(ref: ChunkRef(seq: hit.seq), bookID: range.bookID, index: hit.index, score: hit.score))
            }
        }
        return out
    }

    /// The chunks in `scope` holding the exact `phrase` (an FTS5 phrase: the words
    /// in order, stop words included): all of them when there are at most
    /// `limit`, else the `limit` best by bm25; in no particular order.
    /// Most phrases (a whole question read as one) are in no chunk or a few:
    /// listing those reads the words' postings once, where ranking them reads
    /// them twice (bm25's document count) and scores each row.
    /// `containing`: some of the phrase's words (its rarer ones). A chunk without
    /// all of them cannot hold the phrase, and asking for them together is cheap
    /// where the phrase query walks the position lists of "the" and "of" through
    /// every chunk: when no chunk holds them all, that query is not run.
    public func phraseChunks(_ phrase: String, in scope: SearchScope?, limit: Int, containing words: [String] = []) throws -> [ChunkRef] {
        if !words.isEmpty, try fullTextMatches(match: words.map(FullText.quoted).joined(separator: " AND "), in: scope, limit: 1).isEmpty {
            return []
        }
        let quoted = FullText.quoted(phrase)
        let some = try fullTextMatches(match: quoted, in: scope, limit: limit + 1)
        if some.count <= limit { return some }
        return try fullTextCandidates(match: quoted, concepts: nil, in: scope, limit: limit).map(\.ref)
    }
}

extension Library {
    /// Each book's number of chunks (its highest chunk index + 1), one index lookup a book.
    public func chunkCounts(bookIDs: [String]) throws -> [String: Int] {
        let statement = try db.prepare("SELECT max(chunk_index) FROM chunks WHERE book_id = ?")
        defer { statement.reset() }
        var out: [String: Int] = [:]
        for id in bookIDs {
            statement.reset()
            try statement.bind(1, id)
            if try statement.step(), !statement.isNull(0) { out[id] = statement.int(0) + 1 }
        }
        return out
    }
}
