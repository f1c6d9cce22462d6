// SentenceEncoder: a sentence-transformers BERT model folder, loaded natively.
//
//     let model = try SentenceEncoder(directory: Config.modelDirectory())
//     let vectors = model.embed(["a query", "a passage"])   // [[Float]], unit length
//
// Loading maps model.safetensors and checks it (size, header, every tensor's
// name, dtype and shape against config.json, vocab.txt against vocab_size);
// no weight is copied, so loading costs a few milliseconds. The full sha256
// of the weights is checked once per file (see ModelVerification.swift).
//
// embed() sorts texts by token count and cuts them into batches; batches run
// on `threads` worker threads, each with its own activations. Results come
// back in input order, and a text's vector does not depend on its batch.
#if canImport(Glibc)
import Glibc
#endif
import CIBSimd
import Dispatch
import CKernels
import IBCore
import IBTokenizer

public final class SentenceEncoder: @unchecked Sendable {
    public let directory: String
    /// "all-MiniLM-L6-v2" for the default model: the folder's name.
    public let modelID: String
    public let dimension: Int
    /// Tokens per text, [CLS] and [SEP] included; longer texts are truncated.
    public let maxSequenceLength: Int
    public let config: BertConfig
    public let sentenceConfig: SentenceConfig
    public let tokenizer: WordPieceTokenizer
    /// Texts per forward pass.
    public var batchSize: Int
    /// Worker threads for embed().
    public var threads: Int
    /// Threads each product is split over inside one forward pass
    /// (BertEncoder.productThreads), read at every product: for a search's one
    /// question, which a batch's threads cannot share out. A share of 1 (the default): none.
    public var productThreads: ThreadShare {
        get { encoder.productThreads }
        set { encoder.productThreads = newValue }
    }
    /// fp32 (default, parity with sentence-transformers), bf16 (opt-in; fp32 where the CPU
    /// lacks AVX-512 BF16) or int8 (opt-in; quantises the weights on first use, as int8Plan says).
    /// Not while another thread is embedding with this encoder.
    public var precision: Precision {
        get { encoder.precision }
        set {
            if newValue == .int8 && encoder.int8 == nil { encoder.int8 = Int8Weights(encoder.weights, config, plan: .forThisCPU) }
            encoder.precision = newValue
        }
    }
    /// Which linears int8 runs in int8 and how (Int8Plan.forThisCPU unless changed; for measurements).
    /// Setting it re-quantises. Not while another thread is embedding with this encoder.
    public var int8Plan: Int8Plan {
        get { encoder.int8?.plan ?? .forThisCPU }
        set { encoder.int8 = Int8Weights(encoder.weights, config, plan: newValue) }
    }
    /// Whether bf16 runs as bf16 here (AVX-512 BF16).
    public static var bf16Available: Bool { ib_kernels_have_bf16() != 0 }

    private let file: SafeTensors
    private var encoder: BertEncoder
    private let lock = Mutex()
    private var _truncated = 0
    private var idleWorkspaces: [Workspace] = []
    /// encoder.packed is mapped from the cache folder's copy.
    private var packedFromFile = false
    /// packWeights' copy for the cache folder, while it is written.
    private let packedWrite = DispatchGroup()

    public static let defaultBatchSize = 8

    /// How many texts were longer than maxSequenceLength and truncated, since loading.
    public var truncatedCount: Int { lock.withLock { _truncated } }

    /// Loads the model folder. `verify` decides when the full sha256 is computed.
    public init(directory: String, verify: ModelVerification.Mode = .onFirstUse,
                batchSize: Int = SentenceEncoder.defaultBatchSize, threads: Int? = nil,
                precision: Precision = .fp32) throws(IBError) {
        var dir = directory
        while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
        guard FileSystem.isDirectory(dir) else {
            throw IBError("model folder \(dir) not found: run \(Installation.fetchModelCommand) (or set IB_MODEL_DIR / --model-dir; \(Installation.buildThesaurusCommand) adds ib-search's synonyms)")
        }
        for required in ["config.json", "model.safetensors", "vocab.txt"] where !FileSystem.exists(dir + "/" + required) {
            throw IBError("model folder \(dir) has no \(required): run \(Installation.fetchModelCommand) to download the model again")
        }
        self.directory = dir
        modelID = String(dir.split(separator: "/").last ?? "model")
        config = try BertConfig(path: dir + "/config.json")
        sentenceConfig = try SentenceConfig(directory: dir, config: config)
        maxSequenceLength = sentenceConfig.maxSequenceLength
        dimension = config.hiddenSize
        tokenizer = try WordPieceTokenizer(vocabPath: dir + "/vocab.txt")
        guard tokenizer.vocabulary.count == config.vocabSize else {
            throw IBError("\(dir)/vocab.txt has \(tokenizer.vocabulary.count) tokens but config.json says vocab_size \(config.vocabSize)")
        }
        file = try SafeTensors(path: dir + "/model.safetensors")
        encoder = BertEncoder(config: config, weights: try BertWeights(file, config))
        try ModelVerification.check(file, mode: verify)
        self.batchSize = max(1, batchSize)
        self.threads = max(1, threads ?? Cores.available)
        self.precision = precision
    }

    /// Packs the weight matrices once (~42 MB more memory for MiniLM), so that
    /// every later embedding skips ib_gemm's per-call packing: for an encoder
    /// that embeds many short texts one call at a time (a server's queries).
    /// Vectors are unchanged, bit for bit. Idempotent; fp32 only (bf16 packs
    /// its own way). Not while another thread is embedding with this encoder.
    /// The packing is taken from the cache folder when it is there (mapPackedWeights),
    /// else made here and kept there for later processes (keepPackedWeights).
    public func packWeights() {
        guard encoder.packed == nil, encoder.precision == .fp32 else { return }
        if mapPackedWeights() { return }
        let packed = PackedWeights(encoder.weights, config)
        encoder.packed = packed
        // Written on another thread: a server's request does not wait for the disk.
        guard let (key, path) = PackedWeightsFile.location(modelPath: file.path, modelID: modelID, config: config) else { return }
        let (id, config) = (modelID, config)
        packedWrite.enter()
        DispatchQueue.global(qos: .utility).async { [packedWrite] in
            PackedWeightsFile.write(packed, to: path, key: key, modelID: id, config: config)
            packedWrite.leave()
        }
    }

    /// Clears the page-table entries of the model's file maps (the weights file, and
    /// the packed copy when mapped from the cache folder) on another thread, for a
    /// process that has embedded all it will (ib-search after its one query): the
    /// kernel would otherwise clear them when the maps are unmapped, after the
    /// results. The maps are kept (the closure holds them) until it is done; a
    /// later embed still works, faulting the pages back from the page cache.
    /// Returns a group left when it is done.
    @discardableResult
    public func releaseMappedPages() -> DispatchGroup {
        let file = self.file, packed = packedFromFile ? encoder.packed : nil
        let done = DispatchGroup()
        done.enter()
        DispatchQueue.global().async {
            file.releasePages()
            packed?.releasePages()
            done.leave()
        }
        return done
    }

    /// An address inside each file map releaseMappedPages clears: the weights file's,
    /// then the packed copy's when mapped from the cache folder (for tests).
    var mappedAddresses: [Int] {
        let packed = packedFromFile ? encoder.packed.map { Int(bitPattern: $0.region.baseAddress) } : nil
        return [file.mappedAddress] + (packed.map { [$0] } ?? [])
    }

    /// Whether the weights are packed (packWeights, mapPackedWeights).
    public var weightsPacked: Bool { encoder.packed != nil }

    /// Takes the packed weights from the cache folder (PackedWeightsFile) when a copy
    /// for this model file and this CPU's kernels is there: a process that embeds one
    /// question (ib-search) then skips ib_gemm's per-call packing, a third of its
    /// embedding, for the cost of a map and a header check. Vectors are unchanged,
    /// bit for bit. false: no usable copy; nothing changes. fp32 only, as packWeights.
    @discardableResult
    public func mapPackedWeights() -> Bool {
        guard encoder.precision == .fp32 else { return false }
        if encoder.packed != nil { return packedFromFile }
        guard let (key, path) = PackedWeightsFile.location(modelPath: file.path, modelID: modelID, config: config),
              let mapped = PackedWeightsFile.map(path: path, key: key, config: config) else { return false }
        encoder.packed = mapped
        packedFromFile = true
        return true
    }

    /// Leaves a packed copy of the weights in the cache folder for later processes,
    /// when none usable is there: packs them unless this encoder has (~45 ms for
    /// MiniLM) and writes ~42 MB, once per model file and kernel layout. For a
    /// process whose work is done (ib-search after its results). Nothing is packed
    /// where the folder cannot be written. false: no copy there. fp32 only.
    @discardableResult
    public func keepPackedWeights() -> Bool {
        guard encoder.precision == .fp32 else { return false }
        if packedFromFile { return true }
        packedWrite.wait()   // packWeights' own copy, being written: done, then found below
        guard let (key, path) = PackedWeightsFile.location(modelPath: file.path, modelID: modelID, config: config) else { return false }
        if PackedWeightsFile.map(path: path, key: key, config: config) != nil { return true }   // another process's
        do throws(IBError) { try FileSystem.createDirectories(PackedWeightsFile.folder) } catch { return false }
        guard access(PackedWeightsFile.folder, W_OK) == 0 else { return false }
        let packed = encoder.packed ?? PackedWeights(encoder.weights, config)
        return PackedWeightsFile.write(packed, to: path, key: key, modelID: modelID, config: config)
    }

    // MARK: - Tokens

    /// Token ids for `text` with [CLS] and [SEP], truncated to maxSequenceLength
    /// as sentence-transformers does (first max-2 pieces, then [SEP]).
    public func tokenize(_ text: String) -> (ids: [Int32], truncated: Bool) {
        var ids = tokenizer.encode(text)
        guard ids.count > maxSequenceLength else { return (ids, false) }
        ids.removeSubrange((maxSequenceLength - 1)..<ids.count)
        ids.append(tokenizer.sepID)
        return (ids, true)
    }

    // MARK: - Embedding

    /// One unit-length vector per text, in order.
    public func embed(_ texts: [String]) -> [[Float]] {
        embed(tokenIDs: tokenizeAll(texts))
    }

    /// One unit-length vector per text, plus its window vectors (see windowCodes),
    /// from the same forward pass: the vectors are the ones embed() returns.
    public func embedWithWindows(_ texts: [String], windowTokens: Int = SentenceEncoder.windowTokens) -> [(vector: [Float], windows: [Int8])] {
        let sequences = tokenizeAll(texts)
        // One slot per text, each written by the one worker that embeds it.
        let slots = UnsafeMutablePointer<[Int8]>.allocate(capacity: sequences.count)
        slots.initialize(repeating: [], count: sequences.count)
        defer { slots.deinitialize(count: sequences.count); slots.deallocate() }
        let dim = dimension
        let tokenizer = tokenizer
        let vectors = run(sequences) { index, states, length in
            let paragraphs = PassageSpans.spans(texts[index], tokenizer: tokenizer,
                                                maxTokens: Self.paragraphTokens, limit: length - 1)
            let spans = Self.fixedSpans(length: length, windowTokens: windowTokens) + paragraphs
            slots[index] = Self.windowCodes(states: states, dim: dim, spans: spans)
        }
        return vectors.enumerated().map { ($1, slots[$0]) }
    }

    /// One vector per token sequence (ids with [CLS] and [SEP]), in order.
    /// Sequences longer than maxSequenceLength are truncated.
    public func embed(tokenIDs input: [[Int32]]) -> [[Float]] {
        run(input, tokenStates: nil)
    }

    /// Tokens per fixed window: short enough that one sentence or dictionary entry
    /// dominates its window (on the search evaluation, 32 beat 16, 24 and 48).
    public static let windowTokens = 32
    /// The longest paragraph window; longer paragraphs are cut after sentence ends
    /// (on the search evaluation, 64 tied 48 and beat 96, 128 and whole paragraphs).
    public static let paragraphTokens = 64
    /// Names the kinds of windows, for caches: windows made another way must not be reused.
    public static let windowScheme = "windows\(windowTokens)p\(paragraphTokens)"

    /// The fixed windows of a sequence of `length` tokens ([CLS] first, [SEP] last):
    /// the tokens between them cut into ceil(n / windowTokens) runs of nearly equal
    /// length. None when there are no more than windowTokens: the chunk's vector covers them.
    static func fixedSpans(length: Int, windowTokens: Int) -> [(start: Int, end: Int)] {
        let n = length - 2
        guard n > windowTokens, windowTokens > 0 else { return [] }
        let count = (n + windowTokens - 1) / windowTokens
        return (0..<count).map { w in (1 + w * n / count, 1 + (w + 1) * n / count) }
    }

    /// Window vectors from a chunk's final hidden states (length x dim): each span
    /// mean-pooled and scaled to unit length, then quantised to int8 by its largest
    /// component with ib_quantize_i8 (CIBSimd: codes = round-half-even(v / max|v| * 127),
    /// the one rule ibvec's vectors_i8 use too), `dim` codes per window, in span order.
    static func windowCodes(states: UnsafePointer<Float>, dim: Int, spans: [(start: Int, end: Int)]) -> [Int8] {
        var codes = [Int8](repeating: 0, count: spans.count * dim)
        var pooled = [Float](repeating: 0, count: dim)
        for (w, span) in spans.enumerated() {
            pooled.withUnsafeMutableBufferPointer { p in
                ib_mean_pool(states + span.start * dim, Int32(span.end - span.start), Int32(dim), Int32(dim), 1, p.baseAddress!)
            }
            pooled.withUnsafeBufferPointer { p in
                codes.withUnsafeMutableBufferPointer { c in
                    ib_quantize_i8(p.baseAddress!, Int32(dim), c.baseAddress! + w * dim, nil)
                }
            }
        }
        return codes
    }

    private func tokenizeAll(_ texts: [String]) -> [[Int32]] {
        var sequences: [[Int32]] = []
        sequences.reserveCapacity(texts.count)
        var truncated = 0
        for text in texts {
            let (ids, cut) = tokenize(text)
            sequences.append(ids)
            if cut { truncated += 1 }
        }
        if truncated > 0 { lock.withLock { _truncated += truncated } }
        return sequences
    }

    /// The batched, threaded forward pass behind embed() and embedWithWindows().
    private func run(_ input: [[Int32]], tokenStates: ((Int, UnsafePointer<Float>, Int) -> Void)?) -> [[Float]] {
        let n = input.count
        guard n > 0 else { return [] }
        let sequences = input.map { ids -> [Int32] in
            guard ids.count > maxSequenceLength else { return ids }
            return Array(ids.prefix(maxSequenceLength - 1)) + [ids.last ?? tokenizer.sepID]
        }
        // Longest first, so that the slowest batches start first and the last ones are short.
        let lengths = sequences.map(\.count)
        let order = (0..<n).sorted { (a: Int, b: Int) -> Bool in
            lengths[a] != lengths[b] ? lengths[a] > lengths[b] : a < b
        }
        var batches: [[Int]] = []
        var i = 0
        while i < n {
            batches.append(Array(order[i..<min(n, i + batchSize)]))
            i += batchSize
        }
        let dim = dimension
        let output = UnsafeMutablePointer<Float>.allocate(capacity: n * dim)
        defer { output.deallocate() }
        let sorted = UnsafeMutablePointer<Float>.allocate(capacity: batchSize * dim * batches.count)
        defer { sorted.deallocate() }
        let next = Counter()
        let workers = min(threads, batches.count)
        let body = { [self] in
            let workspace = self.takeWorkspace()
            while true {
                let b = next.next()
                if b >= batches.count { break }
                let members = batches[b]
                let batch = members.map { sequences[$0] }
                self.encoder.forward(batch, pooling: self.sentenceConfig.pooling,
                                     normalize: self.sentenceConfig.normalize,
                                     workspace: workspace, out: sorted + b * self.batchSize * dim,
                                     tokenStates: tokenStates.map { see in { j, states, length in see(members[j], states, length) } })
            }
            self.returnWorkspace(workspace)
        }
        runParallel(workers, body)
        for (b, batch) in batches.enumerated() {
            for (j, index) in batch.enumerated() {
                (output + index * dim).update(from: sorted + (b * batchSize + j) * dim, count: dim)
            }
        }
        return (0..<n).map { Array(UnsafeBufferPointer(start: output + $0 * dim, count: dim)) }
    }

    /// Which instruction set the kernels use ("avx512" or "avx2").
    public static var kernelISA: String { String(cString: ib_kernels_isa()) }

    /// Uses the AVX-512 kernels when `avx512` and the CPU has them, else AVX2
    /// (also set by IB_KERNELS=avx2). Returns the ISA now in use. For tests and benchmarks.
    @discardableResult
    public static func selectKernels(avx512: Bool) -> String {
        ib_kernels_select(avx512 ? 1 : 0)
        return kernelISA
    }

    // Activations are kept between calls (one set per worker) so repeated calls do not reallocate.
    private func takeWorkspace() -> Workspace {
        lock.withLock { idleWorkspaces.popLast() } ?? Workspace()
    }

    private func returnWorkspace(_ workspace: Workspace) {
        lock.withLock { idleWorkspaces.append(workspace) }
    }
}

// MARK: - Threads

/// A pthread mutex.
final class Mutex: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}

/// Hands out 0, 1, 2, ... to worker threads.
final class Counter: @unchecked Sendable {
    private let lock = Mutex()
    private var value = 0
    func next() -> Int { lock.withLock { defer { value += 1 }; return value } }
}

private final class ThreadBody {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// Runs `body` on `count` threads (the calling thread is one of them) and waits for all.
func runParallel(_ count: Int, _ body: @escaping () -> Void) {
    guard count > 1 else { body(); return }
    var threads: [pthread_t] = []
    for _ in 1..<count {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        let started = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        if started == 0 {
            threads.append(thread)
        } else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
        }
    }
    body()
    for thread in threads { pthread_join(thread, nil) }
}
