// Whisper's text decoder with its caches: the cross-attention keys and values
// of one 30 s window (computed once from the encoder output), and per
// hypothesis the self-attention keys and values of the tokens so far.
//
// A prompt (many tokens at once) runs through ib_gemm with fp32 weights; a
// decoding step (one token per hypothesis) runs through ib_gemv_f16, which
// reads the fp16 weights as stored: a step is bound by memory, not arithmetic.
import CKernels
import IBModel

/// The self-attention keys and values of one hypothesis: per layer [448, width] each.
final class SelfAttentionCache {
    var keys: [[Float]]
    var values: [[Float]]
    var length = 0

    init(layers: Int, capacity: Int, width: Int) {
        keys = Array(repeating: [Float](repeating: 0, count: capacity * width), count: layers)
        values = keys
    }

    /// This cache becomes a copy of `other` (its first `other.length` positions).
    func copy(from other: SelfAttentionCache, width: Int) {
        let used = other.length * width
        for l in 0..<keys.count {
            keys[l].withUnsafeMutableBufferPointer { dst in other.keys[l].withUnsafeBufferPointer { dst.baseAddress!.update(from: $0.baseAddress!, count: used) } }
            values[l].withUnsafeMutableBufferPointer { dst in other.values[l].withUnsafeBufferPointer { dst.baseAddress!.update(from: $0.baseAddress!, count: used) } }
        }
        length = other.length
    }
}

struct WhisperDecoder {
    let weights: WhisperWeights
    /// Set for --compute int8: the layers' matrices as int8 codes (steps and prompts alike).
    var int8: Int8Weights? = nil
    /// Per layer: the encoder output through the fused key/value projection, [1500, 2 * width]
    /// (fp32 under --compute int8 too: int8 there cost words on the test lines for 2% of the time).
    private(set) var crossKeyValues: [[Float]] = []
    /// Per layer: the keys of crossKeyValues transposed per head, [heads][headSize][1500], so that
    /// one query's scores are a weighted sum of rows (no horizontal sums).
    private var crossKeysByHead: [[Float]] = []
    /// With --compute int8, per layer: the same keys and values as int8 codes, one scale per head and position.
    private var crossKeys8: [QuantizedRows] = []
    private var crossValues8: [QuantizedRows] = []
    private var audioPositions = 0

    init(weights: WhisperWeights, int8: Int8Weights? = nil) { self.weights = weights; self.int8 = int8 }

    func makeCache() -> SelfAttentionCache {
        SelfAttentionCache(layers: weights.decoderLayers.count, capacity: weights.textPositions, width: weights.width)
    }

    /// Sets the window the decoder attends to (the encoder's output, [positions, width]).
    mutating func attend(to encoded: [Float]) {
        let d = weights.width
        audioPositions = encoded.count / d
        crossKeyValues = weights.decoderLayers.map { layer in
            var kv = [Float](repeating: 0, count: audioPositions * 2 * d)
            encoded.withUnsafeBufferPointer { a in
                kv.withUnsafeMutableBufferPointer { c in
                    gemmRows(audioPositions, 2 * d, d, a.baseAddress!, d, layer.crossKV.weight, layer.crossKV.bias, c.baseAddress!, 2 * d, 0)
                }
            }
            return kv
        }
        let heads = weights.decoderHeads, headSize = d / heads, n = audioPositions
        if int8 != nil {   // the layers' keys and values quantised side by side over the cores
            var keys = [QuantizedRows?](repeating: nil, count: crossKeyValues.count), values = keys
            keys.withUnsafeMutableBufferPointer { kb in
                values.withUnsafeMutableBufferPointer { vb in
                    let kp = kb.baseAddress!, vp = vb.baseAddress!, kv = crossKeyValues
                    Parallel.ranges(2 * kv.count) { jobs in
                        for job in jobs {
                            let l = job / 2
                            if job % 2 == 0 { kp[l] = QuantizedRows(keys: kv[l], heads: heads, headSize: headSize, positions: n) }
                            else { vp[l] = QuantizedRows(values: kv[l], heads: heads, headSize: headSize, positions: n) }
                        }
                    }
                }
            }
            crossKeys8 = keys.map { $0! }
            crossValues8 = values.map { $0! }
            return
        }
        crossKeysByHead = crossKeyValues.map { kv in
            var t = [Float](repeating: 0, count: d * n)
            for p in 0..<n {
                for c in 0..<d { t[c * n + p] = kv[p * 2 * d + c] }   // c = head * headSize + i
            }
            return t
        }
    }

    /// Runs `tokens` of one hypothesis at positions cache.length..., appending to its cache.
    /// Returns the final hidden states (after the last LayerNorm), [tokens.count, width].
    func forward(tokens: [Int], cache: SelfAttentionCache) -> [Float] {
        forward(rows: [tokens], caches: [cache])
    }

    /// One step for several hypotheses at once (one token each), or a prompt
    /// (rows.count == 1, many tokens). Returns the hidden states, row after row.
    func forward(rows: [[Int]], caches: [SelfAttentionCache]) -> [Float] {
        let w = weights, d = w.width
        let n = rows.reduce(0) { $0 + $1.count }
        let useGemv = n <= 8
        var x = [Float](repeating: 0, count: n * d)
        var row = 0
        for (h, tokens) in rows.enumerated() {
            for (i, token) in tokens.enumerated() {
                let position = caches[h].length + i
                w.tokenEmbedding16.withUnsafeBufferPointer { e in
                    x.withUnsafeMutableBufferPointer { ib_f16_to_f32(e.baseAddress! + token * d, $0.baseAddress! + row * d, d) }
                }
                for j in 0..<d { x[row * d + j] += w.textPositionTable[position * d + j] }
                row += 1
            }
        }
        var normed = [Float](repeating: 0, count: n * d)
        var qkv = [Float](repeating: 0, count: n * 3 * d)
        var context = [Float](repeating: 0, count: n * d)
        var query = [Float](repeating: 0, count: n * d)
        var ffn = [Float](repeating: 0, count: n * w.decoderLayers[0].ffnIn.outputs)
        for (l, layer) in w.decoderLayers.enumerated() {
            let packed = int8?.decoderLayers[l]
            layerNorm(x, into: &normed, rows: n, layer.selfNorm)
            apply(layer.selfQKV, packed?.selfQKV, normed, &qkv, rows: n, gemv: useGemv)
            selfAttention(qkv: qkv, rows: rows, caches: caches, layer: l, into: &context)
            apply(layer.selfOut, packed?.selfOut, context, &x, rows: n, gemv: useGemv, accumulate: true)
            layerNorm(x, into: &normed, rows: n, layer.crossNorm)
            apply(layer.crossQuery, packed?.crossQuery, normed, &query, rows: n, gemv: useGemv)
            crossAttention(query: query, rows: n, layer: l, into: &context)
            apply(layer.crossOut, packed?.crossOut, context, &x, rows: n, gemv: useGemv, accumulate: true)
            layerNorm(x, into: &normed, rows: n, layer.ffnNorm)
            apply(layer.ffnIn, packed?.ffnIn, normed, &ffn, rows: n, gemv: useGemv, gelu: true)
            apply(layer.ffnOut, packed?.ffnOut, ffn, &x, rows: n, gemv: useGemv, accumulate: true)
        }
        for (h, tokens) in rows.enumerated() { caches[h].length += tokens.count }
        ib_layernorm(&x, Int32(n), Int32(d), Int32(d), w.decoderNorm.gamma, w.decoderNorm.beta, 1e-5)
        return x
    }

    /// logits[rows, vocabulary] of a beam's hypotheses: with --compute int8 from the embedding's
    /// int8 codes (half the bytes of a step), else exact.
    func beamLogits(hidden: [Float], rows: Int) -> [Float] {
        guard let int8 else { return logits(hidden: hidden, rows: rows) }
        let d = weights.width, vocabulary = weights.vocabularySize
        var out = [Float](repeating: 0, count: rows * vocabulary)
        hidden.withUnsafeBufferPointer { x in
            out.withUnsafeMutableBufferPointer { o in
                int8.embedding.applyByColumns(rows: rows, x.baseAddress!, lda: d, o.baseAddress!, ldc: vocabulary)
            }
        }
        return out
    }

    /// logits[rows, vocabulary] of final hidden states: the embedding (fp16 as stored) as the output projection.
    func logits(hidden: [Float], rows: Int) -> [Float] {
        let w = weights, d = w.width, vocabulary = w.vocabularySize
        var out = [Float](repeating: 0, count: rows * vocabulary)
        hidden.withUnsafeBufferPointer { x in
            w.tokenEmbedding16.withUnsafeBufferPointer { e in
                out.withUnsafeMutableBufferPointer { o in
                    let xs = x.baseAddress!, es = e.baseAddress!, os = o.baseAddress!
                    Parallel.ranges(vocabulary, minimumPerPart: 4096) { columns in
                        ib_gemv_f16(Int32(rows), Int32(columns.count), Int32(d), xs, Int32(d), es + columns.lowerBound * d, Int32(d),
                                    nil, os + columns.lowerBound, Int32(vocabulary), 0)
                    }
                }
            }
        }
        return out
    }

    /// fp16 weights as fp32 (exact), for a prompt's GEMM.
    static func widen(_ halves: [UInt16]) -> [Float] {
        [Float](unsafeUninitializedCapacity: halves.count) { out, initialized in
            ib_f16_to_f32(halves, out.baseAddress!, halves.count)
            initialized = halves.count
        }
    }

    private func layerNorm(_ x: [Float], into out: inout [Float], rows: Int, _ norm: LayerNormWeights) {
        out = x
        ib_layernorm(&out, Int32(rows), Int32(weights.width), Int32(weights.width), norm.gamma, norm.beta, 1e-5)
    }

    private func apply(_ layer: Linear, _ packed: PackedLinear?, _ input: [Float], _ output: inout [Float], rows: Int, gemv: Bool,
                       accumulate: Bool = false, gelu: Bool = false) {
        let flags = Int32((accumulate ? IB_GEMM_ACCUMULATE : 0) | (gelu ? IB_GEMM_GELU : 0))
        if let packed {
            input.withUnsafeBufferPointer { a in
                output.withUnsafeMutableBufferPointer { c in
                    if gemv {   // a step: the outputs split over the cores (a prompt splits its rows)
                        packed.applyByColumns(rows: rows, a.baseAddress!, lda: layer.inputs, c.baseAddress!, ldc: layer.outputs,
                                              flags: flags, blocksPerPart: 8)
                    } else {
                        packed.apply(rows: rows, a.baseAddress!, lda: layer.inputs, c.baseAddress!, ldc: layer.outputs, flags: flags)
                    }
                }
            }
        } else if gemv {
            // A step reads each weight once: the matrix is split by outputs over the cores, whose
            // caches and memory paths then add up (the pool hands a part over in well under a microsecond).
            let parts = 128
            input.withUnsafeBufferPointer { x in
                layer.weight16.withUnsafeBufferPointer { w in
                    layer.bias.withUnsafeBufferPointer { b in
                        output.withUnsafeMutableBufferPointer { y in
                            let xp = x.baseAddress!, wp = w.baseAddress!, bp = b.baseAddress!, yp = y.baseAddress!
                            let k = layer.inputs, n = layer.outputs
                            Parallel.ranges(n, minimumPerPart: parts) { columns in
                                ib_gemv_f16(Int32(rows), Int32(columns.count), Int32(k), xp, Int32(k), wp + columns.lowerBound * k, Int32(k),
                                            bp + columns.lowerBound, yp + columns.lowerBound, Int32(n), flags)
                            }
                        }
                    }
                }
            }
        } else {
            let weight = layer.weight.isEmpty ? Self.widen(layer.weight16) : layer.weight
            input.withUnsafeBufferPointer { a in
                output.withUnsafeMutableBufferPointer { c in
                    gemmRows(rows, layer.outputs, layer.inputs, a.baseAddress!, layer.inputs, weight, layer.bias,
                             c.baseAddress!, layer.outputs, flags)
                }
            }
        }
    }

    /// Appends each row's key and value to its cache, then attends causally over the cache.
    private func selfAttention(qkv: [Float], rows: [[Int]], caches: [SelfAttentionCache], layer l: Int, into context: inout [Float]) {
        let d = weights.width, heads = weights.decoderHeads, headSize = d / heads
        let scale = 1 / Float(headSize).squareRoot()
        var row = 0
        var scores = [Float](repeating: 0, count: weights.textPositions)
        for (h, tokens) in rows.enumerated() {
            let cache = caches[h]
            for i in 0..<tokens.count {
                let position = cache.length + i
                for j in 0..<d {
                    cache.keys[l][position * d + j] = qkv[row * 3 * d + d + j]
                    cache.values[l][position * d + j] = qkv[row * 3 * d + 2 * d + j]
                }
                let visible = position + 1
                for head in 0..<heads {
                    qkv.withUnsafeBufferPointer { q in
                        cache.keys[l].withUnsafeBufferPointer { k in
                            ib_dot_rows(q.baseAddress! + row * 3 * d + head * headSize, k.baseAddress! + head * headSize, Int32(d),
                                        Int32(visible), Int32(headSize), &scores)
                        }
                    }
                    ib_softmax_rows(&scores, 1, Int32(visible), Int32(visible), scale, nil)
                    cache.values[l].withUnsafeBufferPointer { v in
                        context.withUnsafeMutableBufferPointer { c in
                            ib_weighted_rows(scores, Int32(visible), v.baseAddress! + head * headSize, Int32(d), Int32(headSize),
                                             c.baseAddress! + row * d + head * headSize)
                        }
                    }
                }
                row += 1
            }
        }
    }

    /// Each query row attends to the window's 1500 encoder positions; heads are split over the cores.
    private func crossAttention(query: [Float], rows n: Int, layer l: Int, into context: inout [Float]) {
        if int8 != nil && n <= 8 { crossAttentionInt8(query: query, rows: n, layer: l, into: &context); return }
        if n > 1 { crossAttentionBatched(query: query, rows: n, layer: l, into: &context); return }
        let d = weights.width, heads = weights.decoderHeads, headSize = d / heads, positions = audioPositions
        let scale = 1 / Float(headSize).squareRoot()
        crossKeyValues[l].withUnsafeBufferPointer { kv in
            crossKeysByHead[l].withUnsafeBufferPointer { kt in
                query.withUnsafeBufferPointer { q in
                    context.withUnsafeMutableBufferPointer { c in
                        let base = kv.baseAddress!, keys = kt.baseAddress!, qp = q.baseAddress!, cp = c.baseAddress!
                        Parallel.ranges(heads) { headRange in
                            var scores = [Float](repeating: 0, count: positions)
                            for row in 0..<n {
                                for head in headRange {
                                    ib_weighted_rows(qp + row * d + head * headSize, Int32(headSize),
                                                     keys + head * headSize * positions, Int32(positions), Int32(positions), &scores)
                                    ib_softmax_rows(&scores, 1, Int32(positions), Int32(positions), scale, nil)
                                    ib_weighted_rows(scores, Int32(positions), base + d + head * headSize, Int32(2 * d), Int32(headSize),
                                                     cp + row * d + head * headSize)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A step's query rows (one, or a beam's few) against the int8 keys and values: each score and each
    /// probability is scaled by its position's scale. Heads are split over the cores; a head's keys and
    /// values stay in cache while its rows pass.
    private func crossAttentionInt8(query: [Float], rows n: Int, layer l: Int, into context: inout [Float]) {
        let d = weights.width, heads = weights.decoderHeads, headSize = d / heads, positions = audioPositions
        let scale = 1 / Float(headSize).squareRoot()
        let keys = crossKeys8[l], values = crossValues8[l]
        keys.codes.withUnsafeBufferPointer { kc in
            values.codes.withUnsafeBufferPointer { vc in
                keys.scales.withUnsafeBufferPointer { ks in
                    values.scales.withUnsafeBufferPointer { vs in
                        query.withUnsafeBufferPointer { q in
                            context.withUnsafeMutableBufferPointer { c in
                                let kp = kc.baseAddress!, vp = vc.baseAddress!, ksp = ks.baseAddress!, vsp = vs.baseAddress!
                                let qp = q.baseAddress!, cp = c.baseAddress!
                                Parallel.ranges(heads) { headRange in
                                    var scores = [Float](repeating: 0, count: positions)
                                    for head in headRange {
                                        for row in 0..<n {
                                            ib_weighted_rows_i8(qp + row * d + head * headSize, Int32(headSize), kp + head * headSize * positions,
                                                                Int32(positions), Int32(positions), &scores)
                                            let base = head * positions
                                            for p in 0..<positions { scores[p] *= ksp[base + p] }
                                            ib_softmax_rows(&scores, 1, Int32(positions), Int32(positions), scale, nil)
                                            for p in 0..<positions { scores[p] *= vsp[base + p] }
                                            ib_weighted_rows_i8(scores, Int32(positions), vp + head * headSize, Int32(d), Int32(headSize),
                                                                cp + row * d + head * headSize)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Several rows at once (a prompt, or the hypotheses of a beam): per head, scores = Q K^T and context = softmax(scores) V as GEMMs,
    /// so the window's keys and values are read once per head, not once per row.
    private func crossAttentionBatched(query: [Float], rows n: Int, layer l: Int, into context: inout [Float]) {
        let d = weights.width, heads = weights.decoderHeads, headSize = d / heads, positions = audioPositions
        let scale = 1 / Float(headSize).squareRoot()
        var scores = [Float](repeating: 0, count: n * positions)
        crossKeyValues[l].withUnsafeBufferPointer { kv in
            query.withUnsafeBufferPointer { q in
                context.withUnsafeMutableBufferPointer { c in
                    for head in 0..<heads {
                        ib_gemm(Int32(n), Int32(positions), Int32(headSize), q.baseAddress! + head * headSize, Int32(d),
                                kv.baseAddress! + head * headSize, Int32(2 * d), nil, &scores, Int32(positions), 0)
                        ib_softmax_rows(&scores, Int32(n), Int32(positions), Int32(positions), scale, nil)
                        ib_gemm(Int32(n), Int32(headSize), Int32(positions), scores, Int32(positions),
                                kv.baseAddress! + d + head * headSize, Int32(2 * d), nil, c.baseAddress! + head * headSize, Int32(d),
                                Int32(IB_GEMM_B_KN))
                    }
                }
            }
        }
    }
}

/// Cross-attention keys or values as int8 codes with one scale per (head, position).
struct QuantizedRows {
    var codes: [Int8]
    var scales: [Float]      // [heads][positions]

    /// keys: the fused [positions][2 * width] keys-and-values rows; codes are a head's keys transposed,
    /// [heads][headSize][positions], so that one query's scores are a weighted sum of rows.
    init(keys kv: [Float], heads: Int, headSize: Int, positions n: Int) {
        self.init(kv, from: 0, heads: heads, headSize: headSize, positions: n) { h, i, p in (h * headSize + i) * n + p }
    }

    /// values: the fused [positions][2 * width] keys-and-values rows; codes are [positions][width] (the values only).
    init(values kv: [Float], heads: Int, headSize: Int, positions n: Int) {
        self.init(kv, from: heads * headSize, heads: heads, headSize: headSize, positions: n) { h, i, p in p * heads * headSize + h * headSize + i }
    }

    /// Quantises each (position, head) run of headSize values starting `from` floats into a fused row;
    /// code (h, i, p) goes to codes[place(h, i, p)].
    private init(_ kv: [Float], from column: Int, heads: Int, headSize: Int, positions n: Int, place: (Int, Int, Int) -> Int) {
        let d = heads * headSize
        var codes = [Int8](repeating: 0, count: n * d)
        var scales = [Float](repeating: 0, count: heads * n)
        kv.withUnsafeBufferPointer { source in
            codes.withUnsafeMutableBufferPointer { out in
                for p in 0..<n {
                    for h in 0..<heads {
                        let from = p * 2 * d + column + h * headSize
                        var top: Float = 0
                        for i in 0..<headSize { top = max(top, abs(source[from + i])) }
                        let inverse = top > 0 ? 127 / top : 0
                        scales[h * n + p] = top / 127
                        for i in 0..<headSize { out[place(h, i, p)] = Int8((source[from + i] * inverse).rounded(.toNearestOrEven)) }
                    }
                }
            }
        }
        self.codes = codes
        self.scales = scales
    }
}
