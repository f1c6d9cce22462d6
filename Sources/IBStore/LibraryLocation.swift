// Where the library file is, where that came from (--db, $IB_DB or the default
// location), and the rules a path must meet before SQLite opens it: SQLite
// itself would create a missing file, or a "-journal" beside /dev/null.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

struct LibraryLocation {
    let path: String
    /// "--db" or "IB_DB" when the user named the path; nil for the default location.
    let origin: String?

    init(flag: String?) {
        path = Config.databasePath(flag: flag)
        origin = flag != nil ? "--db" : Config.environment("IB_DB") != nil ? "IB_DB" : nil
    }

    var folder: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// How an error names the path: "--db PATH", "IB_DB=PATH" or just PATH.
    var named: String {
        switch origin {
        case "--db": return "--db \(path)"
        case let origin?: return "\(origin)=\(path)"
        case nil: return path
        }
    }

    /// Refuses what cannot be a library: anything but a regular file (exit 2),
    /// a missing file for a reader, and for a writer a new file in a folder that
    /// does not exist (the default location's folder is made by the caller).
    func check(creating: Bool) throws(IBError) {
        var info = stat()
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) != S_IFREG {
                let what = (info.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file"
                throw IBError.usage("\(named): \(what) (a library is one SQLite file)")
            }
            return
        }
        let reason = errno
        guard reason == ENOENT else {
            if reason == ENOTDIR { throw IBError.usage("\(named): a part of the path is not a folder") }
            throw IBError("cannot open the library \(path): \(String(cString: strerror(reason)))")
        }
        guard creating else {
            throw IBError("no library at \(path) (index a book with ib-index first)")
        }
        if origin != nil && !FileSystem.isDirectory(folder) {
            throw IBError.usage("\(named): no folder \(folder) (create it first)")
        }
    }

    /// Whether this process may write the file and its folder (where SQLite keeps
    /// the -wal and -shm files). False on a read-only disk, even for root.
    var isWritable: Bool {
        access(path, W_OK) == 0 && access(folder, W_OK) == 0
    }
}
