// PostingsMemo: the full-text postings a long-lived connection has read,
// kept in memory, so that ranking a query no longer walks FTS5's index.
//
// A resident server (ib-mcp) searches the same library many times, and most
// questions share words with earlier ones. FTS5 decodes every position list
// of every matching row on every query: at 100k chunks that is most of a
// hybrid search's full-text half (8 ms of 11 on Zen 3). Here each phrase's
// rows and frequencies are read from FTS5 once (ib_instances), each row's
// length once (the table's docsize), and CIBRank's ib_rank_postings ranks
// from them with the very functions FTS5's ranking calls: the same hits and
// scores, bit for bit (PostingsMemoTests compare them on a real library).
// The memo is dropped whenever the library changes (LibraryVersion), and
// kept within a budget of bytes (the least recently used phrases go first).
import CIBRank
import IBCore

/// One phrase's rows (ascending) and its frequency in each.
final class PhrasePostings {
    let rows: UnsafeMutablePointer<Int64>
    let frequencies: UnsafeMutablePointer<Int32>
    let count: Int
    var lastUse = 0
    var bytes: Int { count * 12 + 96 }

    init(rows: [Int64], frequencies: [Int32]) {
        count = rows.count
        self.rows = .allocate(capacity: max(1, count))
        self.frequencies = .allocate(capacity: max(1, count))
        rows.withUnsafeBufferPointer { self.rows.initialize(from: $0.baseAddress!, count: count) }
        frequencies.withUnsafeBufferPointer { self.frequencies.initialize(from: $0.baseAddress!, count: count) }
    }

    deinit { rows.deallocate(); frequencies.deallocate() }
}

/// What every ranking reads of each row (by rowid - base): its length in
/// tokens, and, to filter and report, its book, end page and chunk index.
struct PostingsRows {
    var base: Int64 = 0
    var length: [Int32] = []
    var book: [Int32] = []          // -1: no chunk has this rowid
    var endPage: [Int32] = []
    var chunkIndex: [Int32] = []
    var books: [String] = []
    var bookOrdinal: [String: Int32] = [:]
    var tableRows: Int64 = 0
    var tableTokens: Int64 = 0
    /// Four Int32 arrays a row, and ib_rank_postings' slot for it (PostingsMemo.work).
    var bytes: Int { length.count * 20 + books.count * 64 }
}

final class PostingsMemo {
    /// Bytes the memo may hold; phrases past it are dropped, least recently used first.
    let budget: Int
    var version: LibraryVersion? = nil
    var rows: PostingsRows? = nil
    /// nil after the rows could not be described densely: FTS5 ranks then.
    var usable = true
    var phrases: [String: PhrasePostings] = [:]
    var bytes = 0
    var tick = 0
    /// ib_rank_postings' memory, kept from one ranking to the next (a slot per row:
    /// 400 KB at 100k chunks, cleared and faulted in on every search otherwise); its
    /// matched rows' frequencies are let go once past `rankerBytes` (8 MB).
    let work: OpaquePointer?

    init(budget: Int, rankerBytes: Int = 8 << 20) {
        self.budget = budget
        work = ib_postings_work_new(max(0, rankerBytes))
    }

    deinit { ib_postings_work_free(work) }

    func reset(_ now: LibraryVersion) {
        version = now; rows = nil; usable = true; phrases = [:]; bytes = 0
    }

    /// Once past its budget, drops the least recently used phrases until the memo
    /// holds three quarters of it: a full memo then sorts its phrases once every
    /// many queries, not on each.
    func trim() {
        guard bytes + (rows?.bytes ?? 0) > budget else { return }
        for (key, entry) in phrases.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            if bytes + (rows?.bytes ?? 0) <= budget / 4 * 3 { break }
            phrases[key] = nil
            bytes -= entry.bytes
        }
    }
}

extension Library {
    /// Keeps the postings this connection reads in memory, up to `megabytes`,
    /// for a connection that will rank many queries (a server, a batch of
    /// queries): fullTextCandidates then ranks from them. Off by default.
    public func keepPostings(megabytes: Int) {
        postingsMemo = megabytes > 0 ? PostingsMemo(budget: megabytes << 20) : nil
    }

    /// fullTextCandidates(match:...) from the postings memo: `phrases`, the MATCH
    /// expression's phrases in order (each a MATCH expression of its own).
    /// nil when the memo is off or cannot answer (then FTS5 ranks).
    func postingsCandidates(phrases: [String], concepts: String?, rows scopeRows: Int?, in scope: SearchScope?, limit: Int,
                            documents: [Int?]?) -> [ChunkHit]? {
        guard let memo = postingsMemo, memo.usable, !phrases.isEmpty, limit > 0 else { return nil }
        // One read transaction: the version, the rows and the postings of one state of the library.
        let began = !db.isInTransaction
        if began { guard (try? db.execute("BEGIN")) != nil else { return nil } }
        defer { if began { try? db.execute("COMMIT") } }
        guard let now = try? libraryVersion() else { return nil }
        if memo.version != now { memo.reset(now) }
        if memo.rows == nil {
            // A library whose rows alone would take half the budget is left to FTS5.
            guard let rows = try? readPostingsRows(), rows.bytes <= memo.budget / 2 else { memo.usable = false; return nil }
            memo.rows = rows
        }
        guard let rows = memo.rows else { return nil }
        memo.tick += 1
        var entries: [PhrasePostings] = []
        for phrase in phrases {
            if let known = memo.phrases[phrase] {
                known.lastUse = memo.tick
                entries.append(known)
                continue
            }
            guard let read = try? readPhrasePostings(phrase) else { return nil }
            read.lastUse = memo.tick
            memo.phrases[phrase] = read
            memo.bytes += read.bytes
            entries.append(read)
        }
        defer { memo.trim() }
        // ib_concepts' specification, or bm25()'s known document counts.
        var concept = [Int32](repeating: 0, count: phrases.count)
        var weight = [Double](repeating: 1, count: phrases.count)
        var counted = [Double](repeating: -1, count: phrases.count)
        if let concepts {
            let fields = concepts.split(separator: " ")
            guard fields.count == phrases.count else { return nil }
            for (i, field) in fields.enumerated() {
                let parts = field.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count >= 2, let c = Int32(parts[0]), let w = Double(parts[1]) else { return nil }
                concept[i] = c
                weight[i] = w
                if parts.count == 3 { guard let d = Double(parts[2]) else { return nil }; counted[i] = d }
            }
        } else if let documents, scope == nil {
            guard documents.count == phrases.count else { return nil }
            for (i, d) in documents.enumerated() { if let d { counted[i] = Double(d) } }
        }
        // The scope: each listed book's last page (Int32.max: none), every other book out.
        var bookLimit = [Int32](repeating: Int32.min, count: max(1, rows.books.count))
        if let scope {
            for book in scope.books {
                guard let ordinal = rows.bookOrdinal[book.id] else { continue }
                bookLimit[Int(ordinal)] = Int32(clamping: book.lastPage ?? Int(Int32.max))
            }
        }
        let k = min(limit, 1_000_000)
        var outRows = [Int64](repeating: 0, count: k)
        var outScores = [Double](repeating: 0, count: k)
        let found: Int32 = entries.map { UnsafePointer<Int64>?($0.rows) }.withUnsafeBufferPointer { rowLists in
            entries.map { UnsafePointer<Int32>?($0.frequencies) }.withUnsafeBufferPointer { tfLists in
                let counts = entries.map { Int32(clamping: $0.count) }
                return counts.withUnsafeBufferPointer { counts in
                    concept.withUnsafeBufferPointer { concept in
                        weight.withUnsafeBufferPointer { weight in
                            counted.withUnsafeBufferPointer { counted in
                                rows.length.withUnsafeBufferPointer { length in
                                    rows.book.withUnsafeBufferPointer { book in
                                        rows.endPage.withUnsafeBufferPointer { endPage in
                                            bookLimit.withUnsafeBufferPointer { bookLimit in
                                                var q = IBPostingsQuery()
                                                q.phrases = Int32(phrases.count)
                                                q.rows = rowLists.baseAddress
                                                q.tf = tfLists.baseAddress
                                                q.counts = counts.baseAddress
                                                q.plain = concepts == nil ? 1 : 0
                                                q.concept = concept.baseAddress
                                                q.weight = weight.baseAddress
                                                q.documents = counted.baseAddress
                                                q.tableRows = rows.tableRows
                                                q.tableTokens = rows.tableTokens
                                                q.scopeRows = Int64(scopeRows ?? 0)
                                                q.base = rows.base
                                                q.span = Int64(rows.length.count)
                                                q.length = length.baseAddress
                                                if scope != nil {
                                                    q.rowBook = book.baseAddress
                                                    q.rowEndPage = endPage.baseAddress
                                                    q.bookLimit = bookLimit.baseAddress
                                                    q.books = Int32(rows.books.count)
                                                    q.low = Int64.min
                                                    q.high = Int64.max
                                                }
                                                q.k = Int32(k)
                                                q.work = memo.work
                                                return ib_rank_postings(&q, &outRows, &outScores)
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard found >= 0 else { return nil }
        var out: [ChunkHit] = []
        for i in 0..<Int(found) {
            let at = Int(outRows[i] - rows.base)
            let book = rows.book[at]
            guard book >= 0 else { continue }   // an index row without its chunk: the join drops it
            out.append(ChunkHit(ref: ChunkRef(seq: Int(outRows[i])), bookID: rows.books[Int(book)],
                                index: Int(rows.chunkIndex[at]), score: -outScores[i]))
        }
        return out
    }

    /// Every row's length (chunks_fts_docsize), book, end page and chunk index; nil
    /// when the rowids are too sparse to keep in arrays.
    private func readPostingsRows() throws -> PostingsRows? {
        guard let low = try db.scalarInt("SELECT min(id) FROM chunks_fts_docsize"),
              let high = try db.scalarInt("SELECT max(id) FROM chunks_fts_docsize"),
              let count = try db.scalarInt("SELECT count(*) FROM chunks_fts_docsize") else { return nil }
        let span = high - low + 1
        guard span > 0, span <= 4 * count + 4096, span < Int(Int32.max) else { return nil }
        var rows = PostingsRows()
        rows.base = Int64(low)
        rows.length = [Int32](repeating: 0, count: span)
        rows.book = [Int32](repeating: -1, count: span)
        rows.endPage = [Int32](repeating: 0, count: span)
        rows.chunkIndex = [Int32](repeating: 0, count: span)
        let sizes = try db.prepare("SELECT id, sz FROM chunks_fts_docsize")
        defer { sizes.reset() }
        while try sizes.step() {
            let length = sizes.withBlob(1) { Self.firstVarint($0) }
            let at = sizes.int(0) - low
            rows.length[at] = Int32(clamping: length)
            rows.tableRows += 1
            rows.tableTokens += Int64(length)
        }
        let chunks = try db.prepare("SELECT seq, book_id, end_page, chunk_index FROM chunks WHERE seq BETWEEN ?1 AND ?2")
        defer { chunks.reset() }
        try chunks.bind(1, low)
        try chunks.bind(2, high)
        while try chunks.step() {
            let at = chunks.int(0) - low
            let id = chunks.text(1)
            let ordinal: Int32
            if let known = rows.bookOrdinal[id] { ordinal = known } else {
                ordinal = Int32(rows.books.count)
                rows.books.append(id)
                rows.bookOrdinal[id] = ordinal
            }
            rows.book[at] = ordinal
            rows.endPage[at] = Int32(clamping: chunks.int(2))
            rows.chunkIndex[at] = Int32(clamping: chunks.int(3))
        }
        return rows
    }

    /// The rows holding `phrase` (one FTS5 phrase) and its frequency in each.
    private func readPhrasePostings(_ phrase: String) throws -> PhrasePostings {
        let statement = try db.prepare("SELECT rowid, ib_instances(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ?1")
        defer { statement.reset() }
        try statement.bind(1, phrase)
        var rows: [Int64] = []
        var frequencies: [Int32] = []
        while try statement.step() {
            rows.append(Int64(statement.int(0)))
            frequencies.append(Int32(clamping: statement.int(1)))
        }
        return PhrasePostings(rows: rows, frequencies: frequencies)
    }

    /// The first varint of an FTS5 docsize record (SQLite's varint: seven bits a
    /// byte, high bit set while more follow, the ninth byte whole): column 0's length.
    static func firstVarint(_ bytes: UnsafeRawBufferPointer) -> Int {
        var value: UInt64 = 0
        for i in 0..<min(9, bytes.count) {
            let b = bytes[i]
            if i == 8 { return Int(truncatingIfNeeded: (value << 8) | UInt64(b)) }
            value = (value << 7) | UInt64(b & 0x7F)
            if b & 0x80 == 0 { break }
        }
        return Int(truncatingIfNeeded: value)
    }
}
