// Capture lines waiting for the answer that settles their ambiguous book
// (table pending_captures). ib-capture keeps the rules (which answer picks
// which candidate); this file keeps the SQL. Claiming is only atomic inside
// the caller's write transaction (Database.write), where it belongs.
import IBCore

public struct PendingCapture: Sendable, Equatable {
    public var id: Int
    public var line: String
    /// The candidate book ids, in the order they were listed (answer 1 is the first).
    public var candidates: [String]
    public var createdAt: Double
}

extension ReaderRecords {
    /// Keeps an ambiguous line until an answer claims it; returns its row id.
    @discardableResult
    public func addPendingCapture(line: String, candidates: [String], at seconds: Double) throws -> Int {
        try db.run("INSERT INTO pending_captures (line, candidates, created_at) VALUES (?, ?, ?)",
                   line, JSON(candidates).serialized, seconds)
        return Int(db.lastInsertRowID)
    }

    /// The lines still waiting that were captured between `from` and `to`, newest first.
    public func pendingCaptures(from: Double, to: Double) throws -> [PendingCapture] {
        try db.query("""
            SELECT id, line, candidates, created_at FROM pending_captures
            WHERE created_at >= ? AND created_at <= ? ORDER BY created_at DESC, id DESC
            """, from, to).map { row in
            PendingCapture(id: row.int("id") ?? 0, line: row.text("line") ?? "", candidates: Self.strings(row.text("candidates")),
                           createdAt: row.double("created_at") ?? 0)
        }
    }

    /// Removes a claimed line; false when another writer took it first.
    public func deletePendingCapture(id: Int) throws -> Bool {
        try db.run("DELETE FROM pending_captures WHERE id = ?", id) == 1
    }

    /// Forgets lines nobody answered before `seconds`.
    public func deletePendingCaptures(before seconds: Double) throws {
        try db.run("DELETE FROM pending_captures WHERE created_at < ?", seconds)
    }

    public func pendingCaptureCount() throws -> Int {
        try db.scalarInt("SELECT count(*) FROM pending_captures") ?? 0
    }
}
