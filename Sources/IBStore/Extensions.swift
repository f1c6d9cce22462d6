// SQL extensions registered on every connection IBStore opens.
import CSQLite
import CIBVec

enum Extensions {
    /// ibvec (vector functions and ibvec_knn), compiled in with SQLITE_CORE.
    static func register(_ db: OpaquePointer) {
        _ = sqlite3_ibvec_init(db, nil, nil)
    }
}
