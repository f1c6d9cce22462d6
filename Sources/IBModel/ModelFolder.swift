// What a sentence-transformers folder says about its model: the BERT shape
// (config.json), the sequence length (sentence_bert_config.json), the pooling
// (1_Pooling/config.json) and whether the vectors are normalised (modules.json).
import IBCore
import IBTokenizer

public struct BertConfig: Sendable, Equatable {
    public var hiddenSize: Int
    public var layers: Int
    public var heads: Int
    public var intermediateSize: Int
    public var vocabSize: Int
    public var maxPositions: Int
    public var typeVocabSize: Int
    public var layerNormEps: Float

    public var headSize: Int { hiddenSize / heads }

    public init(path: String) throws(IBError) {
        let json = try JSON.read(file: path, limit: 16 << 20)
        func int(_ key: String) throws(IBError) -> Int {
            guard let n = json[key]?.intValue, n > 0 else { throw IBError("\(path): '\(key)' is missing or not a positive integer") }
            return n
        }
        hiddenSize = try int("hidden_size")
        layers = try int("num_hidden_layers")
        heads = try int("num_attention_heads")
        intermediateSize = try int("intermediate_size")
        vocabSize = try int("vocab_size")
        maxPositions = try int("max_position_embeddings")
        typeVocabSize = json["type_vocab_size"]?.intValue ?? 2
        layerNormEps = Float(json["layer_norm_eps"]?.doubleValue ?? 1e-12)
        guard hiddenSize % heads == 0 else { throw IBError("\(path): hidden_size \(hiddenSize) is not a multiple of num_attention_heads \(heads)") }
        guard typeVocabSize >= 1 else { throw IBError("\(path): type_vocab_size must be at least 1") }
        if let type = json["model_type"]?.stringValue, type != "bert" {
            throw IBError("\(path): model_type '\(type)' is not supported (only BERT encoders)")
        }
        if let act = json["hidden_act"]?.stringValue, act != "gelu" {
            throw IBError("\(path): hidden_act '\(act)' is not supported (only exact gelu)")
        }
        if let pos = json["position_embedding_type"]?.stringValue, pos != "absolute" {
            throw IBError("\(path): position_embedding_type '\(pos)' is not supported (only absolute)")
        }
    }
}

public enum Pooling: String, Sendable {
    case mean, cls
}

/// The sentence-transformers side of the folder.
public struct SentenceConfig: Sendable {
    public var maxSequenceLength: Int
    public var pooling: Pooling
    public var normalize: Bool

    public init(directory: String, config: BertConfig) throws(IBError) {
        // The same reading as ib-chunk's, so that chunks fit.
        maxSequenceLength = try ModelFolder.maxSequenceLength(directory: directory, maxPositions: config.maxPositions)
        let poolingPath = directory + "/1_Pooling/config.json"
        if FileSystem.exists(poolingPath) {
            let json = try JSON.read(file: poolingPath, limit: 16 << 20)
            if let dim = json["word_embedding_dimension"]?.intValue, dim != config.hiddenSize {
                throw IBError("\(poolingPath): word_embedding_dimension \(dim) does not match hidden_size \(config.hiddenSize)")
            }
            let mean = json["pooling_mode_mean_tokens"]?.boolValue ?? false
            let cls = json["pooling_mode_cls_token"]?.boolValue ?? false
            let others = ["pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
                          "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken"]
                .filter { json[$0]?.boolValue == true }
            guard others.isEmpty, mean != cls else {
                throw IBError("\(poolingPath): only one of mean or CLS pooling is supported")
            }
            pooling = mean ? .mean : .cls
        } else {
            pooling = .mean
        }
        let modulesPath = directory + "/modules.json"
        if FileSystem.exists(modulesPath) {
            let modules = try JSON.read(file: modulesPath, limit: 16 << 20).arrayValue ?? []
            normalize = modules.contains { $0["type"]?.stringValue?.hasSuffix("Normalize") == true }
        } else {
            normalize = true
        }
    }
}
