// The offline summary of one section: the book's own sentences that best
// cover it, chosen with the embedding model, no language model involved.
//
// Coverage first, on the chunk vectors the library already holds (the same
// encoder's): a greedy facility location picks the chunks that together are
// nearest to every chunk of the section. Then, within each picked chunk, the
// sentence nearest that chunk's vector and least like a sentence already
// chosen (maximal marginal relevance). Only the picked chunks' sentences are
// encoded, so a 3,000-page book costs a few sentences a page, not the book.
import IBCore

/// A sentence chosen for a summary, with where it is.
struct ChosenSentence {
    var text: String
    var chunk: Int
    var order: Int
    var startPage: Int
    var endPage: Int
}

/// A section's candidate sentences, before they are encoded.
struct SectionCandidates {
    /// Picked chunks, by coverage, each with the vector its sentences aim at (nil: none stored).
    var targets: [(chunk: SummaryChunkText, vector: [Float]?)]
    var sentences: [(text: String, target: Int, order: Int)]
}

/// A chunk's text and place, for the offline summary.
struct SummaryChunkText {
    var index: Int
    var startPage: Int
    var endPage: Int
    var text: String
}

enum SummaryExtractive {
    /// Sentences encoded per picked chunk: the encoder is the whole cost of an
    /// offline summary (3,168 pages at 3 chunks a section: 10 took 65 CPU seconds, 5 took 43;
    /// at 2 chunks a section, 4 took 27).
    static let candidatesPerChunk = 3
    /// Weight of redundancy against coverage in the choice of a sentence.
    static let redundancyWeight: Float = 0.6

    /// Picks up to `count` chunks covering `chunks` (facility location on their
    /// vectors; evenly spaced without vectors) and their quotable sentences.
    static func candidates(_ chunks: [SummaryChunkText], vectors: [Int: [Float]], count: Int, seen: inout Set<String>) -> SectionCandidates {
        let picked = cover(chunks, vectors: vectors, count: count)
        var out = SectionCandidates(targets: [], sentences: [])
        for c in picked {
            out.targets.append((chunks[c], vectors[chunks[c].index]))
            out.sentences += shortlist(quotable(chunks[c].text, seen: &seen)).map { ($0.text, out.targets.count - 1, $0.order) }
        }
        // A section whose picked chunks hold no whole sentence: any chunk of it that does.
        if out.sentences.isEmpty {
            for chunk in chunks {
                let found = quotable(chunk.text, seen: &seen, minimum: 12)
                if found.isEmpty { continue }
                out.targets = [(chunk, vectors[chunk.index])]
                out.sentences = shortlist(found).map { ($0.text, 0, $0.order) }
                break
            }
        }
        return out
    }

    /// The sentences worth encoding: those nearest a full statement's length
    /// (one line of a dialogue says little, a 400-character one is a paragraph), in text order.
    static func shortlist(_ sentences: [(text: String, order: Int)]) -> [(text: String, order: Int)] {
        guard sentences.count > candidatesPerChunk else { return sentences }
        return sentences.sorted { abs($0.text.count - 140) < abs($1.text.count - 140) }.prefix(candidatesPerChunk).sorted { $0.order < $1.order }
    }

    /// Greedy facility location: each step adds the chunk that most raises
    /// the sum over all chunks of their similarity to the nearest one picked.
    static func cover(_ chunks: [SummaryChunkText], vectors: [Int: [Float]], count: Int) -> [Int] {
        let n = chunks.count, k = min(count, n)
        guard k > 0 else { return [] }
        let vs = chunks.map { vectors[$0.index] }
        guard vs.allSatisfy({ $0 != nil }) else {
            // No stored vectors (another model's library): evenly spaced.
            return (0..<k).map { (2 * $0 + 1) * n / (2 * k) }
        }
        let v = vs.map { $0! }
        var sim = [Float](repeating: 0, count: n * n)
        for i in 0..<n { for j in i..<n { let s = dot(v[i], v[j]); sim[i * n + j] = s; sim[j * n + i] = s } }
        var best = [Float](repeating: 0, count: n)
        var picked: [Int] = []
        for _ in 0..<k {
            var choice = -1, gain: Float = -1
            for c in 0..<n where !picked.contains(c) {
                var g: Float = 0
                for j in 0..<n { g += max(0, sim[c * n + j] - best[j]) }
                if g > gain { gain = g; choice = c }
            }
            guard choice >= 0 else { break }
            picked.append(choice)
            for j in 0..<n { best[j] = max(best[j], sim[choice * n + j]) }
        }
        return picked
    }

    /// Whole statements of `text`, each once in the book (overlapping chunks repeat them).
    static func quotable(_ text: String, seen: inout Set<String>, minimum: Int = 40) -> [(text: String, order: Int)] {
        var out: [(String, Int)] = []
        for (i, s) in Sentences.split(text).enumerated() where s.count >= minimum && ExtractiveRules.isQuotable(s) && !s.hasSuffix("…") && startsSentence(s) {
            let key = ExtractiveRules.key(s)
            guard !seen.contains(key) else { continue }
            out.append((s, i))
        }
        for (s, _) in out { seen.insert(ExtractiveRules.key(s)) }
        return out
    }

    /// A chunk may start mid-sentence: a whole one starts with a capital (or a digit), after any quote.
    static func startsSentence(_ s: String) -> Bool {
        guard let c = s.first(where: { !"\"'“”‘’«»([-—– ".contains($0) }) else { return false }
        return c.isUppercase || c.isNumber || !c.isCased
    }

    /// Chooses one sentence per target: nearest its target (the chunk's vector,
    /// else the centroid of the section's sentences), least like those chosen.
    static func choose(_ section: SectionCandidates, vectors: [[Float]]) -> [(sentence: Int, target: Int)] {
        guard !section.sentences.isEmpty, vectors.count == section.sentences.count else { return [] }
        var centroid = [Float](repeating: 0, count: vectors[0].count)
        for v in vectors { for d in centroid.indices { centroid[d] += v[d] } }
        let norm = centroid.reduce(0) { $0 + $1 * $1 }.squareRoot()
        if norm > 0 { centroid = centroid.map { $0 / norm } }
        var chosen: [(sentence: Int, target: Int)] = []
        for t in section.targets.indices {
            let aim = section.targets[t].vector.map(normalized) ?? centroid
            var best = -1, bestScore = -Float.infinity
            for (i, s) in section.sentences.enumerated() where s.target == t || section.targets.count == 1 {
                guard !chosen.contains(where: { $0.sentence == i }) else { continue }
                let redundancy = chosen.map { dot(vectors[i], vectors[$0.sentence]) }.max() ?? 0
                // Too close to one already chosen says the same thing again.
                if redundancy > 0.9 { continue }
                let score = dot(vectors[i], aim) - redundancyWeight * max(0, redundancy)
                if score > bestScore { bestScore = score; best = i }
            }
            if best >= 0 { chosen.append((best, t)) }
        }
        return chosen
    }

    static func dot(_ a: [Float], _ b: [Float]) -> Float {
        var s: Float = 0
        for d in 0..<min(a.count, b.count) { s += a[d] * b[d] }
        return s
    }

    static func normalized(_ v: [Float]) -> [Float] {
        let n = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return n > 0 ? v.map { $0 / n } : v
    }
}
