// Where ib keeps things: the library database, the model, caches.
// Flags win over environment variables, which win over XDG defaults.
#if canImport(Glibc)
import Glibc
#endif

public enum Config {
    public static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let string = String(cString: value)
        return string.isEmpty ? nil : string
    }

    /// Like `environment`, but a variable that is set and empty is "" rather
    /// than nil (provider endpoints refuse an empty value instead of ignoring it).
    public static func rawEnvironment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    public static var home: String { environment("HOME") ?? "/tmp" }

    /// $XDG_DATA_HOME/ib, defaulting to ~/.local/share/ib.
    public static var dataDirectory: String {
        (environment("XDG_DATA_HOME") ?? home + "/.local/share") + "/ib"
    }

    /// $XDG_CACHE_HOME/ib, defaulting to ~/.cache/ib.
    public static var cacheDirectory: String {
        (environment("XDG_CACHE_HOME") ?? home + "/.cache") + "/ib"
    }

    /// The library: --db, then $IB_DB, then $XDG_DATA_HOME/ib/library.db.
    public static func databasePath(flag: String? = nil) -> String {
        flag ?? environment("IB_DB") ?? dataDirectory + "/library.db"
    }

    public static let defaultModelName = "all-MiniLM-L6-v2"

    /// The model folder: --model-dir, then $IB_MODEL_DIR, then $XDG_DATA_HOME/ib/models/all-MiniLM-L6-v2.
    public static func modelDirectory(flag: String? = nil) -> String {
        flag ?? environment("IB_MODEL_DIR") ?? dataDirectory + "/models/" + defaultModelName
    }
}

public enum FileSystem {
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The size of a file in bytes; nil when it does not exist.
    public static func size(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates a directory and its parents, like mkdir -p.
    public static func createDirectories(_ path: String) throws(IBError) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw IBError("cannot create \(current): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Reads a whole file. Refuses directories and files over `limit` bytes.
    public static func read(_ path: String, limit: Int = 1 << 31) throws(IBError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw IBError("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw IBError("\(path): \(String(cString: strerror(errno)))") }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw IBError("\(path): is a directory") }
        var out: [UInt8] = []
        out.reserveCapacity(Int(info.st_size) > 0 ? Int(info.st_size) : 1 << 16)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IBError("\(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            if out.count > limit { throw IBError("\(path): larger than \(limit) bytes") }
        }
        return out
    }

    public static func readText(_ path: String) throws(IBError) -> String {
        let bytes = try read(path)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw IBError("\(path): not valid UTF-8") }
        return text
    }
}
