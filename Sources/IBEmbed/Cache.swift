// The embedding cache: vectors keyed on (model, sha256 of the text), so that
// unchanged text is never embedded twice, across runs and across books.
// (llm keys its dedupe on ids; two books quoting one passage, or a chunk
// whose id moved, would be embedded again. We key on content.)
//
// One SQLite file, by default $XDG_CACHE_HOME/ib/embeddings.db
// (~/.cache/ib/embeddings.db), shared by several ib-embed processes; IBStore's
// EmbeddingCacheFile holds its table and blob layout. With window vectors (the
// native model), entries live under the key "<model>+windows32p64"
// (SentenceEncoder.windowScheme). The file is only a cache: deleting it is always
// safe, and a cache that cannot be opened or written is a warning, never a failure.
import IBCore
import IBModel
import IBStore

public final class EmbeddingCache {
    public let path: String
    private let file: EmbeddingCacheFile
    /// Set after the first failed read or write: the run goes on without the cache.
    public private(set) var disabled = false

    /// $XDG_CACHE_HOME/ib/embeddings.db (default ~/.cache/ib/embeddings.db).
    public static var defaultPath: String { Config.cacheDirectory + "/embeddings.db" }

    /// Opens or creates the cache file (and its folder).
    public init(path: String = EmbeddingCache.defaultPath) throws(IBError) {
        self.path = path
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try FileSystem.createDirectories(String(path[..<slash]))
        }
        file = try EmbeddingCacheFile(path: path)
    }

    public func close() { file.close() }

    /// The key of a text: sha256 of its UTF-8 bytes.
    public static func digest(_ text: String) -> [UInt8] {
        var hasher = SHA256()
        var text = text
        text.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
    }

    /// The cached vector of each digest, or nil. Errors disable the cache (one warning).
    public func lookup(model: String, digests: [[UInt8]]) -> [[Float]?] {
        reading(digests.count) { try file.vectors(model: model, digests: digests) }
    }

    /// The cached vector and window codes of each digest (stored under a key of their own), or nil.
    public func lookupWindowed(model: String, digests: [[UInt8]]) -> [(vector: [Float], windows: [Int8])?] {
        reading(digests.count) { try file.windowedVectors(model: model, digests: digests) }
    }

    /// Stores vectors in one transaction (replacing older ones). Errors disable the cache (one warning).
    public func store(model: String, entries: [(digest: [UInt8], vector: [Float])]) {
        writing { try file.store(model: model, vectors: entries) }
    }

    /// Stores vectors with their window codes, as one blob each (vector, then codes).
    public func storeWindowed(model: String, entries: [(digest: [UInt8], vector: [Float], windows: [Int8])]) {
        writing { try file.store(model: model, windowed: entries) }
    }

    /// A read of `count` entries: none found once the cache is disabled or when the read fails.
    private func reading<Entry>(_ count: Int, _ body: () throws -> [Entry?]) -> [Entry?] {
        guard !disabled else { return Array(repeating: nil, count: count) }
        do {
            return try body()
        } catch {
            fail("reading", error)
            return Array(repeating: nil, count: count)
        }
    }

    private func writing(_ body: () throws -> Void) {
        guard !disabled else { return }
        do { try body() } catch { fail("writing", error) }
    }

    /// Number of cached vectors (all models, or one).
    public func count(model: String? = nil) -> Int { file.count(model: model) }

    private func fail(_ doing: String, _ error: Error) {
        guard !disabled else { return }  // one warning, then no cache
        disabled = true
        printError("ib-embed: warning: embedding cache \(path): \(doing) failed (\(error)); going on without it")
    }
}

/// A provider whose vectors depend on more than its modelID (a precision
/// mode, requested dimensions...) names its cache key here; the key must
/// change whenever the vectors would.
public protocol EmbeddingCacheKeyed {
    var cacheKey: String { get }
}

/// Any provider behind the cache: cached texts are not sent again, repeated
/// texts in one call are embedded once, and new vectors are stored as soon as
/// each request succeeds (so a run that fails part-way resumes for free).
public final class CachedProvider: WindowEmbeddingProvider {
    public var supportsWindows: Bool { (base as? WindowEmbeddingProvider)?.supportsWindows ?? false }
    public let base: any EmbeddingProvider
    public let cache: EmbeddingCache
    /// The model part of the cache key.
    public let cacheKey: String
    /// Texts answered from the cache, and texts the base provider embedded.
    public private(set) var hits = 0
    public private(set) var misses = 0
    private var learned: Int?

    public init(base: any EmbeddingProvider, cache: EmbeddingCache) {
        self.base = base
        self.cache = cache
        cacheKey = (base as? EmbeddingCacheKeyed)?.cacheKey ?? base.modelID
    }

    public var modelID: String { base.modelID }
    public var dimension: Int { base.dimension > 0 ? base.dimension : learned ?? 0 }
    public var truncatedCount: Int { base.truncatedCount }
    public var maxSequenceLength: Int? { base.maxSequenceLength }
    public var precision: String? { base.precision }

    public func embed(_ texts: [String]) throws -> [[Float]] {
        let digests = texts.map(EmbeddingCache.digest)
        var result = cache.lookup(model: cacheKey, digests: digests)
        hits += result.lazy.filter { $0 != nil }.count

        // Cached vectors of another length than the model's are stale (the model
        // changed under its name): they are embedded again. The model's length is
        // the provider's, else (an HTTP model before its first answer) the length
        // all cached vectors agree on; a second pass catches the case where the
        // first answer disagrees with the cache.
        for _ in 0..<2 {
            var want: Int? = dimension > 0 ? dimension : nil
            if want == nil, let first = result.lazy.compactMap({ $0 }).first,
               result.allSatisfy({ $0 == nil || $0!.count == first.count }) {
                want = first.count
            }
            for i in result.indices where result[i] != nil && result[i]!.count != want {
                result[i] = nil
                hits -= 1
            }
            // Each distinct text once.
            var firstIndex: [[UInt8]: Int] = [:]
            var todo: [Int] = []
            for i in texts.indices where result[i] == nil {
                if firstIndex[digests[i]] == nil { firstIndex[digests[i]] = i; todo.append(i) }
            }
            if todo.isEmpty { break }
            try embedAndStore(todo, texts: texts, digests: digests, into: &result)
            for i in texts.indices where result[i] == nil { result[i] = result[firstIndex[digests[i]]!] }
        }
        if let first = result.first, let n = first?.count {
            learned = n
            (base as? HTTPEmbeddingProvider)?.adopt(dimension: n)
        }
        return result.map { $0! }
    }

    /// Vectors and window codes (when the base provider makes windows), cached
    /// apart from plain vectors under "<cache key>+<SentenceEncoder.windowScheme>".
    public func embedWithWindows(_ texts: [String]) throws -> [(vector: [Float], windows: [Int8])] {
        guard let windowed = base as? WindowEmbeddingProvider, windowed.supportsWindows else {
            return try embed(texts).map { ($0, []) }
        }
        let key = cacheKey + "+" + SentenceEncoder.windowScheme
        let digests = texts.map(EmbeddingCache.digest)
        let dim = base.dimension
        var result = cache.lookupWindowed(model: key, digests: digests).map { entry in
            entry.flatMap { $0.vector.count == dim ? $0 : nil }
        }
        hits += result.lazy.filter { $0 != nil }.count
        var firstIndex: [[UInt8]: Int] = [:]
        var todo: [Int] = []
        for i in texts.indices where result[i] == nil {
            if firstIndex[digests[i]] == nil { firstIndex[digests[i]] = i; todo.append(i) }
        }
        if !todo.isEmpty {
            let fresh = try windowed.embedWithWindows(todo.map { texts[$0] })
            guard fresh.count == todo.count, fresh.allSatisfy({ $0.vector.count == dim }) else {
                throw IBError("\(modelID): asked for \(todo.count) embeddings of \(dim) dimensions, got something else; nothing was written for this batch", code: .provider)
            }
            cache.storeWindowed(model: key, entries: zip(todo, fresh).map { (digests[$0], $1.vector, $1.windows) })
            for (i, entry) in zip(todo, fresh) { result[i] = entry }
            for i in texts.indices where result[i] == nil { result[i] = result[firstIndex[digests[i]]!] }
            misses += todo.count
        }
        return result.map { $0! }
    }

    /// Embeds the texts at `indices` with the base provider, checks them, and
    /// stores each request's vectors as it succeeds.
    private func embedAndStore(_ indices: [Int], texts: [String], digests: [[UInt8]], into result: inout [[Float]?]) throws {
        let batch = indices.map { texts[$0] }
        var store: [(digest: [UInt8], vector: [Float])] = []
        let vectors: [[Float]]
        if let http = base as? HTTPEmbeddingProvider {
            // The HTTP provider checks each answer; store it before the next request.
            vectors = try http.embed(batch) { range, vectors in
                self.cache.store(model: self.cacheKey, entries: zip(range, vectors).map { (digests[indices[$0]], $1) })
            }
        } else {
            vectors = try base.embed(batch)
            guard vectors.count == indices.count else {
                throw IBError("\(modelID): asked for \(indices.count) embeddings, got \(vectors.count); nothing was written for this batch", code: .provider)
            }
            let expected = base.dimension
            for vector in vectors where vector.count != expected || expected == 0 {
                throw IBError("\(modelID): returned a vector of \(vector.count) dimensions, expected \(expected); nothing was written for this batch", code: .provider)
            }
            store = zip(indices, vectors).map { (digests[$0], $1) }
            cache.store(model: cacheKey, entries: store)
        }
        guard vectors.count == indices.count else {
            throw IBError("\(modelID): asked for \(indices.count) embeddings, got \(vectors.count)", code: .provider)
        }
        for (i, vector) in zip(indices, vectors) { result[i] = vector }
        misses += indices.count
    }
}
