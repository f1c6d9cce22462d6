// Hybrid's fusion: one ranked list from the vector list and the text list,
// by standardized scores (or, for comparisons, by reciprocal rank), and the
// measure of how much of the query a passage holds that tempers the text vote.
import IBCore
import IBStore
#if canImport(Glibc)
import Glibc
#endif

/// A chunk on its way to the results: where it ranked in each list and its fused score.
struct FusedCandidate {
    var ref: ChunkRef
    var bookID: String
    var index: Int
    var score: Double = 0
    /// 1-based ranks in the vector and text lists (nil: not in it), and the scores there.
    var vectorRank: Int?
    var textRank: Int?
    var distance: Double?
    var bm25: Double?
}

extension SearchEngine {
    /// How high in either whole-scope list a chunk must rank for a part or day
    /// one off the reader's to raise it (FocusRange.near): a neighbour holding
    /// no better evidence than the named part's own weakest chunks would push
    /// them out. Tuning parts, questions as written: 5 lost none, 10 and 20 one
    /// in one book's scope, without the gate two; references one off: 5 found
    /// 0.46 / 0.42, 10 0.47 / 0.44, 20 0.48 / 0.44.
    static let nearEvidenceRank = 10

    /// Both lists' chunks, scored by `mode` (vector: cosine; text: -bm25; hybrid:
    /// fused), best first; equal scores by the better single rank, then book and index.
    /// `statistics`: how many of each list's first hits the standardization reads
    /// (the whole-scope lists; hits a focus appended after them are scored by the
    /// same measure). `quoted`: chunks holding words the reader quotes, first in
    /// text mode, raised by phraseWeight in hybrid; `focus`: hybrid raises each
    /// chunk by focusWeight times its focus weight.
    func fuse(_ vectorHits: [ChunkHit], _ textHits: [ChunkHit], mode: SearchMode, concepts: [Concept],
              statistics: (vector: Int, text: Int)? = nil, quoted: Set<ChunkRef> = [], focus: Focus = Focus([]),
              matches: [ChunkRef: Matched] = [:], namedBooks: Set<String> = []) throws -> [FusedCandidate] {
        var slots: [ChunkRef: Int] = [:]
        var candidates: [FusedCandidate] = []
        func slot(_ hit: ChunkHit) -> Int {
            if let i = slots[hit.ref] { return i }
            candidates.append(FusedCandidate(ref: hit.ref, bookID: hit.bookID, index: hit.index))
            slots[hit.ref] = candidates.count - 1
            return candidates.count - 1
        }
        for (rank, hit) in vectorHits.enumerated() {
            let i = slot(hit)
            candidates[i].vectorRank = rank + 1
            candidates[i].distance = hit.score
        }
        for (rank, hit) in textHits.enumerated() {
            let i = slot(hit)
            candidates[i].textRank = rank + 1
            candidates[i].bm25 = hit.score
        }
        // A quoted line found in neither list still comes back.
        if !quoted.isEmpty {
            let missing = quoted.filter { slots[$0] == nil }.sorted()
            for (ref, location) in try library.locations(of: missing).sorted(by: { $0.key < $1.key }) {
                _ = slot(ChunkHit(ref: ref, bookID: location.bookID, index: location.index, score: 0))
            }
        }
        switch mode {
        case .vector:
            for i in candidates.indices { candidates[i].score = 1 - (candidates[i].distance ?? 2) }
        case .text:
            // The quoted words' chunks first, then by BM25.
            for i in candidates.indices {
                candidates[i].score = -(candidates[i].bm25 ?? 0) + (quoted.contains(candidates[i].ref) ? 1e6 : 0)
            }
        case .hybrid:
            if let rrfK {
                // Reciprocal rank fusion (--rrf-k), the text vote scaled by coverage^2:
                // kept for comparisons.
                for i in candidates.indices {
                    var score = candidates[i].vectorRank.map { 1 / (rrfK + Double($0)) } ?? 0
                    if let t = candidates[i].textRank {
                        let text = try library.chunk(candidates[i].ref)?.text ?? ""
                        score += pow(Self.coverage(text, concepts: concepts), 2) / (rrfK + Double(t))
                    }
                    candidates[i].score = score
                }
            } else {
                let counted = statistics ?? (vectorHits.count, textHits.count)
                let fusion = ScoreFusion(vector: vectorHits.prefix(counted.vector).map { 1 - $0.score },
                                         text: textHits.prefix(counted.text).map { -$0.score }, vectorWeight: vectorWeight)
                for i in candidates.indices {
                    var evidence = 1.0
                    if candidates[i].textRank != nil {
                        // Known when the full-text half found it on its thread (ParallelText).
                        let (found, units) = try matches[candidates[i].ref]
                            ?? Self.matched(try library.chunk(candidates[i].ref)?.text ?? "", concepts: concepts)
                        evidence = ScoreFusion.textEvidence(found: found, of: units)
                    }
                    candidates[i].score = fusion.score(vector: candidates[i].vectorRank.map { 1 - vectorHits[$0 - 1].score },
                                                       text: candidates[i].textRank.map { -textHits[$0 - 1].score },
                                                       evidence: evidence)
                    if !focus.isEmpty {
                        let best = min(candidates[i].vectorRank ?? .max, candidates[i].textRank ?? .max) <= Self.nearEvidenceRank
                        candidates[i].score += focusWeight * focus.weight(candidates[i].bookID, candidates[i].index, amongBest: best)
                    }
                    if quoted.contains(candidates[i].ref) { candidates[i].score += phraseWeight }
                    if namedBooks.contains(candidates[i].bookID) { candidates[i].score += authorWeight }
                }
            }
        }
        // Stable order: score, then the better single rank, then the book and index.
        candidates.sort { a, b in
            if a.score != b.score { return a.score > b.score }
            let ra = min(a.vectorRank ?? Int.max, a.textRank ?? Int.max), rb = min(b.vectorRank ?? Int.max, b.textRank ?? Int.max)
            if ra != rb { return ra < rb }
            return a.bookID != b.bookID ? a.bookID < b.bookID : a.index < b.index
        }
        return candidates
    }

    /// The share of the query found in `text`: each word concept counts one, or
    /// the weight of its first member found (the word itself 1, a synonym less;
    /// words lowercased, stems match as prefixes, phrases as substrings); CJK text
    /// counts per character, a character being found when a bigram holding it is.
    /// A query's bigrams include spurious ones across word boundaries ("侦探检查"
    /// -> 侦探 探检 检查); counting characters keeps those from lowering a passage
    /// that has every word.
    static func coverage(_ text: String, concepts: [Concept]) -> Double {
        let (found, units) = matched(text, concepts: concepts)
        return units > 0 ? found / units : 0
    }

    /// How much of the query `text` holds, as (found, units): the weighted count of
    /// concepts found and their number (CJK: characters; see coverage()).
    typealias Matched = (found: Double, units: Double)
    static func matched(_ text: String, concepts: [Concept]) -> Matched {
        guard !concepts.isEmpty else { return (0, 0) }
        let finder = WordFinder(text)
        func present(_ term: QueryTerm) -> Bool {
            if term.text.contains(" ") { return finder.contains(phrase: term.text) }
            return finder.contains(word: term.text, prefix: term.prefix)
        }
        var units = 0.0, found = 0.0
        // The previous bigram's second character and whether that bigram was found.
        var previous: (last: Unicode.Scalar, found: Bool)? = nil
        for concept in concepts {
            guard concept.isCJK, let term = concept.members.first?.term else {
                units += 1
                if let member = concept.members.first(where: { present($0.term) }) { found += member.weight }
                previous = nil
                continue
            }
            let chars = Array(term.text.unicodeScalars)
            let hit = text.contains(term.text)
            if chars.count != 2 {
                units += 1
                if hit { found += 1 }
                previous = nil
                continue
            }
            if let p = previous, p.last == chars[0] {
                // The first character was counted with the previous bigram.
                if hit && !p.found { found += 1 }
                units += 1
                if hit { found += 1 }
            } else {
                units += 2
                if hit { found += 2 }
            }
            previous = (chars[1], hit)
        }
        return (found, units)
    }
}

/// A list's scores as z-scores (mean 0, standard deviation 1 over the list), so
/// cosines and BM25 scores can be added. A chunk missing from a list counts as
/// that list's lowest score: it was not found there, so it is at most as good as
/// the last one that was. On the long-book set (tuning part, one-book scope) this
/// fusion found 0.70 where reciprocal rank fusion with the coverage-scaled text
/// vote found 0.64 and the union of both top-5 lists 0.72: a chunk ranked 2nd-7th
/// by one list and absent from the other is no longer pushed out by chunks that
/// both lists rank low.
struct Standardized {
    let mean: Double, deviation: Double, lowest: Double
    /// No spread (one score, or equal ones): being in the list is all it says.
    let flat: Bool
    /// How far the list's best stands above its fifth, in standard deviations
    /// (nil: a flat list or one of fewer than two scores).
    let lead: Double?
    init(_ scores: [Double]) {
        let n = Double(max(1, scores.count))
        let mean = scores.reduce(0, +) / n
        let variance = scores.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n
        self.mean = mean
        flat = !(variance > 1e-12)
        deviation = flat ? 1 : variance.squareRoot()
        lowest = scores.min() ?? 0
        let best = scores.sorted(by: >).prefix(5)
        lead = flat || best.count < 2 ? nil : (best.first! - best.last!) / deviation
    }

    /// How much this list's vote counts in this query: the fourth root of its
    /// lead (at least 0.1), 1 when it has none. A list whose best hit stands
    /// clear of the rest (a rare name in one passage; one paragraph far closer
    /// in meaning than the others) is decisive; one whose first five are about
    /// equal says little about which of them is meant, and the other list
    /// decides. The root keeps one list from silencing the other: on the
    /// readers' set (tuning part) the square root and the fourth root found the
    /// same, but the square root let one rare word's junk hit push a paraphrase
    /// out of the first evaluation set's top 5.
    var decisiveness: Double { lead.map { pow(max(0.1, $0), 0.25) } ?? 1 }
    /// A flat list scores its members 1 and the rest 0 (a z-score would give both 0).
    /// A score below the list's lowest (a chunk the focused search found past the
    /// list's depth) counts as the lowest, as a missing chunk does: the statistics
    /// describe the list's best hits, and a z-score extrapolated below them says
    /// how big the scope is more than how good the chunk is (in a library of eight
    /// books the passage in the part a reader named scored -6 and lost to any hit
    /// of any book; in its own book's scope it was second). The focus then decides
    /// among such chunks, and their ranks break ties. Second readers' set, tuning
    /// part: 0.700/0.645 -> 0.745/0.709 (one book / library); scaling the distance
    /// below the lowest by 0.3 instead of 0 gained nothing.
    func z(_ score: Double?) -> Double {
        if flat { return score == nil ? 0 : 1 }
        return (max(score ?? lowest, lowest) - mean) / deviation
    }
}

/// Hybrid's fusion: the weighted sum of a chunk's z-scores in the two lists
/// (nil: not in that list).
struct ScoreFusion {
    let vector: Standardized, text: Standardized, vectorWeight: Double
    init(vector: [Double], text: [Double], vectorWeight: Double) {
        self.vector = Standardized(vector); self.text = Standardized(text); self.vectorWeight = vectorWeight
    }
    /// `evidence` (0...1) scales how far the text list lifts a chunk above the
    /// list's lowest (see textEvidence).
    func score(vector v: Double?, text t: Double?, evidence: Double = 1) -> Double {
        let z = text.z(t), floor = text.z(nil)
        return vectorWeight * vector.decisiveness * vector.z(v) + text.decisiveness * (floor + (z - floor) * evidence)
    }

    /// How much a text hit counts, by how many of the query's words (concepts,
    /// CJK characters) it holds: one shared word is no evidence (a paraphrase
    /// matches junk by one rare word, and BM25 ranks that high), each further one
    /// adds a third, four or more count fully. A one-word query counts fully. On
    /// the first evaluation set this keeps hybrid above vector (0.84 -> 0.89 in
    /// simulation), and on the long-book set it changes one book's scope by a
    /// question and lifts the whole library's (0.65 -> 0.68).
    static func textEvidence(found: Double, of units: Double) -> Double {
        if units <= 1 { return 1 }
        return min(1, max(0, (found - 1) / 3))
    }
}

