// An embedding provider turns texts into vectors. The native provider runs
// all-MiniLM-L6-v2 in-process (IBModel); HTTP providers live in Providers*.swift.
import IBCore
import IBModel

public protocol EmbeddingProvider: AnyObject {
    /// Written into each record's "model" field.
    var modelID: String { get }
    /// Length of every vector.
    var dimension: Int { get }
    /// One vector per text, in order. Errors are IBError (exit code 4 for provider failures).
    func embed(_ texts: [String]) throws -> [[Float]]
    /// Texts that were too long and truncated, since creation (for the one warning per run).
    var truncatedCount: Int { get }
    /// Longest text in tokens, when the provider has such a limit.
    var maxSequenceLength: Int? { get }
    /// Written into each chunk record's "precision" field: the precision the native
    /// model really ran in, when it is not fp32. nil for fp32 and for HTTP providers,
    /// whose vectors are the provider's own (a library reads both as fp32).
    var precision: String? { get }
}

extension EmbeddingProvider {
    public var truncatedCount: Int { 0 }
    public var maxSequenceLength: Int? { nil }
    public var precision: String? { nil }
}

/// A provider that can also give each text's window vectors (int8 codes, `dimension`
/// per window; see SentenceEncoder.windowCodes) from the same forward pass.
public protocol WindowEmbeddingProvider: EmbeddingProvider {
    /// False when this provider cannot make windows after all (a cache in front of an HTTP model).
    var supportsWindows: Bool { get }
    func embedWithWindows(_ texts: [String]) throws -> [(vector: [Float], windows: [Int8])]
}

/// all-MiniLM-L6-v2 (or any BERT sentence-transformers folder) run natively.
public final class NativeProvider: EmbeddingProvider {
    public let encoder: SentenceEncoder

    public init(encoder: SentenceEncoder) { self.encoder = encoder }

    public init(modelDirectory: String, batchSize: Int = SentenceEncoder.defaultBatchSize, threads: Int? = nil,
                verify: ModelVerification.Mode = .onFirstUse, precision: Precision = .fp32) throws(IBError) {
        encoder = try SentenceEncoder(directory: modelDirectory, verify: verify, batchSize: batchSize, threads: threads,
                                      precision: precision)
        // The weights' packed copy, when ib-search has left one in the cache folder.
        encoder.mapPackedWeights()
    }

    public var modelID: String { encoder.modelID }
    public var dimension: Int { encoder.dimension }
    public var truncatedCount: Int { encoder.truncatedCount }
    public var maxSequenceLength: Int? { encoder.maxSequenceLength }
    /// bf16 on a CPU without AVX-512 BF16 runs (and is recorded) as fp32.
    public var precision: String? {
        switch encoder.precision {
        case .fp32: nil
        case .bf16: SentenceEncoder.bf16Available ? "bf16" : nil
        case .int8: "int8"
        }
    }
    public func embed(_ texts: [String]) throws -> [[Float]] { encoder.embed(texts) }
}

extension NativeProvider: WindowEmbeddingProvider {
    public var supportsWindows: Bool { true }
    public func embedWithWindows(_ texts: [String]) throws -> [(vector: [Float], windows: [Int8])] {
        encoder.embedWithWindows(texts)
    }
}

/// bf16 and int8 vectors differ slightly from fp32 ones, so they are cached apart.
extension NativeProvider: EmbeddingCacheKeyed {
    public var cacheKey: String {
        switch encoder.precision {
        case .fp32: encoder.modelID
        case .bf16: SentenceEncoder.bf16Available ? encoder.modelID + "@bf16" : encoder.modelID
        case .int8: encoder.modelID + "@int8:" + encoder.int8Plan.description
        }
    }
}
