// The int8 form of a BERT encoder's linear layers (--precision int8), and the
// plan that says which of them stay in floating point and how each one's
// activations are quantised.
//
// Weights are quantised once at load, one scale per output row (Int8Matrix,
// ~11 MB for MiniLM, a few tens of milliseconds); activations are quantised
// per token as they come. The plan exists because the error is not spread
// evenly: measured layer by layer (scripts/bench/int8-layers), a few linears
// cost most of the cosine to fp32, so exactly those are kept in floating point.
import CKernels
import IBCore

/// The six linear layers of one BERT layer, by the names plans use.
public enum LinearSlot: String, CaseIterable, Sendable {
    case query, key, value
    case attentionOut = "attn-out"
    case intermediate = "ffn-up"
    case output = "ffn-down"
}

/// Which linears run in int8, and how.
public struct Int8Plan: Sendable, Equatable, CustomStringConvertible {
    public struct Linear: Hashable, Sendable {
        public let layer: Int
        public let slot: LinearSlot
        public init(_ layer: Int, _ slot: LinearSlot) { self.layer = layer; self.slot = slot }
    }
    /// Linears kept in floating point (in bf16 on AMX where `keptInBF16` and the CPU has AMX,
    /// else fp32: AVX-512 BF16 alone measured slower than fp32 for them).
    public var kept: Set<Linear> = []
    /// Slots kept in floating point in every layer.
    public var keptEverywhere: Set<LinearSlot> = []
    /// Slots whose activations are quantised per token asymmetrically (IB_GEMM_I8_ASYMMETRIC).
    public var asymmetric: Set<LinearSlot> = []
    /// Kept linears run in bf16 on AMX when the CPU has it (else fp32).
    public var keptInBF16 = false
    /// Per slot: rows (tokens) whose largest |activation| is above this many times their RMS
    /// run in fp32 (the massive activations of [CLS], [SEP] and punctuation, which one
    /// per-token scale would leave with a few levels for every other value).
    public var rowLimits: [LinearSlot: Float] = [:]
    /// Per slot: values above this many times their row's RMS are set apart and multiplied in
    /// fp32 (by 16-bit weights), the rest of the row quantised over its own range (rowLimits
    /// still sends a whole row to fp32 first).
    public var valueLimits: [LinearSlot: Float] = [:]
    /// When > 0: every int8 linear's activations as 16-bit codes and its weights as codes of this
    /// many bits (ib_gemm_a16): CPUs with AVX2 and no VNNI multiply 16-bit values at the int8
    /// rate anyway, and so reach parity with no row or value limits.
    public var pairCodeBits = 0

    public init() {}

    /// The plan --precision int8 uses, chosen by measurement (scripts/bench/int8-layers; README
    /// "int8 embeddings"): the feed-forward down-projections stay in floating point (their GELU
    /// inputs are the hardest to quantise per token): bf16 on AMX, else fp32. All activations are
    /// asymmetric. In the value and feed-forward up-projections, tokens with a massive activation
    /// (max > 8 x RMS in value, 12 x in ffn-up: [CLS], [SEP], punctuation) run in fp32, and in their
    /// other tokens the values above 5 x RMS are set apart and multiplied in fp32. Queries, keys and
    /// attention outputs take int8 as they come.
    public static let standard: Int8Plan = {
        var plan = Int8Plan()
        plan.keptEverywhere = [.output]
        plan.keptInBF16 = true
        plan.asymmetric = Set(LinearSlot.allCases)
        plan.rowLimits = [.value: 8, .intermediate: 12]
        plan.valueLimits = [.value: 5, .intermediate: 5]
        return plan
    }()

    /// The plan for CPUs with AVX2 and no VNNI (int8 path "avx2"): every linear, ffn-down too, on
    /// 11-bit weight codes and 16-bit activation codes (8-bit codes would leave ffn-down and the
    /// tokens with massive activations in fp32 there, for no faster multiply-adds; 8-bit weights
    /// with 16-bit activations reach only 0.9965 on the reference texts, 11-bit 0.99994: README
    /// "int8 embeddings").
    public static let avx2: Int8Plan = {
        var plan = Int8Plan()
        plan.pairCodeBits = 11
        return plan
    }()

    /// The plan for the int8 kernels this CPU runs now: avx2 on the "avx2" path, else standard.
    public static var forThisCPU: Int8Plan { Int8Matrix.kernelPath == "avx2" ? .avx2 : .standard }

    /// Parses items separated by ",": keep=SLOT[@LAYERS] (kept in floating point), only=SLOT[@LAYERS]
    /// (these in int8, every other linear kept), asym=SLOT (asymmetric activations), kept=bf16|fp32,
    /// rows=SLOT:LIMIT (rowLimits), values=SLOT:LIMIT (valueLimits), a16=BITS (pairCodeBits, 0 or 8-12);
    /// SLOT: query key value attn-out ffn-up ffn-down all; LAYERS: "3" or "0-5" (default all).
    /// "int8" alone is every linear in int8 with symmetric activations.
    /// For measurements (IB_INT8_PLAN); `layers` is the model's layer count.
    public static func parse(_ text: String, layers: Int, name: String = "IB_INT8_PLAN") throws(IBError) -> Int8Plan {
        var plan = Int8Plan()
        do {
            try plan.add(text, layers: layers, name: name)
        } catch let error as IBError {
            throw error
        } catch {
            throw IBError.usage("\(name): \(error)")
        }
        return plan
    }

    private mutating func add(_ text: String, layers: Int, name: String) throws {
        func bad(_ item: Substring) -> IBError {
            IBError.usage("\(name): bad item '\(item)' (want keep=SLOT[@A-B], only=SLOT[@A-B], asym=SLOT, rows=SLOT:LIMIT, values=SLOT:LIMIT, kept=bf16|fp32, a16=BITS or int8)")
        }
        func slots(_ s: Substring) throws -> [LinearSlot] {
            if s == "all" { return LinearSlot.allCases }
            guard let slot = LinearSlot(rawValue: String(s)) else { throw bad(s) }
            return [slot]
        }
        var only: Set<Linear> = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            if item == "int8" { continue }
            guard parts.count == 2 else { throw bad(item) }
            switch parts[0] {
            case "keep", "only":
                let target = parts[1].split(separator: "@", maxSplits: 1)
                var range = 0..<layers
                if target.count == 2 {
                    let ends = target[1].split(separator: "-").map { Int($0) }
                    guard let a = ends.first ?? nil, let b = ends.last ?? nil, ends.count <= 2, 0 <= a, a <= b, b < layers
                    else { throw bad(item) }
                    range = a..<(b + 1)
                }
                for slot in try slots(target[0]) {
                    if parts[0] == "keep" && target.count == 1 { keptEverywhere.insert(slot); continue }
                    for l in range { if parts[0] == "keep" { kept.insert(Linear(l, slot)) } else { only.insert(Linear(l, slot)) } }
                }
            case "asym":
                for slot in try slots(parts[1]) { asymmetric.insert(slot) }
            case "rows":
                let target = parts[1].split(separator: ":")
                guard target.count == 2, let limit = Float(target[1]), limit > 1, limit.isFinite else { throw bad(item) }
                for slot in try slots(target[0]) { rowLimits[slot] = limit }
            case "values":
                let target = parts[1].split(separator: ":")
                guard target.count == 2, let limit = Float(target[1]), limit > 1, limit.isFinite else { throw bad(item) }
                for slot in try slots(target[0]) { valueLimits[slot] = limit }
            case "a16":
                guard let bits = Int(parts[1]), bits == 0 || (8...12).contains(bits) else { throw bad(item) }
                pairCodeBits = bits
            case "kept":
                guard parts[1] == "bf16" || parts[1] == "fp32" else { throw bad(item) }
                keptInBF16 = parts[1] == "bf16"
            default:
                throw bad(item)
            }
        }
        if !only.isEmpty {
            for l in 0..<layers { for slot in LinearSlot.allCases where !only.contains(Linear(l, slot)) { kept.insert(Linear(l, slot)) } }
        }
    }

    /// Whether layer `l`'s `slot` stays in floating point.
    public func keeps(_ l: Int, _ slot: LinearSlot) -> Bool {
        keptEverywhere.contains(slot) || kept.contains(Linear(l, slot))
    }

    public var description: String {
        let keptText = kept.sorted { ($0.layer, $0.slot.rawValue) < ($1.layer, $1.slot.rawValue) }
            .map { "keep=\($0.slot.rawValue)@\($0.layer)" }
        let everywhereText = keptEverywhere.map(\.rawValue).sorted().map { "keep=\($0)" }
        let asymText = asymmetric.map(\.rawValue).sorted().map { "asym=\($0)" }
        let rowsText = rowLimits.map { "rows=\($0.key.rawValue):\($0.value)" }.sorted()
        let valuesText = valueLimits.map { "values=\($0.key.rawValue):\($0.value)" }.sorted()
        let items = everywhereText + keptText + asymText + rowsText + valuesText + (keptInBF16 ? ["kept=bf16"] : []) + (pairCodeBits > 0 ? ["a16=\(pairCodeBits)"] : [])
        return items.isEmpty ? "int8" : items.joined(separator: ",")
    }
}

/// Every linear of every layer that the plan puts in int8, quantised and packed; and, where
/// the kept linears run in bf16 on AMX, those packed in bf16.
final class Int8Weights: @unchecked Sendable {
    let plan: Int8Plan
    private let matrices: [[LinearSlot: Int8Matrix]]
    private let pairMatrices: [[LinearSlot: PairCodeMatrix]]
    private let bf16: [[LinearSlot: [UInt16]]]

    init(_ w: BertWeights, _ c: BertConfig, plan: Int8Plan) {
        let h = c.hiddenSize, i = c.intermediateSize
        self.plan = plan
        matrices = w.layers.enumerated().map { l, layer in
            let all = Self.linears(layer, h, i)
            var out: [LinearSlot: Int8Matrix] = [:]
            for (slot, affine, n, k) in all where !plan.keeps(l, slot) && plan.pairCodeBits == 0 {
                out[slot] = Int8Matrix(weight: affine.weight, outputs: n, inputs: k,
                                       withColumns: plan.valueLimits[slot] != nil || plan.rowLimits[slot] != nil)
                // Never read again (fp32 rows and values use the 16-bit codes): resident beside
                // their int8 form they would put the peak RSS above fp32's.
                SafeTensors.dropPages(of: affine.weight, count: n * k)
            }
            return out
        }
        pairMatrices = w.layers.enumerated().map { l, layer in
            var out: [LinearSlot: PairCodeMatrix] = [:]
            for (slot, affine, n, k) in Self.linears(layer, h, i) where !plan.keeps(l, slot) && plan.pairCodeBits > 0 {
                out[slot] = PairCodeMatrix(weight: affine.weight, outputs: n, inputs: k, bits: plan.pairCodeBits)
                SafeTensors.dropPages(of: affine.weight, count: n * k)     // as above: never read again
            }
            return out
        }
        // Kept linears in bf16 on AMX: packed once (an fp32 weight then stays unread).
        let amx = plan.keptInBF16 && ib_bf16_amx_usable() != 0
        bf16 = w.layers.enumerated().map { l, layer in
            let all = Self.linears(layer, h, i)
            var out: [LinearSlot: [UInt16]] = [:]
            for (slot, affine, n, k) in all where amx && plan.keeps(l, slot) {
                let count = ib_bf16_amx_packed_bytes(Int32(n), Int32(k)) / 2
                out[slot] = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
                    ib_bf16_amx_pack(affine.weight, Int32(n), Int32(k), buffer.baseAddress!)
                    initialized = count
                }
                SafeTensors.dropPages(of: affine.weight, count: n * k)
            }
            return out
        }
    }

    /// A layer's six linears: slot, weights, outputs, inputs.
    private static func linears(_ layer: LayerWeights, _ h: Int, _ i: Int) -> [(LinearSlot, Affine, Int, Int)] {
        [(.query, layer.query, h, h), (.key, layer.key, h, h), (.value, layer.value, h, h),
         (.attentionOut, layer.attentionOut, h, h), (.intermediate, layer.intermediate, i, h), (.output, layer.output, h, i)]
    }

    /// Runs layer `l`'s kept `slot` in bf16 on AMX when it was packed so (and AMX is still in use:
    /// tests switch kernels); false: the caller runs it.
    func multiplyKept(_ l: Int, _ slot: LinearSlot, _ M: Int32, _ N: Int32, _ K: Int32, _ x: UnsafePointer<Float>, _ lda: Int32,
                      _ bias: UnsafePointer<Float>?, _ out: UnsafeMutablePointer<Float>, _ ldc: Int32, _ flags: Int32) -> Bool {
        guard let packed = bf16[l][slot] else { return false }
        return packed.withUnsafeBufferPointer { ib_gemm_bf16_amx(M, N, K, x, lda, $0.baseAddress!, bias, out, ldc, flags) != 0 }
    }

    /// The int8 matrix of layer `l`'s `slot`, or nil when it stays in floating point (or the plan
    /// has 16-bit activations).
    func matrix(_ l: Int, _ slot: LinearSlot) -> Int8Matrix? { matrices[l][slot] }

    /// The matrix of layer `l`'s `slot` for 16-bit activations (plan.pairCodeBits > 0), or nil.
    func pairMatrix(_ l: Int, _ slot: LinearSlot) -> PairCodeMatrix? { pairMatrices[l][slot] }

    /// Extra ib_gemm_i8 flags for `slot`.
    func flags(_ slot: LinearSlot) -> Int32 {
        plan.asymmetric.contains(slot) ? Int32(IB_GEMM_I8_ASYMMETRIC) : 0
    }

    /// In `slot`, rows whose max |x| is above `rows` times their RMS run in fp32, and in the
    /// others the values above `values` times the RMS are set apart (Int8Plan.rowLimits and
    /// valueLimits; 0: none). ib_gemm_i8_mixed finds both as it quantises.
    func limits(_ slot: LinearSlot) -> (rows: Float, values: Float) {
        (plan.rowLimits[slot] ?? 0, plan.valueLimits[slot] ?? 0)
    }
}
