// The BERT encoder forward pass, top to bottom.
//
// A batch is a list of token sequences of different lengths, laid end to end
// ("ragged"): row t of every activation matrix is one token of one sequence.
// Every step except attention works per token, so no padding is ever computed;
// attention runs per sequence and per head over that sequence's own tokens,
// which is exactly what BERT's attention mask does for padded positions.
//
// The weights are pointers into the mapped safetensors file, used as stored:
// a Linear weight is [out, in] row-major, and ib_gemm computes x * W^T.
#if canImport(Glibc)
import Glibc
#endif
import CKernels
import IBCore

/// A Linear layer's weight and bias, or a LayerNorm's gain and shift: pointers into the mapped file.
struct Affine {
    let weight, bias: UnsafePointer<Float>
}

/// The weights of one encoder layer.
struct LayerWeights {
    let query, key, value, attentionOut, attentionNorm: Affine
    let intermediate, output, outputNorm: Affine
}

/// All weights, checked by name, dtype and shape against config.json.
struct BertWeights {
    let wordEmbeddings, positionEmbeddings, typeEmbeddings: UnsafePointer<Float>
    let embeddingNorm: Affine
    let layers: [LayerWeights]

    init(_ file: SafeTensors, _ c: BertConfig) throws(IBError) {
        // Checkpoints saved from BertForX carry a "bert." prefix.
        let prefix = file.tensors["bert.embeddings.word_embeddings.weight"] != nil ? "bert." : ""
        func t(_ name: String, _ shape: [Int]) throws(IBError) -> UnsafePointer<Float> {
            try file.float32(prefix + name, shape: shape)
        }
        let h = c.hiddenSize, i = c.intermediateSize
        wordEmbeddings = try t("embeddings.word_embeddings.weight", [c.vocabSize, h])
        positionEmbeddings = try t("embeddings.position_embeddings.weight", [c.maxPositions, h])
        typeEmbeddings = try t("embeddings.token_type_embeddings.weight", [c.typeVocabSize, h])
        /// NAME.weight of `shape` and NAME.bias of its first dimension.
        func affine(_ name: String, _ shape: [Int]) throws(IBError) -> Affine {
            Affine(weight: try t(name + ".weight", shape), bias: try t(name + ".bias", [shape[0]]))
        }
        embeddingNorm = try affine("embeddings.LayerNorm", [h])
        var layers: [LayerWeights] = []
        for l in 0..<c.layers {
            let p = "encoder.layer.\(l)."
            layers.append(LayerWeights(
                query: try affine(p + "attention.self.query", [h, h]),
                key: try affine(p + "attention.self.key", [h, h]),
                value: try affine(p + "attention.self.value", [h, h]),
                attentionOut: try affine(p + "attention.output.dense", [h, h]),
                attentionNorm: try affine(p + "attention.output.LayerNorm", [h]),
                intermediate: try affine(p + "intermediate.dense", [i, h]),
                output: try affine(p + "output.dense", [h, i]),
                outputNorm: try affine(p + "output.LayerNorm", [h])))
        }
        self.layers = layers
        // Anything else in the file must be something BERT checkpoints are known to carry.
        let known = Set(["embeddings.position_ids"])
        for name in file.tensors.keys {
            let bare = name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : name
            if bare.hasPrefix("encoder.layer."), let n = Int(bare.dropFirst(14).prefix { $0 != "." }), n >= c.layers {
                throw IBError("\(file.path): tensor '\(name)' is beyond num_hidden_layers \(c.layers) in config.json")
            }
            if !(bare.hasPrefix("embeddings.") || bare.hasPrefix("encoder.") || bare.hasPrefix("pooler.")
                 || bare.hasPrefix("cls.") || known.contains(bare)) {
                throw IBError("\(file.path): unexpected tensor '\(name)'")
            }
        }
    }
}

/// Activations for one batch; each worker thread owns one and reuses it.
final class Workspace {
    private(set) var tokenCapacity = 0
    private(set) var sequenceCapacity = 0
    var x, q, k, v, context, ffn: UnsafeMutablePointer<Float>?
    var scores: UnsafeMutablePointer<Float>?
    var inverseSums: UnsafeMutablePointer<Float>?
    var ids: [Int32] = [], positions: [Int32] = []

    func reserve(tokens: Int, longest: Int, config c: BertConfig) {
        if tokens > tokenCapacity {
            for p in [x, q, k, v, context, ffn] { p?.deallocate() }
            let h = c.hiddenSize
            x = .allocate(capacity: tokens * h); q = .allocate(capacity: tokens * h)
            k = .allocate(capacity: tokens * h); v = .allocate(capacity: tokens * h)
            context = .allocate(capacity: tokens * h); ffn = .allocate(capacity: tokens * c.intermediateSize)
            tokenCapacity = tokens
        }
        if longest > sequenceCapacity {
            scores?.deallocate(); inverseSums?.deallocate()
            scores = .allocate(capacity: longest * longest)
            inverseSums = .allocate(capacity: longest)
            sequenceCapacity = longest
        }
    }

    deinit { for p in [x, q, k, v, context, ffn, scores, inverseSums] { p?.deallocate() } }
}

/// fp32 is exact to the reference; bf16 (opt-in) rounds the inputs of the
/// weight products to bfloat16 on CPUs with AVX-512 BF16, about 1.5x faster,
/// cosine to the fp32 vectors above 0.999; int8 (opt-in) runs the weight
/// products in int8 as Int8Plan says (Int8Weights.swift).
public enum Precision: String, Sendable, CaseIterable {
    case fp32, bf16, int8

    /// The --precision flag's value, else $IB_PRECISION, else fp32; a bad value is a usage error naming its source.
    public static func chosen(flag: String?) throws(IBError) -> Precision {
        let (text, source) = flag.map { ($0, "--precision") } ?? (Config.environment("IB_PRECISION"), "IB_PRECISION")
        guard let text else { return .fp32 }
        guard let precision = Precision(rawValue: text) else {
            throw IBError.usage("\(source) must be one of \(allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
        }
        return precision
    }
}

/// Every layer's weight matrices packed once for ib_gemm_packed: an encoder that
/// embeds query after query (a server's, ib-ask's) would otherwise have ib_gemm
/// re-pack all of them (~42 MB for MiniLM) on every call. The products are the
/// same, bit for bit. The matrices lie one after another in one region (layout),
/// packed here or mapped from the cache folder (PackedWeightsFile). Immutable once
/// made; the region is released with the last reference.
final class PackedWeights: @unchecked Sendable {
    struct Layer {
        let query, key, value, attentionOut, intermediate, output: UnsafePointer<Float>
    }
    let layers: [Layer]
    /// Every matrix, in layout's order.
    let region: UnsafeRawBufferPointer
    private let release: @Sendable (UnsafeRawBufferPointer) -> Void

    /// Byte offsets of each layer's query, key, value, attentionOut, intermediate and
    /// output matrices in the region, and its size: ib_gemm_packed_floats each, in
    /// this order, at multiples of 64 bytes (the kernels read packed panels aligned).
    static func layout(_ c: BertConfig) -> (offsets: [[Int]], bytes: Int) {
        let h = c.hiddenSize, i = c.intermediateSize
        var next = 0
        let offsets = (0..<c.layers).map { _ in
            [(h, h), (h, h), (h, h), (h, h), (i, h), (h, i)].map { (n, k) -> Int in
                defer { next += (ib_gemm_packed_floats(Int32(n), Int32(k)) * 4 + 63) / 64 * 64 }
                return next
            }
        }
        return (offsets, next)
    }

    /// Packs `w` into memory of its own.
    convenience init(_ w: BertWeights, _ c: BertConfig) {
        let (offsets, bytes) = Self.layout(c)
        // On a page, like a mapped copy's: the kernels want 64 bytes, and the region then
        // behaves as a mapped one would (madvise on it is not refused for its address).
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(64, bytes), alignment: 4096)
        let h = c.hiddenSize, i = c.intermediateSize
        for (l, weights) in w.layers.enumerated() {
            let matrices = [(weights.query.weight, h, h), (weights.key.weight, h, h), (weights.value.weight, h, h),
                            (weights.attentionOut.weight, h, h), (weights.intermediate.weight, i, h), (weights.output.weight, h, i)]
            for (m, (weight, n, k)) in matrices.enumerated() {
                ib_gemm_pack(Int32(n), Int32(k), weight, Int32(k), (raw + offsets[l][m]).assumingMemoryBound(to: Float.self))
            }
        }
        self.init(region: UnsafeRawBufferPointer(start: raw, count: bytes), c) { $0.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() } }
    }

    /// Matrices already packed in `region` (layout(c).bytes long, 64-byte aligned); `release` frees it.
    init(region: UnsafeRawBufferPointer, _ c: BertConfig, release: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.region = region
        self.release = release
        let base = region.baseAddress!
        layers = Self.layout(c).offsets.map { o in
            func at(_ m: Int) -> UnsafePointer<Float> { (base + o[m]).assumingMemoryBound(to: Float.self) }
            return Layer(query: at(0), key: at(1), value: at(2), attentionOut: at(3), intermediate: at(4), output: at(5))
        }
    }

    /// Clears the page-table entries of a region mapped from a file (MADV_DONTNEED;
    /// SentenceEncoder.releaseMappedPages). Only for a file-backed region: an
    /// anonymous one would read back as zeros.
    func releasePages() {
        _ = madvise(UnsafeMutableRawPointer(mutating: region.baseAddress!), region.count, MADV_DONTNEED)
    }

    deinit { release(region) }
}

struct BertEncoder {
    let config: BertConfig
    let weights: BertWeights
    var precision: Precision = .fp32
    /// The weights packed (SentenceEncoder.packWeights); nil: ib_gemm packs them per call.
    var packed: PackedWeights? = nil
    /// The int8 linears, used when precision is .int8.
    var int8: Int8Weights? = nil

    /// Threads each product is split over (Parallel, CKernels' pool), read at every
    /// product: a search's one short question is a few tens of rows, one core's
    /// work for milliseconds, while a batch of chunks already keeps every core
    /// busy. 1: none.
    var productThreads = ThreadShare(1)
    /// Rows a part takes at least.
    static let rowsPerPart = 8

    /// x[M, K] W^T + b into out: in int8 when layer `l`'s `slot` has an int8 matrix, else
    /// through `packedWeight` when there is one, else ib_gemm. `flags` says GELU or
    /// accumulate; the precision flags are added here. Split over productThreads
    /// (each output is the same either way): by outputs when the weights are
    /// packed fp32, else by rows.
    private func linear(_ l: Int, _ slot: LinearSlot, _ M: Int32, _ N: Int32, _ K: Int32, _ x: UnsafePointer<Float>,
                        _ lda: Int32, _ a: Affine, _ packedWeight: UnsafePointer<Float>?,
                        _ out: UnsafeMutablePointer<Float>, _ ldc: Int32, _ flags: Int32) {
        let threads = productThreads.threads
        if threads > 1, precision == .fp32, let packedWeight, M >= 4 {
            // A few rows' product is bound by reading the weights: each thread takes
            // a share of the outputs, and reads only its share of the packed weights.
            Parallel.ranges(threads, threads: threads) { parts in
                for part in parts {
                    ib_gemm_packed_part(M, N, K, x, lda, a.weight, packedWeight, K, a.bias, out, ldc, flags, Int32(part), Int32(threads))
                }
            }
        } else if threads > 1 && Int(M) >= 2 * Self.rowsPerPart {
            Parallel.ranges(Int(M), minimumPerPart: Self.rowsPerPart, threads: threads) { rows in
                linearRows(l, slot, Int32(rows.count), N, K, x + rows.lowerBound * Int(lda), lda, a, packedWeight,
                           out + rows.lowerBound * Int(ldc), ldc, flags)
            }
        } else {
            linearRows(l, slot, M, N, K, x, lda, a, packedWeight, out, ldc, flags)
        }
    }

    /// linear's rows on the calling thread.
    private func linearRows(_ l: Int, _ slot: LinearSlot, _ M: Int32, _ N: Int32, _ K: Int32, _ x: UnsafePointer<Float>,
                            _ lda: Int32, _ a: Affine, _ packedWeight: UnsafePointer<Float>?,
                            _ out: UnsafeMutablePointer<Float>, _ ldc: Int32, _ flags: Int32) {
        var flags = flags
        switch precision {
        case .fp32: break
        case .bf16: flags |= Int32(IB_GEMM_BF16)
        case .int8:
            if let int8, let matrix = int8.pairMatrix(l, slot) {
                matrix.multiply(rows: Int(M), x, lda: Int(lda), bias: a.bias, out, ldc: Int(ldc), flags: flags)
                return
            }
            if let int8, let matrix = int8.matrix(l, slot) {
                let limits = int8.limits(slot)
                matrix.multiply(rows: Int(M), x, lda: Int(lda), bias: a.bias, out, ldc: Int(ldc), flags: flags | int8.flags(slot),
                                outliers: (a.weight, limits.rows, limits.values))
                return
            }
            if let int8, int8.multiplyKept(l, slot, M, N, K, x, lda, a.bias, out, ldc, flags) { return }
        }
        if let packedWeight {
            ib_gemm_packed(M, N, K, x, lda, a.weight, packedWeight, K, a.bias, out, ldc, flags)
        } else {
            ib_gemm(M, N, K, x, lda, a.weight, K, a.bias, out, ldc, flags)
        }
    }

    /// Runs the encoder over `sequences` (token ids with [CLS] and [SEP], each no
    /// longer than max_position_embeddings) and writes one pooled vector per
    /// sequence to `out` (sequences.count x hidden). `tokenStates`, when given, sees
    /// each sequence's final hidden states (index in `sequences`, length x hidden) before pooling.
    func forward(_ sequences: [[Int32]], pooling: Pooling, normalize: Bool,
                 workspace ws: Workspace, out: UnsafeMutablePointer<Float>,
                 tokenStates: ((Int, UnsafePointer<Float>, Int) -> Void)? = nil) {
        let c = config, w = weights
        let h = Int32(c.hiddenSize), inter = Int32(c.intermediateSize)
        let headSize = Int32(c.headSize)
        let lengths = sequences.map(\.count)
        let tokens = lengths.reduce(0, +)
        ws.reserve(tokens: tokens, longest: lengths.max() ?? 0, config: c)
        let x = ws.x!, q = ws.q!, k = ws.k!, v = ws.v!, context = ws.context!, ffn = ws.ffn!
        let scores = ws.scores, inverseSums = ws.inverseSums
        let T = Int32(tokens)

        // 1. Embeddings: word + token type (all 0) + position, then LayerNorm.
        ws.ids.removeAll(keepingCapacity: true); ws.positions.removeAll(keepingCapacity: true)
        for s in sequences {
            ws.ids.append(contentsOf: s)
            ws.positions.append(contentsOf: (0..<Int32(s.count)))
        }
        ib_embed_tokens(ws.ids, ws.positions, T, h, w.wordEmbeddings, w.positionEmbeddings, w.typeEmbeddings, x)
        ib_layernorm(x, T, h, h, w.embeddingNorm.weight, w.embeddingNorm.bias, c.layerNormEps)

        let scale = 1 / Float(headSize).squareRoot()
        for (l, layer) in w.layers.enumerated() {
            let p = packed?.layers[l]
            // 2. Self-attention: project to queries, keys and values ...
            linear(l, .query, T, h, h, x, h, layer.query, p?.query, q, h, 0)
            linear(l, .key, T, h, h, x, h, layer.key, p?.key, k, h, 0)
            linear(l, .value, T, h, h, x, h, layer.value, p?.value, v, h, 0)
            // ... then per sequence and head: softmax(q k^T / sqrt(d)) v, with the
            // softmax's division applied to the (narrower) product instead.
            var start = 0
            for length in lengths {
                let L = Int32(length)
                for head in 0..<Int(c.heads) {
                    let offset = start * Int(h) + head * Int(headSize)
                    ib_gemm(L, L, headSize, q + offset, h, k + offset, h, nil, scores, L, 0)
                    ib_softmax_rows(scores, L, L, L, scale, inverseSums)
                    ib_gemm(L, headSize, L, scores, L, v + offset, h, nil, context + offset, h, Int32(IB_GEMM_B_KN))
                    ib_scale_rows(context + offset, L, headSize, h, inverseSums)
                }
                start += length
            }
            // 3. Output projection, residual, LayerNorm: x = LN(x + context Wo^T + bo).
            linear(l, .attentionOut, T, h, h, context, h, layer.attentionOut, p?.attentionOut, x, h, Int32(IB_GEMM_ACCUMULATE))
            ib_layernorm(x, T, h, h, layer.attentionNorm.weight, layer.attentionNorm.bias, c.layerNormEps)
            // 4. Feed-forward: x = LN(x + GELU(x Wi^T + bi) Wo^T + bo).
            linear(l, .intermediate, T, inter, h, x, h, layer.intermediate, p?.intermediate, ffn, inter, Int32(IB_GEMM_GELU))
            linear(l, .output, T, h, inter, ffn, inter, layer.output, p?.output, x, h, Int32(IB_GEMM_ACCUMULATE))
            ib_layernorm(x, T, h, h, layer.outputNorm.weight, layer.outputNorm.bias, c.layerNormEps)
        }

        // 5. Pooling over each sequence's tokens (all of them are real tokens), then L2 normalisation.
        var start = 0
        for (i, length) in lengths.enumerated() {
            tokenStates?(i, x + start * Int(h), length)
            let rows = pooling == .cls ? 1 : Int32(length)
            ib_mean_pool(x + start * Int(h), rows, h, h, normalize ? 1 : 0, out + i * Int(h))
            start += length
        }
    }
}
