// An ambiguous capture waits in the library (pending_captures) for the line
// that settles it: a candidate's number, its id, its title or its author. The
// answer claims the newest pending line it fits and deletes it in the same
// write transaction that stores the capture, so twenty answers typed at once
// settle twenty lines, each once.
import IBCore
import IBStore

extension CaptureEngine {
    /// How long an ambiguous line waits for its answer.
    static let pendingLifetime: Double = 3600

    /// Keeps an ambiguous line (never a dry run) until an answer claims it.
    func savePending(line: String, candidates: [String]) throws {
        guard let store, !options.dryRun, !candidates.isEmpty else { return }
        try store.library.db.write {
            try store.records.deletePendingCaptures(before: options.now - Self.pendingLifetime)
            try store.records.addPendingCapture(line: line, candidates: candidates, at: options.now)
        }
    }

    /// Settles the newest pending line `answer` picks a candidate of, and stores
    /// it; nil (nothing claimed, nothing written) when no pending line fits.
    func settlePending(answer: String) throws -> JSON? {
        guard let store, !options.dryRun else { return nil }
        return try store.library.db.write { () throws -> JSON? in
            let waiting = try store.records.pendingCaptures(from: options.now - Self.pendingLifetime, to: options.now)
            for pending in waiting {
                guard let bookID = try choice(answer, among: pending.candidates, store) else { continue }
                guard try store.records.deletePendingCapture(id: pending.id) else { continue }
                forcedBookID = bookID
                defer { forcedBookID = nil }
                let c = parser.parse(pending.line)
                try check(c, line: pending.line)
                return try write(c, pending.line, store)
            }
            return nil
        }
    }

    /// The candidate an answer names: its number (1 is the first listed), id,
    /// title, or the one candidate by the author it names.
    func choice(_ answer: String, among ids: [String], _ store: CaptureStore) throws -> String? {
        let t = Text.strip(answer)
        if let n = Int(t) { return n >= 1 && n <= ids.count ? ids[n - 1] : nil }
        if ids.contains(t) { return t }
        let refs = try ids.compactMap { try store.bookRef(id: $0) }
        let matcher = TitleMatcher(refs.map { TitleMatcher.Entry(id: $0.id, title: $0.title, authors: $0.authors) })
        if let m = matcher.match(t).unique { return m.id }
        let key = TitleMatcher.normalize(t)
        let byAuthor = refs.filter { r in !key.isEmpty && r.authors.contains { TitleMatcher.normalize($0).contains(key) } }
        return byAuthor.count == 1 ? byAuthor[0].id : nil
    }
}
