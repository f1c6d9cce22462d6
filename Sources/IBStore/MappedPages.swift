// The page-table entries of SQLite's map of the library, given back early.
//
// A search that scans the vectors reads every int8 code through SQLite's map
// (38 MB at 100k chunks): about ten thousand page-table entries, in the small
// folios a library's own writes leave in the page cache, which the kernel
// clears when the process unmaps the file at exit. Measured on Zen 3 (Linux
// 6.18), that clearing is 4-5 ms of a one-off search's wall time, after its
// results. A process that searches once (ib-search) has them cleared on its
// other core as soon as both halves of the search are done (MADV_DONTNEED on
// a read-only shared map: the map stays, its pages stay in the page cache, and
// what the search reads afterwards faults back in from there).
import CSQLite
#if canImport(Glibc)
import Glibc
#endif

public struct MappedPages: Sendable {
    let start: Int
    let length: Int

    /// The extent of SQLite's map of `library`'s file, as this connection holds it
    /// (nil: no map). Not while another thread uses the connection.
    public init?(_ library: Library) {
        let db = library.db.handle
        var raw: UnsafeMutableRawPointer?
        guard sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &raw) == SQLITE_OK, let raw else { return nil }
        let file = raw.assumingMemoryBound(to: sqlite3_file.self)
        // xFetch (version 3 of the I/O methods) hands out a pointer into the map.
        guard let methods = file.pointee.pMethods, methods.pointee.iVersion >= 3,
              let fetch = methods.pointee.xFetch, let unfetch = methods.pointee.xUnfetch else { return nil }
        var size: sqlite3_int64 = 0
        guard methods.pointee.xFileSize(file, &size) == SQLITE_OK, size > 0 else { return nil }
        var first: UnsafeMutableRawPointer?
        guard fetch(file, 0, 512, &first) == SQLITE_OK, let first else { return nil }
        _ = unfetch(file, 0, first)
        start = Int(bitPattern: first)
        length = Int(min(size, sqlite3_int64(Database.mmapSize)))
    }

    /// Clears the map's page-table entries (any thread; the map and the data stay).
    public func release() {
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), length, MADV_DONTNEED)
    }
}
