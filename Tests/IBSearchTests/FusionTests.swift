// Score fusion (Standardized): z-scores over a list, a chunk missing from a
// list at that list's lowest, and the property the fusion exists for: a chunk
// that one list ranks first is never pushed out of the top by chunks the two
// lists only agree on weakly.
import XCTest
@testable import IBSearch
import IBStore

final class FusionTests: XCTestCase {
    func testZScores() {
        let s = Standardized([3, 1, 2])
        XCTAssertEqual(s.mean, 2, accuracy: 1e-12)
        XCTAssertEqual(s.deviation, (2.0 / 3).squareRoot(), accuracy: 1e-12)
        XCTAssertEqual(s.z(2), 0, accuracy: 1e-12)
        XCTAssertEqual(s.z(3), 1 / (2.0 / 3).squareRoot(), accuracy: 1e-12)
        // Missing from the list: as good as its lowest.
        XCTAssertEqual(s.z(nil), s.z(1), accuracy: 1e-12)
    }

    /// A chunk scored below the list (a focused search's hit past its depth) is
    /// as good as the lowest, however far below it falls: the list's statistics
    /// say nothing about it.
    func testScoresBelowTheListCountAsItsLowest() {
        let s = Standardized([0.51, 0.50, 0.50, 0.49, 0.48])
        XCTAssertEqual(s.z(0.30), s.z(nil), accuracy: 1e-12)
        XCTAssertEqual(s.z(0.479), s.z(0.48), accuracy: 1e-12)
        XCTAssertGreaterThan(s.z(0.49), s.z(0.30))
        let fusion = ScoreFusion(vector: [0.51, 0.50, 0.49], text: [12, 8, 7], vectorWeight: 1.3)
        XCTAssertEqual(fusion.score(vector: 0.2, text: 1), fusion.score(vector: nil, text: nil), accuracy: 1e-12)
    }

    func testDegenerateListsStayFinite() {
        for scores in [[], [0.5], [0.5, 0.5, 0.5]] as [[Double]] {
            let s = Standardized(scores)
            XCTAssertTrue(s.flat)
            // Being in a list of one (or of equal scores) still counts.
            XCTAssertEqual(s.z(0.5), 1)
            XCTAssertEqual(s.z(nil), 0)
        }
    }

    /// The text list's clear winner (far above the rest) and the vector list's
    /// stay in the top two, above a chunk both lists rank in the middle.
    func testAListsClearWinnerIsKept() {
        let vector: [(String, Double)] = [("v1", 0.62), ("both", 0.50), ("v3", 0.49), ("v4", 0.48), ("v5", 0.47)]
        let text: [(String, Double)] = [("t1", 14.0), ("t2", 6.1), ("both", 6.0), ("t4", 5.9), ("t5", 5.8)]
        let fusion = ScoreFusion(vector: vector.map(\.1), text: text.map(\.1), vectorWeight: 1.3)
        var fused: [String: Double] = [:]
        for id in Set(vector.map(\.0) + text.map(\.0)) {
            fused[id] = fusion.score(vector: vector.first { $0.0 == id }?.1, text: text.first { $0.0 == id }?.1)
        }
        let order = fused.sorted { $0.value > $1.value }.map(\.key)
        XCTAssertEqual(Set(order.prefix(2)), ["t1", "v1"], "\(order)")
        XCTAssertEqual(order[2], "both", "\(order)")
    }
}

final class TextEvidenceTests: XCTestCase {
    func testOneSharedWordIsNoEvidence() {
        XCTAssertEqual(ScoreFusion.textEvidence(found: 1, of: 6), 0)
        XCTAssertEqual(ScoreFusion.textEvidence(found: 0, of: 6), 0)
        XCTAssertEqual(ScoreFusion.textEvidence(found: 2, of: 6), 1.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(ScoreFusion.textEvidence(found: 4, of: 6), 1)
        XCTAssertEqual(ScoreFusion.textEvidence(found: 6, of: 6), 1)
        // A synonym counts 0.7 of a word.
        XCTAssertEqual(ScoreFusion.textEvidence(found: 1.7, of: 3), 0.7 / 3, accuracy: 1e-12)
    }

    func testAOneWordQueryCountsFully() {
        XCTAssertEqual(ScoreFusion.textEvidence(found: 1, of: 1), 1)
        XCTAssertEqual(ScoreFusion.textEvidence(found: 0.7, of: 1), 1)
    }

    /// Evidence scales how far a text hit rises above the text list's lowest.
    func testEvidenceScalesTheTextLift() {
        let fusion = ScoreFusion(vector: [0.5, 0.4, 0.3], text: [9, 5, 1], vectorWeight: 1.3)
        let none = fusion.score(vector: nil, text: 9, evidence: 0)
        XCTAssertEqual(none, fusion.score(vector: nil, text: nil), accuracy: 1e-12)
        let full = fusion.score(vector: nil, text: 9, evidence: 1)
        let half = fusion.score(vector: nil, text: 9, evidence: 0.5)
        XCTAssertEqual(half, (none + full) / 2, accuracy: 1e-12)
        XCTAssertGreaterThan(full, none)
    }
}

/// The pieces of provider-assisted search that need no provider.
final class AssistFusionTests: XCTestCase {
    func result(_ index: Int, _ text: String = "") -> SearchResult {
        SearchResult(rank: 0, score: 0, bookID: "b", title: "", authors: [], chunkIndex: index, startPage: 1, endPage: 1,
                     chunkRef: ChunkRef(seq: index),
                     text: text, snippet: "")
    }

    func testTheQuestionsOwnListCountsDouble() {
        // The question's list: 1, 2, 3. Two rewrites that put 4 first lift it above
        // the question's third, not above its first two (k 10: 2/11 + 1/12 > 1/11 + 1/11).
        let own = [result(1), result(2), result(3)]
        let two = SearchEngine.fuseRanks([own, [result(4), result(1)], [result(4), result(2)]], depth: 10)
        XCTAssertEqual(two.map(\.chunkIndex), [1, 2, 4, 3])
        // Three rewrites agreeing on 4 outweigh the question's own first (3/11 > 2/11).
        let three = SearchEngine.fuseRanks([own, [result(4)], [result(4)], [result(4)]], depth: 10)
        XCTAssertEqual(three.map(\.chunkIndex), [4, 1, 2, 3])
        XCTAssertEqual(three[0].score, 3.0 / 11, accuracy: 1e-12)
        XCTAssertEqual(SearchEngine.fuseRanks([[result(1), result(2)]], depth: 1).map(\.chunkIndex), [1])
    }

    func testReorderPutsTheNamedFirstAndIgnoresNonsense() {
        let list = (0..<5).map { result($0) }
        XCTAssertEqual(SearchEngine.reorder(list, by: [3, 3, 9, -1, 0]).map(\.chunkIndex), [3, 0, 1, 2, 4])
        XCTAssertEqual(SearchEngine.reorder(list, by: []).map(\.chunkIndex), [0, 1, 2, 3, 4])
    }
}

/// Each list's vote weighs by how decisive it is in this query.
final class DecisivenessTests: XCTestCase {
    func testAClearLeaderIsMoreDecisiveThanAnEvenTop() {
        let leader = Standardized([14, 6.1, 6.0, 5.9, 5.8, 5.7, 5.6])
        let even = Standardized([6.3, 6.2, 6.1, 6.0, 5.9, 1.0, 0.5])
        XCTAssertGreaterThan(leader.decisiveness, even.decisiveness)
        // The fourth root of the lead of the best over the fifth, in deviations.
        XCTAssertEqual(leader.decisiveness, pow((14 - 5.8) / leader.deviation, 0.25), accuracy: 1e-12)
        // Flat or single lists count as they always did.
        XCTAssertEqual(Standardized([0.5, 0.5]).decisiveness, 1)
        XCTAssertEqual(Standardized([0.5]).decisiveness, 1)
    }

    /// A text list with a clear winner lifts it past the vector list's top when
    /// the vector list's first five are even; with a decisive vector list it does not.
    func testTheDecisiveListDecides() {
        let text: [(String, Double)] = [("t1", 14.0), ("t2", 6.1), ("t3", 6.0), ("t4", 5.9), ("t5", 5.8), ("t6", 5.7)]
        func top(_ vector: [(String, Double)]) -> String {
            let fusion = ScoreFusion(vector: vector.map(\.1), text: text.map(\.1), vectorWeight: 1.3)
            let ids = Set(vector.map(\.0) + text.map(\.0))
            return ids.max { a, b in
                fusion.score(vector: vector.first { $0.0 == a }?.1, text: text.first { $0.0 == a }?.1)
                    < fusion.score(vector: vector.first { $0.0 == b }?.1, text: text.first { $0.0 == b }?.1)
            }!
        }
        XCTAssertEqual(top([("v1", 0.51), ("v2", 0.505), ("v3", 0.50), ("v4", 0.495), ("v5", 0.49), ("v6", 0.30)]), "t1")
        XCTAssertEqual(top([("v1", 0.90), ("v2", 0.41), ("v3", 0.40), ("v4", 0.39), ("v5", 0.38), ("v6", 0.37)]), "v1")
    }
}

final class QueryNamesTests: XCTestCase {
    func testCapitalizedWordsInsideASentenceAreNames() {
        XCTAssertEqual(QueryText.names("Van Helsing's reply after Mina, coming out of her trance near Galatz."),
                       ["helsing", "mina", "galatz"])
        // A sentence's first word may be any word.
        XCTAssertEqual(QueryText.names("Spring comes. Then Thoreau hears the geese? Ice cracks"), ["thoreau"])
        XCTAssertEqual(QueryText.names("where does the count keep his boxes"), [])
    }
}
