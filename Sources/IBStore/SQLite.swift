// A small wrapper over the SQLite C API (the CSQLite system module): a
// connection, prepared statements with typed binds and columns, and write
// transactions that wait for other writers instead of failing.
import CSQLite
import IBCore
#if canImport(Glibc)
import Glibc
#endif

/// SQLITE_TRANSIENT: SQLite copies bound text and blobs before bind returns.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A value to bind or read back.
public enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])
}

public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}
extension Int: SQLBindable { public var sqlValue: SQLValue { .int(Int64(self)) } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .int(self) } }
extension Int32: SQLBindable { public var sqlValue: SQLValue { .int(Int64(self)) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .double(self) } }
extension Float: SQLBindable { public var sqlValue: SQLValue { .double(Double(self)) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .int(self ? 1 : 0) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension SQLValue: SQLBindable { public var sqlValue: SQLValue { self } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
extension Array: SQLBindable where Element == UInt8 { public var sqlValue: SQLValue { .blob(self) } }

/// An SQLite error with its result code; converts to IBError with a clear message.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public var primaryCode: Int32 { code & 0xFF }
    public var description: String { message }
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
}

public final class Database {
    public let path: String
    /// The raw sqlite3* handle, for C extensions and special cases.
    public let handle: OpaquePointer
    private var cache: [String: Statement] = [:]
    /// PRAGMA mmap_size for every connection (vector scans read blocks through the map).
    nonisolated(unsafe) public static var mmapSize: Int = 1 << 32
    /// How long a writer waits for others in total before giving up (seconds).
    public var writeWaitLimit: Double = 600

    /// How a connection is set up: as the library, or as a side file (the
    /// embedding cache) that only wants the connection and sets itself up.
    public enum Setup: Sendable, Equatable {
        /// ibvec, foreign keys, WAL, 64 KiB pages on a new file, mmap; busy timeout 5 s.
        case library
        /// The connection only; `name` is what an open error calls the file ("the embedding cache").
        case sideFile(name: String, busyTimeoutMilliseconds: Int32)
    }

    /// Opens (and creates unless `readOnly` or not `create`) the database at `path`.
    /// As the library: registers ibvec, sets WAL, foreign keys and the busy timeout.
    /// `immutable` (read-only only): SQLite's immutable=1, for a file nobody can be
    /// writing, in a folder where no -shm file can be made.
    public init(path: String, readOnly: Bool = false, create: Bool = true, immutable: Bool = false,
                setup: Setup = .library) throws(IBError) {
        self.path = path
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        var name = path
        if readOnly && immutable {
            flags |= SQLITE_OPEN_URI
            name = Database.fileURI(path) + "?immutable=1"
        }
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            if case .sideFile(let name, _) = setup { throw IBError("cannot open \(name) \(path): \(message)") }
            throw IBError("cannot open the library \(path): \(message)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        if case .sideFile(_, let timeout) = setup {
            sqlite3_busy_timeout(db, timeout)
            return
        }
        sqlite3_busy_timeout(db, 5000)
        Extensions.register(db)
        do {
            // The first read of the header: a file that is not SQLite fails here.
            try execute("PRAGMA foreign_keys = ON")
            _ = try scalarInt("SELECT count(*) FROM sqlite_schema")
            // A file we may not write opens read-only: searching it still works.
            if !readOnly && sqlite3_db_readonly(db, "main") != 1 {
                // A new file: 64 KiB pages keep vector blocks on few overflow pages (ibvec's advice).
                // page_size only takes effect before the first table exists.
                if try scalarInt("PRAGMA page_count") == 0 { try execute("PRAGMA page_size = 65536") }
                try withBusyRetry { () throws(SQLiteError) in
                    let mode = try self.rawScalarText("PRAGMA journal_mode = WAL")
                    if mode?.lowercased() != "wal" {
                        throw SQLiteError(code: SQLITE_BUSY, message: "could not switch to WAL (journal_mode is \(mode ?? "?"))")
                    }
                }
                try execute("PRAGMA synchronous = NORMAL")
                // One book's transaction stays in memory instead of spilling to the WAL midway.
                try execute("PRAGMA cache_size = -65536")
                // After a checkpoint the WAL shrinks back instead of keeping its largest size.
                try execute("PRAGMA journal_size_limit = 67108864")
            }
            if Database.mmapSize > 0 {
                try execute("PRAGMA mmap_size = \(Database.mmapSize)")
            }
        } catch {
            sqlite3_close_v2(db)
            throw Database.describe(error, path: path)
        }
    }

    /// A file: URI for `path` (relative paths stay relative), with the characters a
    /// URI gives meaning to escaped.
    static func fileURI(_ path: String) -> String {
        var out = "file:"
        for byte in path.utf8 {
            let plain = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            out += plain ? String(UnicodeScalar(byte)) : "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
        return out
    }

    /// Whether writes will fail: opened read-only, or a file SQLite could only open so.
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: errors

    func error(_ rc: Int32, _ context: String? = nil) -> SQLiteError {
        var message = String(cString: sqlite3_errmsg(handle))
        if message == "not an error" || message.isEmpty { message = String(cString: sqlite3_errstr(rc)) }
        return SQLiteError(code: rc, message: context.map { "\($0): \(message)" } ?? message)
    }

    /// A clear message for the errors users meet: not a database, corrupt, full disk,
    /// read-only. `outcome`, when the caller knows it, says what was not done
    /// ("nothing of the current book was stored"); otherwise the message says only
    /// what failed, since a search or a status report stores nothing.
    public static func describe(_ error: any Error, path: String, outcome: String? = nil) -> IBError {
        if let error = error as? IBError { return error }
        guard let error = error as? SQLiteError else { return IBError("\(path): \(error)") }
        let tail = outcome.map { "; " + $0 } ?? ""
        switch error.primaryCode {
        case SQLITE_NOTADB:
            return IBError("\(path) is not an ib library (not an SQLite database, or encrypted): \(error.message)")
        case SQLITE_CORRUPT:
            return IBError("the library \(path) is corrupt (\(error.message)); restore a backup, or try `sqlite3 \(path) .recover`")
        case SQLITE_FULL:
            return IBError("the disk holding \(path) is full (SQLite: \(error.message))" + tail)
        case SQLITE_IOERR:
            return IBError("I/O error \(ioOperation(error.code)) the library \(path) (SQLite: \(error.message))" + tail)
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM:
            return IBError("cannot write the library \(path): \(error.message)" + tail)
        case SQLITE_BUSY, SQLITE_LOCKED:
            return IBError("the library \(path) stayed locked by other writers: \(error.message)" + tail)
        default:
            return IBError("\(path): \(error.message)" + tail)
        }
    }

    /// What an SQLITE_IOERR's extended code says was being done (sqlite3.h's
    /// SQLITE_IOERR_READ = 10 | 1 << 8, and so on).
    static func ioOperation(_ extendedCode: Int32) -> String {
        switch extendedCode >> 8 {
        case 1, 2: return "reading"
        case 3, 4, 6: return "writing"
        case 10: return "deleting a file beside"
        case 13, 18, 19, 21: return "opening the shared-memory file of"
        default: return "on"
        }
    }

    // MARK: statements

    /// A prepared statement, cached by its SQL text. Reset before it is returned, so
    /// do not prepare the same SQL again while iterating over its rows.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(database: self, sql: sql)
        // Generated SQL (IN lists of varying length) must not grow the cache without bound;
        // statements still held by a caller stay alive until released.
        if cache.count >= 256 { cache.removeAll() }
        cache[sql] = statement
        return statement
    }

    /// Runs one or more statements without results.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text)
        }
    }

    /// Runs one statement with arguments; returns the number of changed rows.
    @discardableResult
    public func run(_ sql: String, _ arguments: SQLBindable...) throws(SQLiteError) -> Int {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        while try statement.step() {}
        return changes
    }

    /// All rows of a query.
    public func query(_ sql: String, _ arguments: SQLBindable...) throws(SQLiteError) -> [Row] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var rows: [Row] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    /// The first column of the first row, as an integer (nil when no row or NULL).
    public func scalarInt(_ sql: String, _ arguments: SQLBindable...) throws(SQLiteError) -> Int? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int(0)
    }

    public func scalarText(_ sql: String, _ arguments: SQLBindable...) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.optionalText(0)
    }

    /// Without the statement cache, for PRAGMAs whose result changes.
    private func rawScalarText(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try Statement(database: self, sql: sql)
        guard try statement.step() else { return nil }
        return statement.optionalText(0)
    }

    public var changes: Int { Int(sqlite3_changes(handle)) }
    /// Rows this connection has changed since it opened (triggers' rows too).
    public var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: transactions

    /// Retries `body` while it fails with SQLITE_BUSY, sleeping a little longer
    /// each time, until `writeWaitLimit` seconds have passed.
    func withBusyRetry<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        let start = Timestamp.monotonic()
        var delay = 0.002
        while true {
            do {
                return try body()
            } catch where error.isBusy && Timestamp.monotonic() - start < writeWaitLimit {
                // Jitter spreads the writers out.
                let sleep = delay * (0.5 + Double(UInt32.random(in: 0...1000)) / 1000)
                usleep(UInt32(sleep * 1e6))
                delay = min(delay * 2, 0.25)
            }
        }
    }

    /// A write transaction (BEGIN IMMEDIATE): takes the write lock up front, waiting
    /// for other writers; commits when `body` returns, rolls back when it throws.
    @discardableResult
    public func write<T>(_ body: () throws -> T) throws -> T {
        // A statement left mid-iteration would keep an old read snapshot, and
        // BEGIN IMMEDIATE could then never succeed (SQLITE_BUSY_SNAPSHOT).
        resetActiveStatements()
        try withBusyRetry { () throws(SQLiteError) in try self.execute("BEGIN IMMEDIATE") }
        do {
            let result = try body()
            try withBusyRetry { () throws(SQLiteError) in try self.execute("COMMIT") }
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Resets every statement of this connection that is still stepping.
    public func resetActiveStatements() {
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(handle, current)
        }
    }

    /// A read transaction: one consistent snapshot for several queries.
    public func read<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        defer { try? execute("COMMIT") }
        return try body()
    }
}

/// One row of a query result, by column index or name.
public struct Row: Sendable {
    public let names: [String]
    public let values: [SQLValue]

    public subscript(_ name: String) -> SQLValue {
        guard let i = names.firstIndex(of: name) else { return .null }
        return values[i]
    }
    public func int(_ name: String) -> Int? {
        switch self[name] {
        case .int(let n): return Int(n)
        case .double(let d): return Int(d)
        case .text(let s): return Int(s)
        default: return nil
        }
    }
    public func double(_ name: String) -> Double? {
        switch self[name] {
        case .int(let n): return Double(n)
        case .double(let d): return d
        case .text(let s): return Double(s)
        default: return nil
        }
    }
    public func text(_ name: String) -> String? {
        switch self[name] {
        case .text(let s): return s
        case .int(let n): return String(n)
        case .double(let d): return String(d)
        default: return nil
        }
    }
    public func blob(_ name: String) -> [UInt8]? {
        switch self[name] {
        case .blob(let b): return b
        case .text(let s): return Array(s.utf8)
        default: return nil
        }
    }
}

public final class Statement {
    unowned let database: Database
    let handle: OpaquePointer
    public let sql: String

    init(database: Database, sql: String) throws(SQLiteError) {
        self.database = database
        self.sql = sql
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw database.error(rc == SQLITE_OK ? SQLITE_MISUSE : rc)
        }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: binding (indices from 1, as in SQLite)

    public func bind(_ values: [SQLBindable]) throws(SQLiteError) {
        for (i, value) in values.enumerated() { try bind(Int32(i + 1), value.sqlValue) }
    }

    public func bind(_ index: Int32, _ value: SQLValue) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .int(let n): rc = sqlite3_bind_int64(handle, index, n)
        case .double(let d): rc = sqlite3_bind_double(handle, index, d)
        case .text(let s): rc = bindText(index, s)
        case .blob(let b): rc = bindBlob(index, b)
        }
        if rc != SQLITE_OK { throw database.error(rc, "bind \(index) in \(sql)") }
    }

    public func bind(_ index: Int32, _ value: Int) throws(SQLiteError) {
        let rc = sqlite3_bind_int64(handle, index, Int64(value))
        if rc != SQLITE_OK { throw database.error(rc) }
    }

    public func bind(_ index: Int32, _ value: String?) throws(SQLiteError) {
        let rc = value.map { bindText(index, $0) } ?? sqlite3_bind_null(handle, index)
        if rc != SQLITE_OK { throw database.error(rc) }
    }

    /// Binds all of the text's UTF-8 bytes by their count: a length of -1 would
    /// make SQLite stop at the first NUL and drop the rest of the text.
    private func bindText(_ index: Int32, _ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            // A nil pointer would bind NULL: the empty text gets a real (empty) one.
            let start = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(bitPattern: 1)!
            return sqlite3_bind_text64(handle, index, start.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
                                       sqliteTransient, UInt8(SQLITE_UTF8))
        }
    }

    /// Binds raw bytes without building an array first (vector blobs).
    public func bind(_ index: Int32, bytes: UnsafeRawBufferPointer) throws(SQLiteError) {
        let rc = sqlite3_bind_blob64(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(bytes.count), sqliteTransient)
        if rc != SQLITE_OK { throw database.error(rc) }
    }

    private func bindBlob(_ index: Int32, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { raw in
            sqlite3_bind_blob64(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(raw.count), sqliteTransient)
        }
    }

    public func bind(_ name: String, _ value: SQLValue) throws(SQLiteError) {
        let index = sqlite3_bind_parameter_index(handle, name)
        guard index > 0 else { throw SQLiteError(code: SQLITE_RANGE, message: "no parameter \(name) in \(sql)") }
        try bind(index, value)
    }

    // MARK: stepping

    /// True when a row is ready; false when done. Throws on errors.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { sqlite3_reset(handle); return false }
        let error = database.error(rc)
        sqlite3_reset(handle)
        throw error
    }

    /// Runs the statement to the end (inserts, updates) and resets it for reuse.
    public func execute() throws(SQLiteError) {
        while try step() {}
        sqlite3_clear_bindings(handle)
    }

    // MARK: columns (indices from 0)

    public var columnCount: Int32 { sqlite3_column_count(handle) }
    public func name(_ i: Int32) -> String { String(cString: sqlite3_column_name(handle, i)) }
    public func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }
    public func int(_ i: Int32) -> Int { Int(sqlite3_column_int64(handle, i)) }
    public func optionalInt(_ i: Int32) -> Int? { isNull(i) ? nil : int(i) }
    public func double(_ i: Int32) -> Double { sqlite3_column_double(handle, i) }
    public func text(_ i: Int32) -> String {
        guard let p = sqlite3_column_text(handle, i) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, i))
        return String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)
    }
    public func optionalText(_ i: Int32) -> String? { isNull(i) ? nil : text(i) }
    public func blob(_ i: Int32) -> [UInt8] {
        let p = sqlite3_column_blob(handle, i)
        let n = Int(sqlite3_column_bytes(handle, i))
        guard let p, n > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
    /// The blob's bytes without copying; valid until the next step or reset.
    public func withBlob<T>(_ i: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let p = sqlite3_column_blob(handle, i)
        let n = Int(sqlite3_column_bytes(handle, i))
        return try body(UnsafeRawBufferPointer(start: n > 0 ? p : nil, count: n))
    }
    public func value(_ i: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT: return .double(double(i))
        case SQLITE_TEXT: return .text(text(i))
        case SQLITE_BLOB: return .blob(blob(i))
        default: return .null
        }
    }
    public func row() -> Row {
        let n = columnCount
        return Row(names: (0..<n).map { name($0) }, values: (0..<n).map { value($0) })
    }
}
