// How the stages name a chunk and a ranked chunk without spelling out SQL keys.

/// A chunk's identity in the library: its `seq`, the stable integer id that is
/// also its chunks_fts rowid. It never changes (VACUUM keeps it), it is what
/// the full-text index and the window scan yield, and it hashes as one integer
/// where "book:index" strings had to be built and compared.
public struct ChunkRef: Hashable, Comparable, Sendable {
    public let seq: Int
    public init(seq: Int) { self.seq = seq }
    public static func < (a: ChunkRef, b: ChunkRef) -> Bool { a.seq < b.seq }
}

/// A chunk found by one search list: its reference, where it stands in its
/// book, and the list's score, lower-is-better (a cosine distance, or bm25).
public struct ChunkHit: Sendable, Equatable {
    public var ref: ChunkRef
    public var bookID: String
    public var index: Int
    public var score: Double
    public init(ref: ChunkRef, bookID: String, index: Int, score: Double) {
        self.ref = ref; self.bookID = bookID; self.index = index; self.score = score
    }
}
