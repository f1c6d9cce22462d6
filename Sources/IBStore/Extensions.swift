// SQL extensions registered on every connection IBStore opens.
import CSQLite
import CIBRank
import CIBVec

enum Extensions {
    /// ibvec (vector functions and ibvec_knn), compiled in with SQLITE_CORE, and ib_concepts.
    static func register(_ db: OpaquePointer) {
        _ = sqlite3_ibvec_init(db, nil, nil)
        // ib_concepts (BM25 over a word and its synonyms) for ib-search's full-text half.
        _ = ib_rank_register(db)
    }
}
