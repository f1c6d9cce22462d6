// The vector half of a search: the query embedded with the library's model in
// the library's precision (fp32, bf16 or int8, as its vectors were made), the
// nearest chunks by their own vectors (IBStore's kNN), then re-scored by their
// window vectors (a paragraph or a ~32-token run each).
import CIBVec
import CKernels
import IBCore
import IBModel
import IBStore

extension SearchEngine {
    /// The query's vector with the library's model; nil (with a warning) when
    /// the library has no vectors or its model is not available here, unless `required`.
    public func queryVector(_ text: String, required: Bool) throws -> [Float]? {
        guard let (model, dim) = try library.embeddingModel() else {
            if required { throw IBError("the library has no vectors yet (embed the chunks with ib-embed); try --mode text") }
            warn("the library has no vectors: text search only")
            return nil
        }
        if encoder == nil {
            let directory = Config.modelDirectory(flag: modelDirectory)
            let folderName = String(directory.split(separator: "/").last ?? "")
            if folderName != model && modelDirectory == nil && !modelDirectoryChosen {
                // The library was embedded with another model: look for a folder of that name beside the default.
                let candidate = Config.dataDirectory + "/models/" + model
                if FileSystem.isDirectory(candidate) {
                    encoder = try SentenceEncoder(directory: candidate, threads: 1)
                }
            }
            if encoder == nil {
                do {
                    if let preload, preload.directory == directory {
                        encoder = try preload.encoder()
                        mark("model load (preloaded)")
                    } else {
                        encoder = try SentenceEncoder(directory: directory, threads: 1)
                        mark("model load")
                    }
                } catch {
                    if required { throw error }
                    warn("cannot load the model (\(error.message)): text search only")
                    return nil
                }
            }
        }
        guard let encoder else { return nil }
        // One question: its products shared over the cores the engine lets it have.
        encoder.productThreads = embeddingThreads
        guard encoder.modelID == model, encoder.dimension == dim else {
            let message = "the library's vectors come from \(model) (\(dim) dimensions), but the model at \(encoder.directory) is \(encoder.modelID) (\(encoder.dimension))"
            if required { throw IBError(message + "; set IB_MODEL_DIR to the library's model") }
            warn(message + ": text search only")
            return nil
        }
        try usePrecision(of: library, encoder, required: required)
        if let known = queryVectors.vector(text) {
            mark("embed (known)")
            return known
        }
        // The model's weights packed for the products: mapped from the cache folder's
        // copy when there is one; an engine asked a second new question will likely be
        // asked more (a server's, ib-ask's), so it packs them itself from then on.
        if !encoder.mapPackedWeights() && !queryVectors.isEmpty { encoder.packWeights() }
        let vector = encoder.embed([text]).first
        if let vector { queryVectors.remember(text, vector) }
        mark(encoder.weightsPacked ? "embed (weights packed)" : "embed")
        // A process that searches once is done with the model (releasesMappedPages).
        if releasesMappedPages { encoder.releaseMappedPages() }
        return vector
    }

    /// Leaves the model's packed weights in the cache folder for the next process
    /// when this one embedded without them (SentenceEncoder.keepPackedWeights): once
    /// per model file and CPU, after a process's results.
    public func keepPackedModel() {
        encoder?.keepPackedWeights()
    }

    /// Sets the encoder to the library's precision, so that the query's vector is made
    /// the way the library's were (int8 quantises the weights once, on the first query).
    func usePrecision(of library: Library, _ encoder: SentenceEncoder, required: Bool) throws {
        let recorded = try library.embeddingPrecision() ?? "fp32"
        guard let precision = Precision(rawValue: recorded) else {
            let message = "the library's vectors were made in precision '\(recorded)', which this ib cannot make"
            if required { throw IBError(message) }
            warn(message + ": queries are embedded in \(encoder.precision.rawValue)")
            return
        }
        guard encoder.precision != precision else { return }
        encoder.precision = precision
        mark("precision \(precision.rawValue)")
    }

    /// Re-scores vector candidates (and the text list's, which may have no vector
    /// rank yet) by window vectors: a chunk's similarity becomes the larger of its
    /// own cosine and its best window's. A 256-token chunk's one vector averages
    /// everything in it, so a question about one sentence or one dictionary entry
    /// matches it weakly; its ~32-token windows match it closely. On the
    /// evaluation set this raised vector recall@5 from 0.51 to about 0.70.
    /// Chunks without windows keep their cosine; text-only candidates without
    /// windows stay out of the vector list. Windows are read by primary key for
    /// these few candidates only, never scanned.
    static func rescoreByWindows(_ hits: [ChunkHit], extra: [ChunkHit], query: [Float], library: Library) throws -> [ChunkHit] {
        var candidates = hits
        var seen = Set(hits.map(\.ref))
        for hit in extra where seen.insert(hit.ref).inserted { candidates.append(hit) }
        var similarity: [ChunkRef: Double] = [:]
        for hit in hits { similarity[hit.ref] = 1 - hit.score }
        var anyWindows = false
        var scores = [Float](repeating: 0, count: 64)
        try query.withUnsafeBufferPointer { q in
            try library.forEachWindows(of: candidates.map(\.ref)) { ref, codes in
                anyWindows = true
                guard let best = Self.bestWindow(codes, query: q, scores: &scores) else { return }
                similarity[ref] = max(similarity[ref] ?? -1, Double(best))
            }
        }
        if !anyWindows { return hits }
        var out: [ChunkHit] = []
        for var candidate in candidates {
            guard let s = similarity[candidate.ref] else { continue }
            candidate.score = 1 - s
            out.append(candidate)
        }
        // Stable: equal scores keep the order they came in.
        return out.enumerated().sorted { a, b in
            a.element.score != b.element.score ? a.element.score < b.element.score : a.offset < b.offset
        }.map(\.element)
    }

    /// The vector list over a whole scope: every chunk's similarity is the larger
    /// of its own cosine (when the k-nearest search returned it) and its best
    /// window's, and the `depth` most similar chunks come back, best first.
    static func scanWindows(_ hits: [ChunkHit], query: [Float], scope: SearchScope?,
                            depth: Int, library: Library) throws -> [ChunkHit] {
        var scores = [Float](repeating: 0, count: 64)
        var best = TopScores(capacity: max(1, depth))
        try query.withUnsafeBufferPointer { q in
            try library.forEachWindows(in: scope) { ref, codes in
                if let top = Self.bestWindow(codes, query: q, scores: &scores) { best.offer(ref.seq, top) }
            }
        }
        var similarity: [ChunkRef: (hit: ChunkHit, value: Double)] = [:]
        for hit in hits { similarity[hit.ref] = (hit, 1 - hit.score) }
        let scanned = best.items.map { (ref: ChunkRef(seq: $0.seq), score: Double($0.score)) }
        let locations = try library.locations(of: scanned.map(\.ref))
        for item in scanned {
            guard let (bookID, index) = locations[item.ref] else { continue }
            if item.score > similarity[item.ref]?.value ?? -Double.infinity {
                similarity[item.ref] = (ChunkHit(ref: item.ref, bookID: bookID, index: index, score: 0), item.score)
            }
        }
        let ranked = similarity.values.sorted { a, b in
            if a.value != b.value { return a.value > b.value }
            return a.hit.bookID != b.hit.bookID ? a.hit.bookID < b.hit.bookID : a.hit.index < b.hit.index
        }
        return ranked.prefix(depth).map { var hit = $0.hit; hit.score = 1 - $0.value; return hit }
    }

    /// The query's vector and the `k` chunks in `scope` nearest it (score: cosine
    /// distance); nil when there is no vector to search with (see queryVector).
    func vectorSearch(_ text: String, k: Int, scope: SearchScope?, required: Bool) throws -> (hits: [ChunkHit], vector: [Float])? {
        guard let vector = try queryVector(text, required: required) else { return nil }
        // The exact scan's int8 codes shared over the cores lent now (CIBVec's parallel.c).
        ibvec_set_parallel(ib_pool_run)
        ibvec_set_scan_threads(Int32(embeddingThreads.threads))
        return (try library.nearestChunks(to: vector, k: k, in: scope), vector)
    }
}

extension SearchEngine {
    /// The best cosine of a chunk's window codes (int8, `query.count` wide each)
    /// to the query; nil when the codes are not whole windows. `scores` is scratch.
    static func bestWindow(_ codes: UnsafeRawBufferPointer, query q: UnsafeBufferPointer<Float>, scores: inout [Float]) -> Float? {
        let dim = q.count
        guard dim > 0, codes.count >= dim, codes.count % dim == 0, let base = codes.baseAddress else { return nil }
        let count = codes.count / dim
        if scores.count < count { scores = [Float](repeating: 0, count: count) }
        return scores.withUnsafeMutableBufferPointer { out -> Float in
            ib_int8_cosines(base.assumingMemoryBound(to: Int8.self), Int32(count), Int32(dim), q.baseAddress!, out.baseAddress!)
            return out[0..<count].max() ?? -1
        }
    }
}

/// The `capacity` highest scores offered, as a min-heap (the lowest kept score on
/// top), so a scan of many chunks keeps only what can still make the list.
struct TopScores {
    let capacity: Int
    private(set) var items: [(seq: Int, score: Float)] = []
    init(capacity: Int) { self.capacity = capacity; items.reserveCapacity(capacity) }

    mutating func offer(_ seq: Int, _ score: Float) {
        if items.count < capacity {
            items.append((seq, score))
            var i = items.count - 1
            while i > 0 {
                let parent = (i - 1) / 2
                if Self.less(items[i], items[parent]) { items.swapAt(i, parent); i = parent } else { break }
            }
        } else if let lowest = items.first, Self.less(lowest, (seq, score)) {
            items[0] = (seq, score)
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var smallest = i
                if l < items.count && Self.less(items[l], items[smallest]) { smallest = l }
                if r < items.count && Self.less(items[r], items[smallest]) { smallest = r }
                if smallest == i { break }
                items.swapAt(i, smallest); i = smallest
            }
        }
    }

    /// Lower score first; on equal scores the later seq counts as lower (earlier chunks win ties).
    private static func less(_ a: (seq: Int, score: Float), _ b: (seq: Int, score: Float)) -> Bool {
        a.score != b.score ? a.score < b.score : a.seq > b.seq
    }
}

/// The vectors of the last few query texts an engine embedded. An engine that
/// lives long (ib-mcp's, ib-ask's) is often asked the same words again: in
/// another mode, with another k or scope, or as a follow-up; the encoder is
/// deterministic, so the vector it gave is the vector it would give, and a
/// repeat skips the model (~10 ms of CPU a query). The engine's encoder never
/// changes once loaded, so the text alone is the key.
struct QueryVectorMemo {
    static let capacity = 64
    private var vectors: [String: [Float]] = [:]
    private var order: [String] = []

    func vector(_ text: String) -> [Float]? { vectors[text] }
    var isEmpty: Bool { vectors.isEmpty }

    /// Keeps `vector` for `text`, forgetting the oldest text once `capacity` are kept.
    mutating func remember(_ text: String, _ vector: [Float]) {
        guard vectors[text] == nil else { return }
        vectors[text] = vector
        order.append(text)
        if order.count > Self.capacity { vectors[order.removeFirst()] = nil }
    }
}
