import XCTest
import IBCore
@testable import IBParse

/// Text fidelity: every format's words against the EPUB's, in order, by a word-level diff
/// (the longest common subsequence of normalized words). Bar: DOCX, HTML, Markdown and text
/// recover at least 99% of the EPUB's words, PDF at least 98%.
final class FidelityTests: XCTestCase {
    func testSampleBooksRecoverTheEPUBWords() throws {
        var report: [String] = []
        for book in ["sherlock", "devils-dictionary"] {
            let reference = try words(book + ".epub")
            XCTAssertGreaterThan(reference.count, 50_000)
            var ids: [String: Int] = [:]
            func encode(_ w: [String]) -> [Int] { w.map { word in ids[word] ?? { ids[word] = ids.count; return ids.count - 1 }() } }
            let a = encode(reference)
            for (format, bar) in [("txt", 99.0), ("md", 99.0), ("html", 99.0), ("docx", 99.0), ("pdf", 98.0)] {
                let b = encode(try words(book + "." + format))
                let common = WordDiff.lcsLength(a[...], b[...])
                let recovered = 100 * Double(common) / Double(a.count)
                report.append("\(book).\(format): \(String(format: recovered)) % of \(a.count) EPUB words")
                XCTAssertGreaterThanOrEqual(recovered, bar, "\(book).\(format)")
            }
        }
        print("Fidelity (words of the EPUB recovered, in order):\n  " + report.joined(separator: "\n  "))
    }

    func testLCSMatchesTheDynamicProgramOrIsAConservativeBound() {
        XCTAssertEqual(WordDiff.lcsLength([1, 2, 3, 4, 5][...], [1, 3, 9, 4, 5][...]), 4)
        XCTAssertEqual(WordDiff.lcsLength([7, 7, 7][...], [7, 8, 7][...]), 2)
        XCTAssertEqual(WordDiff.lcsLength([][...], [1][...]), 0)
        // Small inputs are exact (the dynamic program); large ones anchor on unique words (a lower bound).
        var seed: UInt64 = 42
        for _ in 0..<30 {
            func next() -> Int { seed = seed &* 6364136223846793005 &+ 1; return Int(seed >> 60) }
            let a = (0..<(next() * 30)).map { _ in next() }, b = (0..<(next() * 30)).map { _ in next() }
            XCTAssertEqual(WordDiff.lcsLength(a[...], b[...]), WordDiff.dynamicLCS(a[...], b[...]))
        }
    }

    func words(_ name: String) throws -> [String] {
        let (_, pages) = try parseFile(fixtureBooks + "/" + name)
        return normalizedWords(pages.map(\.text).joined(separator: "\n"))
    }
}

extension String {
    init(format value: Double) {
        let scaled = (value * 1000).rounded() / 1000
        self = "\(scaled)"
    }
}

/// A lower bound of the LCS length of word sequences (exact on real text), patience-style: common prefix and suffix are
/// stripped, words unique in both halves anchor the alignment (their longest
/// increasing run), and the gaps between anchors recurse; small gaps without
/// anchors use the exact dynamic program.
enum WordDiff {
    static func lcsLength(_ a: ArraySlice<Int>, _ b: ArraySlice<Int>) -> Int {
        var a = a, b = b
        var common = 0
        while let x = a.first, let y = b.first, x == y { a = a.dropFirst(); b = b.dropFirst(); common += 1 }
        while let x = a.last, let y = b.last, x == y { a = a.dropLast(); b = b.dropLast(); common += 1 }
        if a.isEmpty || b.isEmpty { return common }
        if a.count * b.count <= 250_000 { return common + dynamicLCS(a, b) }
        // Words that occur exactly once on each side.
        var countA: [Int: Int] = [:], countB: [Int: Int] = [:], positionB: [Int: Int] = [:]
        for w in a { countA[w, default: 0] += 1 }
        for (i, w) in zip(b.indices, b) { countB[w, default: 0] += 1; positionB[w] = i }
        var pairs: [(Int, Int)] = []
        for (i, w) in zip(a.indices, a) where countA[w] == 1 && countB[w] == 1 { pairs.append((i, positionB[w]!)) }
        if pairs.isEmpty {
            if a.count * b.count <= 4_000_000 { return common + dynamicLCS(a, b) }
            // Too big and no anchors: split the longer side in half (a lower bound, rarely reached).
            let midA = a.startIndex + a.count / 2, midB = b.startIndex + b.count / 2
            return common + lcsLength(a[..<midA], b[..<midB]) + lcsLength(a[midA...], b[midB...])
        }
        // Longest increasing subsequence of the b positions (patience sorting).
        var tails: [Int] = [], tailIndex: [Int] = [], previous = [Int](repeating: -1, count: pairs.count)
        for (k, pair) in pairs.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi { let mid = (lo + hi) / 2; if tails[mid] < pair.1 { lo = mid + 1 } else { hi = mid } }
            if lo > 0 { previous[k] = tailIndex[lo - 1] }
            if lo == tails.count { tails.append(pair.1); tailIndex.append(k) } else { tails[lo] = pair.1; tailIndex[lo] = k }
        }
        var chain: [(Int, Int)] = []
        var k = tailIndex.last!
        while k >= 0 { chain.append(pairs[k]); k = previous[k] }
        chain.reverse()
        var total = common + chain.count
        var startA = a.startIndex, startB = b.startIndex
        for (i, j) in chain {
            total += lcsLength(a[startA..<i], b[startB..<j])
            startA = i + 1; startB = j + 1
        }
        return total + lcsLength(a[startA...], b[startB...])
    }

    static func dynamicLCS(_ a: ArraySlice<Int>, _ b: ArraySlice<Int>) -> Int {
        if a.isEmpty || b.isEmpty { return 0 }
        let bb = Array(b)
        var row = [Int32](repeating: 0, count: bb.count + 1), next = row
        for x in a {
            for j in 0..<bb.count {
                next[j + 1] = x == bb[j] ? row[j] + 1 : max(row[j + 1], next[j])
            }
            swap(&row, &next)
        }
        return Int(row[bb.count])
    }
}
