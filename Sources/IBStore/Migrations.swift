// The migrations runner: shared/schema/NNN_name.sql files, embedded into the
// binary by scripts/gen-migrations (Migrations.generated.swift), applied in
// order in one write transaction and tracked in schema_migrations (the same
// table the interactive-books tools use: version, name, applied_at).
import IBCore

public enum Migrations {
    public static var latestVersion: Int { EmbeddedMigrations.all.map(\.version).max() ?? 0 }
    public static var all: [(version: Int, name: String, sql: String)] { EmbeddedMigrations.all }

    /// Brings the database up to date. Safe with several processes at once:
    /// the check and the changes happen under the write lock.
    public static func migrate(_ db: Database) throws {
        if let applied = try appliedVersions(db) {
            try checkNotNewer(applied, db)
            if all.allSatisfy({ applied.contains($0.version) }) { return }
        }
        try db.write {
            try db.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version    INTEGER PRIMARY KEY,
                    name       TEXT NOT NULL,
                    applied_at TEXT NOT NULL DEFAULT (datetime('now'))
                )
                """)
            let applied = try appliedVersions(db) ?? []
            try checkNotNewer(applied, db)
            for migration in all.sorted(by: { $0.version < $1.version }) where !applied.contains(migration.version) {
                do {
                    try db.execute(migration.sql)
                } catch let error as SQLiteError {
                    if error.primaryCode == SQLITE_CORRUPT_CODE || error.primaryCode == SQLITE_NOTADB_CODE || error.primaryCode == SQLITE_FULL_CODE {
                        throw error
                    }
                    throw IBError("migration \(migration.name) failed on \(db.path): \(error.message)")
                }
                try afterSQL(version: migration.version, db)
                try db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                           migration.version, migration.name, Timestamp.iso8601())
            }
        }
    }

    /// The part of a migration SQL cannot say, run right after its file in the same
    /// transaction: 0230 places every structured book's chunks again (Library.storeSections).
    static func afterSQL(version: Int, _ db: Database) throws {
        switch version {
        case 230: try Library.restoreAllSections(in: db)
        default: break
        }
    }

    /// For a library opened read-only: it must need no migration, since none can run.
    public static func checkCurrent(_ db: Database) throws {
        let applied = try appliedVersions(db) ?? []
        try checkNotNewer(applied, db)
        if let missing = all.map(\.version).filter({ !applied.contains($0) }).min() {
            throw IBError("the library \(db.path) is read-only here and older than this ib (it lacks schema version \(missing)): "
                          + "open it once with write access to upgrade it")
        }
    }

    /// nil when the table does not exist yet.
    static func appliedVersions(_ db: Database) throws -> Set<Int>? {
        let exists = try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'") ?? 0
        guard exists > 0 else { return nil }
        return Set(try db.query("SELECT version FROM schema_migrations").compactMap { $0.int("version") })
    }

    static func checkNotNewer(_ applied: Set<Int>, _ db: Database) throws {
        let latest = latestVersion
        if let newest = applied.max(), newest > latest {
            throw IBError("the library \(db.path) has schema version \(newest), newer than this ib knows (\(latest)): upgrade ib (nothing was changed)")
        }
    }
}
