// Full-text candidates from chunks_fts: the ranked lists of ib-search's text
// half and of ib-ask's plain retriever, and the term statistics that decide
// which query words are worth searching. The page limit is always part of the
// WHERE clause, so rows past it never reach ORDER BY and LIMIT.
import IBCore

extension Library {
    /// How many chunks hold each word, from FTS5's vocabulary (an fts5vocab
    /// table in the connection's temp schema, made on first use): a prefix sums
    /// the counts of the words it starts (an upper bound). One index lookup per
    /// word, where counting MATCH rows would read postings.
    /// The counts are kept on the connection while the library is unchanged (a
    /// server searching many times asks again for the words of a question it saw,
    /// and a focused search asks twice): the same numbers, without re-reading
    /// postings (a common word's cost ~1-3 ms at 100k chunks).
    public func documentFrequencies(_ words: [(word: String, prefix: Bool)]) throws -> [Int] {
        try documentFrequencyMemo.validate(version: try libraryVersion(), making: makeVocabularyTable)
        let exact = try db.prepare("SELECT doc FROM temp.ib_fts_vocab WHERE term = ?1")
        let range = try db.prepare("SELECT coalesce(sum(doc), 0) FROM temp.ib_fts_vocab WHERE term >= ?1 AND term < ?2")
        return try words.map { word, prefix in
            if let known = documentFrequencyMemo.counts[DocumentFrequencyMemo.Key(word: word, prefix: prefix)] { return known }
            let count = try countDocuments(word, prefix: prefix, exact: exact, range: range)
            documentFrequencyMemo.counts[DocumentFrequencyMemo.Key(word: word, prefix: prefix)] = count
            return count
        }
    }

    /// For ib_bm25's third argument: how many chunks hold each of `words`
    /// (whole words, each a phrase of the query in order), where that is
    /// exactly the count bm25() would make, else nil (bm25() then counts it).
    /// A word of lower-case ASCII letters and digits is one token, indexed as
    /// it is, and its row of the vocabulary gives its count in one lookup
    /// (documentFrequencies, kept between searches); a prefix, or a word the
    /// tokenizer may fold otherwise, is left to bm25().
    public func exactDocumentCounts(_ words: [(word: String, prefix: Bool)]) throws -> [Int?] {
        let plain = words.map { !$0.prefix && !$0.word.isEmpty && $0.word.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) } }
        let known = try documentFrequencies(zip(words, plain).filter { $1 }.map { $0.0 })
        var next = known.makeIterator()
        return plain.map { $0 ? next.next() : nil }
    }

    /// FTS5's vocabulary as a table, in the connection's temp schema.
    private func makeVocabularyTable() throws {
        try db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.ib_fts_vocab USING fts5vocab(main, 'chunks_fts', 'row')")
    }

    /// What changes whenever the library does: PRAGMA data_version (commits of
    /// other connections) with the rows this connection changed. What a
    /// connection keeps between searches is kept for one version.
    public func libraryVersion() throws -> LibraryVersion {
        LibraryVersion(dataVersion: try db.scalarInt("PRAGMA data_version") ?? 0, ownChanges: db.totalChanges)
    }

    /// One word's count: its row of the vocabulary, or the sum over the words a prefix starts.
    private func countDocuments(_ word: String, prefix: Bool, exact: Statement, range: Statement) throws -> Int {
        let statement = prefix ? range : exact
        statement.reset()
        defer { statement.reset() }
        try statement.bind(1, word)
        if prefix {
            // The first string after every word that starts with `word`.
            var bytes = Array(word.utf8)
            guard let last = bytes.last, last < 0xFF else { return Int.max }
            bytes[bytes.count - 1] = last + 1
            try statement.bind(2, String(decoding: bytes, as: UTF8.self))
        }
        return try statement.step() ? statement.int(0) : 0
    }

    /// The number of chunks in the library: the N of a word's rarity (BM25's
    /// IDF) and of what counts as too common to search. Counted, not taken
    /// from the highest seq: seq only grows, so every book replaced or removed
    /// left the highest seq above the count. Kept with the word counts while the
    /// library is unchanged (a count reads the table's pages: ~2 ms cold at 100k).
    public func chunkTotal() throws -> Int {
        try documentFrequencyMemo.validate(version: try libraryVersion(), making: makeVocabularyTable)
        if let known = documentFrequencyMemo.chunks { return known }
        let count = try db.scalarInt("SELECT count(*) FROM chunks") ?? 0
        documentFrequencyMemo.chunks = count
        return count
    }

    /// The best `limit` chunks in `scope` for an FTS5 MATCH `expression`, best
    /// first, scored lower-is-better: bm25() when `concepts` is nil, else
    /// -ib_concepts() with that specification (BM25 over groups of synonyms),
    /// its IDF counted against `rows` chunks when given (ScopeStatistics: the
    /// specification then carries the scope's document counts).
    /// Ties go to the earlier chunk.
    /// `documents` (whole library, no concepts): each phrase's count where exactDocumentCounts
    /// knows it, which ranking then does not count again.
    /// `phrases`: the expression's phrases (an OR of them), each a MATCH expression
    /// of its own: with them, a connection that keeps postings ranks from memory
    /// (PostingsMemo), with the same hits and scores.
    public func fullTextCandidates(match expression: String, concepts: String?, rows: Int? = nil, in scope: SearchScope?, limit: Int,
                                   documents: [Int?]? = nil, phrases: [String]? = nil) throws -> [ChunkHit] {
        if let phrases, let hits = postingsCandidates(phrases: phrases, concepts: concepts, rows: rows, in: scope, limit: limit,
                                                      documents: documents) {
            return hits
        }
        let rank = concepts == nil ? "bm25(chunks_fts)" : rows == nil ? "-ib_concepts(chunks_fts, ?6)" : "-ib_concepts(chunks_fts, ?6, ?7)"
        let statement: Statement
        if let scope {
            // The seq range keeps FTS5 inside a few books' chunks (a book's
            // chunks are inserted together, so their seq values are close).
            let (low, high) = try seqRange(of: scope) ?? (Int.min, Int.max)
            statement = try db.prepare("""
                SELECT chunks_fts.rowid, c.book_id, c.chunk_index, \(rank) AS s
                FROM chunks_fts JOIN chunks c ON c.seq = chunks_fts.rowid
                JOIN json_each(?3) scope ON scope.key = c.book_id
                WHERE chunks_fts MATCH ?1 AND chunks_fts.rowid BETWEEN ?4 AND ?5
                  AND (scope.value IS NULL OR c.end_page <= scope.value)
                ORDER BY s, chunks_fts.rowid LIMIT ?2
                """)
            try statement.bind(3, scope.json)
            try statement.bind(4, low)
            try statement.bind(5, high)
        } else {
            // The whole library: rank inside FTS5 alone, then look up the few winners.
            // bm25() is computed there by ib_bm25(), and -ib_concepts() by ib_concepts_top(): the
            // same scores without reading the length of rows that cannot make the LIMIT
            // (CIBRank; they need the LIMIT and no other WHERE term, as here).
            let ranked = limit > 1_000_000 ? rank
                : concepts == nil ? (documents == nil ? "ib_bm25(chunks_fts, ?2)" : "ib_bm25(chunks_fts, ?2, ?8)")
                : rows == nil ? "ib_concepts_top(chunks_fts, ?6, ?2)" : "ib_concepts_top(chunks_fts, ?6, ?2, ?7)"
            statement = try db.prepare("""
                SELECT f.seq, c.book_id, c.chunk_index, f.s FROM
                  (SELECT rowid AS seq, \(ranked) AS s FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY s, rowid LIMIT ?2) f
                JOIN chunks c ON c.seq = f.seq ORDER BY f.s, f.seq
                """)
        }
        defer { statement.reset() }
        try statement.bind(1, expression)
        try statement.bind(2, limit)
        if let concepts { try statement.bind(6, concepts) }
        if let rows, concepts != nil { try statement.bind(7, rows) }
        if let documents, scope == nil, concepts == nil {
            try statement.bind(8, documents.map { $0.map(String.init) ?? "-" }.joined(separator: " "))
        }
        var out: [ChunkHit] = []
        while try statement.step() {
            out.append(ChunkHit(ref: ChunkRef(seq: statement.int(0)), bookID: statement.text(1),
                                index: statement.int(2), score: statement.double(3)))
        }
        return out
    }

    /// How many chunks of each book hold `word` (one whole word), or nil when more
    /// than `limit` chunks of the library do: the vocabulary says so in one
    /// lookup, and a word that common is not worth walking its postings for.
    /// The vocabulary holds words as the tokenizer folds them ("hénry" is
    /// "henry" there), so a count of 0 is checked by the MATCH, which folds alike.
    public func wordCountsByBook(_ word: String, limit: Int) throws -> [String: Int]? {
        guard let total = try documentFrequencies([(word, false)]).first, total <= limit else { return nil }
        let statement = try db.prepare("""
            SELECT c.book_id, count(*) FROM chunks_fts JOIN chunks c ON c.seq = chunks_fts.rowid
            WHERE chunks_fts MATCH ?1 GROUP BY c.book_id
            """)
        defer { statement.reset() }
        try statement.bind(1, FullText.quoted(word))
        var out: [String: Int] = [:]
        while try statement.step() { out[statement.text(0)] = statement.int(1) }
        return out
    }

    /// At most `limit` chunks in `scope` matching an FTS5 MATCH `expression`,
    /// unranked (in rowid order): the rows fullTextCandidates would rank.
    public func fullTextMatches(match expression: String, in scope: SearchScope?, limit: Int) throws -> [ChunkRef] {
        let statement: Statement
        if let scope {
            let (low, high) = try seqRange(of: scope) ?? (Int.min, Int.max)
            statement = try db.prepare("""
                SELECT chunks_fts.rowid FROM chunks_fts JOIN chunks c ON c.seq = chunks_fts.rowid
                JOIN json_each(?3) scope ON scope.key = c.book_id
                WHERE chunks_fts MATCH ?1 AND chunks_fts.rowid BETWEEN ?4 AND ?5
                  AND (scope.value IS NULL OR c.end_page <= scope.value)
                LIMIT ?2
                """)
            try statement.bind(3, scope.json)
            try statement.bind(4, low)
            try statement.bind(5, high)
        } else {
            statement = try db.prepare("""
                SELECT chunks_fts.rowid FROM chunks_fts JOIN chunks c ON c.seq = chunks_fts.rowid
                WHERE chunks_fts MATCH ?1 LIMIT ?2
                """)
        }
        defer { statement.reset() }
        try statement.bind(1, expression)
        try statement.bind(2, limit)
        var out: [ChunkRef] = []
        while try statement.step() { out.append(ChunkRef(seq: statement.int(0))) }
        return out
    }

    /// The smallest and largest seq of a scope of at most `maxBooks` books; nil
    /// for a larger one, where reading each book's range would cost more than it saves.
    func seqRange(of scope: SearchScope, maxBooks: Int = 8) throws -> (Int, Int)? {
        guard scope.books.count <= maxBooks else { return nil }
        let statement = try db.prepare("SELECT min(c.seq), max(c.seq) FROM json_each(?1) scope JOIN chunks c ON c.book_id = scope.key")
        defer { statement.reset() }
        try statement.bind(1, scope.json)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return (statement.int(0), statement.int(1))
    }

    /// One book's chunks for an FTS5 MATCH `expression` that end on or before
    /// `lastPage` (nil: any), best bm25 first (the hit's score), with their pages and text.
    public func fullTextPassages(match expression: String, bookID: String, lastPage: Int?, limit: Int) throws -> [(hit: ChunkHit, chunk: ChunkRecord)] {
        let statement = try db.prepare("""
            SELECT chunks_fts.rowid, c.book_id, c.chunk_index, c.start_page, c.end_page, c.content, bm25(chunks_fts) AS score
            FROM chunks_fts JOIN chunks c ON c.seq = chunks_fts.rowid
            WHERE chunks_fts MATCH ? AND c.book_id = ? AND c.end_page <= ?
            ORDER BY score LIMIT ?
            """)
        defer { statement.reset() }
        try statement.bind(1, expression)
        try statement.bind(2, bookID)
        try statement.bind(3, lastPage ?? Int(Int32.max))
        try statement.bind(4, limit)
        var out: [(hit: ChunkHit, chunk: ChunkRecord)] = []
        while try statement.step() {
            let book = statement.optionalText(1) ?? bookID, index = statement.optionalInt(2) ?? 0
            let chunk = ChunkRecord(bookID: book, index: index, startPage: statement.optionalInt(3) ?? 1,
                                    endPage: statement.optionalInt(4) ?? 1, startOffset: 0, endOffset: 0, tokenCount: 0,
                                    text: statement.optionalText(5) ?? "")
            out.append((ChunkHit(ref: ChunkRef(seq: statement.int(0)), bookID: book, index: index, score: statement.double(6)), chunk))
        }
        return out
    }
}

/// One state of the library as a connection sees it (Library.libraryVersion).
public struct LibraryVersion: Equatable, Sendable {
    let dataVersion: Int
    let ownChanges: Int
}

/// Document frequencies by word, valid for one version of the library; the
/// vocabulary table is made on the first use of a connection.
struct DocumentFrequencyMemo {
    struct Key: Hashable { let word: String; let prefix: Bool }
    static let capacity = 4096
    var counts: [Key: Int] = [:]
    /// The library's number of chunks (Library.chunkTotal).
    var chunks: Int? = nil
    private var version: LibraryVersion? = nil

    /// Forgets every count when the library changed since they were read (or
    /// when there are too many); the first call makes the vocabulary table.
    mutating func validate(version now: LibraryVersion, making table: () throws -> Void) rethrows {
        if version == nil { try table() }
        if version != now || counts.count > Self.capacity { counts = [:]; chunks = nil }
        version = now
    }
}
