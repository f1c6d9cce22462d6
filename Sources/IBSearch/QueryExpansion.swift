// EXPERIMENTAL, off by default (IB_SEARCH_EXPAND=1): see SearchEngine.expandQueries.
// Query expansion for the full-text half, from the model's own vocabulary:
// the input word embeddings of all-MiniLM-L6-v2 put related words close
// together (tooth -> dental, dentist; serpent -> snake, viper; sea -> ocean;
// deceased -> dead; schooling -> education). Each query word that is a whole
// token of the vocabulary adds its nearest whole-word tokens (cosine >=
// `threshold`, at most `perWord`) as extra OR terms, so a question phrased in
// other words than its passage still shares words with it. Expansions never
// count toward a chunk's term coverage in the fusion, and variants of the word
// itself (same first four letters) are left out: stemming covers them.
//
// One pass over the 30522 x 384 embedding matrix (mapped, not copied) scores
// every query word at once; in a hybrid search it runs on the full-text thread,
// beside the query embedding and the vector scan.
import IBCore
import IBModel
import IBTokenizer

final class QueryExpansion: @unchecked Sendable {
    let vocabulary: Vocabulary
    let weights: SafeTensors
    let matrix: UnsafePointer<Float>
    let rows: Int
    let dim: Int
    var threshold: Float = 0.4
    var perWord = 4

    /// nil when the folder has no usable model.
    init?(directory: String) {
        guard let vocabulary = try? Vocabulary(path: directory + "/vocab.txt"),
              let weights = try? SafeTensors(path: directory + "/model.safetensors") else { return nil }
        let name = weights.tensors["bert.embeddings.word_embeddings.weight"] != nil
            ? "bert.embeddings.word_embeddings.weight" : "embeddings.word_embeddings.weight"
        guard let info = weights.tensors[name], info.shape.count == 2, info.shape[0] == vocabulary.count,
              let matrix = try? weights.float32(name, shape: info.shape) else { return nil }
        self.vocabulary = vocabulary
        self.weights = weights
        self.matrix = matrix
        rows = info.shape[0]
        dim = info.shape[1]
    }

    /// Whole-word tokens worth adding: ASCII letters, three or more.
    func usable(_ token: String) -> Bool {
        token.utf8.count >= 3 && token.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) }
    }

    /// The expansions of `words` (lowercased query words), each word's best first.
    func expand(_ words: [String]) -> [String] {
        var ids: [Int] = []
        var sources: [String] = []
        for word in words where !QueryText.stopwords.contains(word) {
            guard let id = vocabulary.id(of: word) else { continue }
            if !ids.contains(Int(id)) { ids.append(Int(id)); sources.append(word) }
        }
        guard !ids.isEmpty else { return [] }
        let t = ids.count
        // Query word vectors, normalised.
        var q = [Float](repeating: 0, count: t * dim)
        for (j, id) in ids.enumerated() {
            var norm: Float = 0
            for d in 0..<dim { let v = matrix[id * dim + d]; q[j * dim + d] = v; norm += v * v }
            let inv = norm > 0 ? 1 / norm.squareRoot() : 0
            for d in 0..<dim { q[j * dim + d] *= inv }
        }
        // One pass: each row's norm and its dot with every query word; keep the best per word.
        var best = [[(Float, Int)]](repeating: [], count: t)
        var acc = [SIMD8<Float>](repeating: .zero, count: t)
        q.withUnsafeBufferPointer { qp in
            acc.withUnsafeMutableBufferPointer { a in
                for r in 0..<rows {
                    let row = UnsafeRawPointer(matrix + r * dim)
                    var n8 = SIMD8<Float>()
                    for j in 0..<t { a[j] = .zero }
                    var d = 0
                    while d + 8 <= dim {
                        let v = row.loadUnaligned(fromByteOffset: d * 4, as: SIMD8<Float>.self)
                        n8 += v * v
                        for j in 0..<t {
                            a[j] += v * UnsafeRawPointer(qp.baseAddress! + j * dim + d).loadUnaligned(as: SIMD8<Float>.self)
                        }
                        d += 8
                    }
                    let norm = n8.sum().squareRoot()
                    guard norm > 0 else { continue }
                    for j in 0..<t {
                        let s = a[j].sum() / norm
                        if s >= threshold && r != ids[j] { best[j].append((s, r)) }
                    }
                }
            }
        }
        var out: [String] = []
        for j in 0..<t {
            let word = sources[j]
            var added = 0
            for (_, r) in best[j].sorted(by: { $0.0 > $1.0 }) where added < perWord {
                let token = vocabulary.token(Int32(r))
                guard usable(token), !QueryText.stopwords.contains(token),
                      !token.hasPrefix(String(word.prefix(4))), !word.hasPrefix(String(token.prefix(4))),
                      !out.contains(token), !words.contains(token) else { continue }
                out.append(token)
                added += 1
            }
        }
        return out
    }
}
