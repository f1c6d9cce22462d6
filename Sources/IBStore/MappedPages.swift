// The page-table entries of SQLite's maps of the library, given back early.
//
// A search that scans the vectors reads every int8 code through SQLite's map
// (38 MB at 100k chunks): about ten thousand page-table entries, in the small
// folios a library's own writes leave in the page cache, which the kernel
// clears when the process unmaps the file at exit. Measured on Zen 3 (Linux
// 6.18), that clearing is 4-5 ms of a one-off search's wall time, after its
// results. A process that searches once (ib-search) has them cleared on its
// other core as soon as it has read what it needs in bulk (MADV_DONTNEED on a
// read-only shared map: the map stays, its pages stay in the page cache, and
// what the search reads afterwards faults back in from there).
//
// The clearing must hit SQLite's map and nothing else: SQLite moves or drops a
// map when the file grows, when a read transaction starts after another
// connection's commit, or when the connection closes, and memory mapped later
// at the same addresses would be cleared instead. So each connection first
// opens a read transaction (BEGIN and a read: any remapping happens then), its
// map's first page is fetched (xFetch: unixMapfile does nothing while a fetched
// page is out), and the map's length is checked to reach the file's end; only
// then does the clearing start. finish() waits for it, hands the page back
// (xUnfetch) and ends the transaction, on the connections' thread; until then
// the connections only read, in that transaction.
import CSQLite
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

public final class MappedPages {
    private struct Held {
        let library: Library
        let file: UnsafeMutablePointer<sqlite3_file>
        let unfetch: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, sqlite3_int64, UnsafeMutableRawPointer?) -> Int32
        let first: UnsafeMutableRawPointer
        let length: Int
    }
    private var held: [Held] = []
    private let cleared = DispatchGroup()

    /// Starts clearing the maps of `libraries`' connections on another thread, each in
    /// a read transaction of its own until finish(). On the thread that uses those
    /// connections, with none of them in use elsewhere. A connection without a map
    /// (mmap off, an empty file) or already in a transaction is left as it is.
    public init(releasing libraries: [Library]) {
        for library in libraries {
            if let map = Self.hold(library) { held.append(map) }
        }
        guard !held.isEmpty else { return }
        let extents = held.map { (start: Int(bitPattern: $0.first), length: $0.length) }
        cleared.enter()
        DispatchQueue.global().async { [cleared] in
            for e in extents { _ = madvise(UnsafeMutableRawPointer(bitPattern: e.start), e.length, MADV_DONTNEED) }
            cleared.leave()
        }
    }

    /// The maps being cleared: their starts and lengths (for tests).
    var extents: [(start: Int, length: Int)] { held.map { (Int(bitPattern: $0.first), $0.length) } }

    /// Waits for the clearing, then hands the fetched pages back to SQLite. On the
    /// connections' thread, before they start a transaction that may write or close.
    /// Idempotent.
    public func finish() {
        guard !held.isEmpty else { return }
        cleared.wait()
        for map in held {
            _ = map.unfetch(map.file, 0, map.first)
            try? map.library.db.execute("COMMIT")
        }
        held = []
    }

    deinit { finish() }

    /// A read transaction on `library`'s connection, and its map's first page fetched.
    private static func hold(_ library: Library) -> Held? {
        let db = library.db
        guard sqlite3_get_autocommit(db.handle) != 0 else { return nil }
        do {
            try db.execute("BEGIN")
            _ = try db.scalarInt("SELECT 1 FROM sqlite_schema LIMIT 1")   // the snapshot starts here
        } catch {
            try? db.execute("ROLLBACK")
            return nil
        }
        guard let held = fetchFirstPage(library) else {
            try? db.execute("COMMIT")
            return nil
        }
        return held
    }

    /// The first page of SQLite's map of `library`'s file, fetched, with the map's
    /// length; nil when the connection has no map or one short of the file.
    private static func fetchFirstPage(_ library: Library) -> Held? {
        var raw: UnsafeMutableRawPointer?
        guard sqlite3_file_control(library.db.handle, "main", SQLITE_FCNTL_FILE_POINTER, &raw) == SQLITE_OK, let raw else { return nil }
        let file = raw.assumingMemoryBound(to: sqlite3_file.self)
        // xFetch and xUnfetch: version 3 of the I/O methods.
        guard let methods = file.pointee.pMethods, methods.pointee.iVersion >= 3,
              let fetch = methods.pointee.xFetch, let unfetch = methods.pointee.xUnfetch else { return nil }
        var size: sqlite3_int64 = 0
        guard methods.pointee.xFileSize(file, &size) == SQLITE_OK, size > 0 else { return nil }
        let length = min(size, sqlite3_int64(Database.mmapSize))
        guard length >= 512 else { return nil }
        var first: UnsafeMutableRawPointer?
        guard fetch(file, 0, 512, &first) == SQLITE_OK, let first else { return nil }
        // The map must reach `length` (it is shorter when the file grew since it was made):
        // what lies beyond it is not SQLite's.
        var last: UnsafeMutableRawPointer?
        guard fetch(file, length - 512, 512, &last) == SQLITE_OK, let last, last == first + Int(length - 512) else {
            if let last { _ = unfetch(file, length - 512, last) }
            _ = unfetch(file, 0, first)
            return nil
        }
        _ = unfetch(file, length - 512, last)
        return Held(library: library, file: file, unfetch: unfetch, first: first, length: Int(length))
    }
}
