// Paragraph-aware chunking with exact page ranges.
//
// A book's pages are joined with "\n" into one text and cut into units
// (Units.swift) whose token counts add up exactly: BERT never makes a piece
// across whitespace or punctuation, so a chunk's token count is the sum of
// its units'. Each chunk takes as many units as fit the budget, then ends at
// the strongest boundary that still leaves it well filled: a paragraph break,
// else a line break, else a sentence end, else a word. The next chunk starts
// far enough back to overlap by the configured number of tokens.
import Dispatch
import IBCore
import IBTokenizer

public struct ChunkerOptions: Sendable {
    public enum Unit: String, Sendable { case tokens, words }
    /// Chunk size in model tokens, [CLS] and [SEP] included (or in words).
    public var size: Int
    /// Tokens (or words) shared with the previous chunk.
    public var overlap: Int
    public var unit: Unit

    public init(size: Int, overlap: Int, unit: Unit = .tokens) {
        self.size = size; self.overlap = overlap; self.unit = unit
    }

    /// About 15% overlap, the default.
    public static func defaultOverlap(size: Int) -> Int { Int((Double(size) * 0.15).rounded()) }
}

public final class Chunker {
    let tokenizer: WordPieceTokenizer?
    public let options: ChunkerOptions
    /// Tokens available to text: [CLS] and [SEP] take two when sizing in tokens.
    var budget: Int { options.unit == .tokens ? options.size - 2 : options.size }

    public init(tokenizer: WordPieceTokenizer?, options: ChunkerOptions) throws(IBError) {
        if options.unit == .tokens && tokenizer == nil { throw IBError("sizing in tokens needs the model's tokenizer") }
        if options.size < (options.unit == .tokens ? 8 : 1) { throw IBError.usage("chunk size \(options.size) is too small") }
        if options.overlap < 0 || options.overlap * 2 > options.size {
            throw IBError.usage("overlap must be between 0 and half the chunk size")
        }
        self.tokenizer = tokenizer
        self.options = options
    }

    /// The chunks of one book, whose pages come in order.
    public func chunks(bookID: String, pages: [PageRecord]) -> [ChunkRecord] {
        // The book text: pages joined by "\n", and where each page starts.
        var text: [UInt8] = []
        text.reserveCapacity(pages.reduce(0) { $0 + $1.text.utf8.count + 1 })
        var pageStarts: [Int] = []
        for (i, page) in pages.enumerated() {
            if i > 0 { text.append(0x0A) }
            pageStarts.append(text.count)
            text.append(contentsOf: page.text.utf8)
        }
        return text.withUnsafeBufferPointer { bytes in
            let units = makeUnitsInParallel(bytes)
            return cut(units, bytes, bookID: bookID, pages: pages, pageStarts: pageStarts)
        }
    }

    /// Texts above this size are cut into units on both cores.
    static let parallelThreshold = 1 << 18

    /// Splits the text at whitespace into one part per core, makes each
    /// part's units on its own thread, and joins them. Only the boundary in
    /// front of each later part's first unit needs looking at again.
    func makeUnitsInParallel(_ b: UnsafeBufferPointer<UInt8>) -> Units {
        let parts = 2
        guard b.count >= Chunker.parallelThreshold else { return makeUnits(b, 0..<b.count, &cache) }
        var cuts = [0]
        for k in 1..<parts {
            var p = b.count * k / parts
            while p < b.count && !TextScan.isWhitespace(UInt32(b[p])) { p += 1 }  // ASCII whitespace only: safe in UTF-8
            cuts.append(p)
        }
        cuts.append(b.count)
        var results = [Units](repeating: Units(), count: parts)
        var caches = [cache] + (1..<parts).map { _ in TokenCountCache() }
        let ranges = (0..<parts).map { cuts[$0]..<cuts[$0 + 1] }
        results.withUnsafeMutableBufferPointer { out in
            caches.withUnsafeMutableBufferPointer { caches in
                // Each worker writes only its own slot of `out` and `caches`.
                let shared = UncheckedSendable((self, b, out.baseAddress!, caches.baseAddress!, ranges))
                DispatchQueue.concurrentPerform(iterations: parts) { k in
                    let (chunker, b, out, caches, ranges) = shared.value
                    out[k] = chunker.makeUnits(b, ranges[k], &caches[k])
                }
            }
        }
        cache = caches[0]
        var units = results[0]
        for k in 1..<parts where results[k].count > 0 {
            var part = results[k]
            if units.count > 0 {
                // The gap between the parts decides the first unit's boundary.
                let gapStart = Int(units.end[units.count - 1]), gapEnd = Int(part.start[0])
                let newlines = b[gapStart..<gapEnd].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                part.before[0] = newlines >= 2 ? .paragraph : newlines == 1 ? .line
                    : TextScan.endsSentence(b, Int(units.start[units.count - 1]), gapStart) ? .sentence : .word
            }
            units.start += part.start; units.end += part.end; units.tokens += part.tokens; units.before += part.before
        }
        return units
    }

    // MARK: units

    var cache = TokenCountCache()

    func count(_ bytes: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, _ cache: inout TokenCountCache) -> Int {
        switch options.unit {
        case .words: return 1
        case .tokens:
            let tokenizer = self.tokenizer!
            return cache.count(bytes, s, e) { tokenizer.countTokens(utf8: UnsafeBufferPointer(rebasing: bytes[s..<e])) }
        }
    }

    func makeUnits(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ cache: inout TokenCountCache) -> Units {
        var units = Units()
        units.start.reserveCapacity(b.count / 5)
        var newlines = 0          // in the current gap
        var sawGap = false
        var runStart = -1
        var prevRunEndsSentence = false
        var i = range.lowerBound

        func boundary() -> BoundaryStrength {
            if units.count == 0 { return .paragraph }
            if newlines >= 2 { return .paragraph }
            if newlines == 1 { return .line }
            if prevRunEndsSentence { return .sentence }
            return .word
        }
        func closeRun(_ end: Int) {
            guard runStart >= 0 else { return }
            addRun(runStart, end, boundary(), &units, b, &cache)
            prevRunEndsSentence = TextScan.endsSentence(b, runStart, end)
            runStart = -1
            newlines = 0
            sawGap = false
        }
        while i < range.upperBound {
            let byte = b[i]
            if byte < 0x80 {  // ASCII: no ideographs, whitespace by table
                if TextScan.asciiWhitespace[Int(byte)] {
                    closeRun(i)
                    if byte == 0x0A { newlines += 1 }
                    sawGap = true
                } else if runStart < 0 {
                    runStart = i
                }
                i += 1
                continue
            }
            let (v, length) = TextScan.scalar(b, i)
            if TextScan.isWhitespace(v) {
                closeRun(i)
                if v == 0x0A { newlines += 1 }
                sawGap = true
            } else if TextScan.isIdeograph(v) {
                closeRun(i)
                let strength: BoundaryStrength = units.count == 0 ? .paragraph
                    : newlines >= 2 ? .paragraph : newlines == 1 ? .line
                    : prevRunEndsSentence ? .sentence : .word
                units.append(i, i + length, count(b, i, i + length, &cache), strength)
                prevRunEndsSentence = false
                newlines = 0
                sawGap = false
            } else if runStart < 0 {
                runStart = i
            }
            i += length
        }
        closeRun(range.upperBound)
        _ = sawGap
        return units
    }

    /// Adds one whitespace-free run, cutting it when it alone exceeds the budget.
    func addRun(_ s: Int, _ e: Int, _ strength: BoundaryStrength, _ units: inout Units, _ b: UnsafeBufferPointer<UInt8>,
                _ cache: inout TokenCountCache) {
        let tokens = count(b, s, e, &cache)
        if tokens <= budget { units.append(s, e, tokens, strength); return }
        // Too long: first at punctuation (pieces stay exact), then between scalars.
        var pieceStart = s
        var first = true
        var i = s
        func emit(_ pe: Int) {
            guard pe > pieceStart else { return }
            addPiece(pieceStart, pe, first ? strength : .inWord, &units, b, &cache)
            first = false
            pieceStart = pe
        }
        while i < e {
            let (v, length) = TextScan.scalar(b, i)
            if TextScan.isPunctuation(v) { emit(i); i += length; emit(i); continue }
            i += length
        }
        emit(e)
    }

    func addPiece(_ s: Int, _ e: Int, _ strength: BoundaryStrength, _ units: inout Units, _ b: UnsafeBufferPointer<UInt8>,
                  _ cache: inout TokenCountCache) {
        let tokens = count(b, s, e, &cache)
        if tokens <= budget { units.append(s, e, tokens, strength); return }
        // A letter run longer than the budget: take as many scalars as fit.
        var start = s
        var strength = strength
        while start < e {
            var end = start
            var best = start
            while end < e {
                end += TextScan.scalar(b, end).length
                if count(b, start, end, &cache) <= budget { best = end } else { break }
            }
            if best == start { best = start + TextScan.scalar(b, start).length }
            units.append(start, best, count(b, start, best, &cache), strength)
            strength = .inWord
            start = best
        }
    }

    // MARK: cutting

    /// The least fill (fraction of the budget) a chunk must reach to end at a boundary of this strength.
    static func minimumFill(_ strength: BoundaryStrength) -> Double {
        switch strength {
        case .paragraph: 0.5
        case .line: 0.65
        case .sentence: 0.65
        case .word, .inWord: 0
        }
    }

    func cut(_ units: Units, _ b: UnsafeBufferPointer<UInt8>, bookID: String, pages: [PageRecord], pageStarts: [Int]) -> [ChunkRecord] {
        let n = units.count
        guard n > 0 else { return [] }
        var prefix = [Int](repeating: 0, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + Int(units.tokens[i]) }
        let budget = self.budget
        let minimumTokens = (0...4).map { Int((Chunker.minimumFill(BoundaryStrength(rawValue: UInt8($0))!) * Double(budget)).rounded(.up)) }
        var chunks: [ChunkRecord] = []
        var s = 0
        while s < n {
            // The furthest end that fits.
            var lo = s + 1, hi = n
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if prefix[mid] - prefix[s] <= budget { lo = mid } else { hi = mid - 1 }
            }
            var e = lo
            if e < n {
                // End at the strongest boundary that leaves the chunk full enough.
                var bestStrength = BoundaryStrength.inWord
                var bestEnd = -1
                var k = e
                while k > s + 1 {
                    let strength = units.before[k]
                    if (bestEnd < 0 || strength > bestStrength) && prefix[k] - prefix[s] >= minimumTokens[Int(strength.rawValue)] {
                        bestStrength = strength
                        bestEnd = k
                        if strength == .paragraph { break }
                    }
                    if bestStrength >= .word && prefix[k] - prefix[s] < minimumTokens[Int(BoundaryStrength.paragraph.rawValue)] { break }
                    k -= 1
                }
                if bestEnd >= 0 { e = bestEnd }
            }
            chunks.append(makeChunk(units, b, s, e, index: chunks.count, tokens: prefix[e] - prefix[s],
                                    bookID: bookID, pages: pages, pageStarts: pageStarts))
            if e >= n { break }
            // Step back for the overlap, but always move forward. Within the
            // overlap, prefer starting at a sentence or line, if that keeps
            // at least half of it.
            var next = e
            while next > s + 1 && prefix[e] - prefix[next - 1] <= options.overlap { next -= 1 }
            var aligned = next
            while aligned < e && units.before[aligned] < .sentence { aligned += 1 }
            if aligned < e && 2 * (prefix[e] - prefix[aligned]) >= options.overlap { next = aligned }
            s = max(next, s + 1)
        }
        return chunks
    }

    func makeChunk(_ units: Units, _ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, index: Int, tokens: Int,
                   bookID: String, pages: [PageRecord], pageStarts: [Int]) -> ChunkRecord {
        let startByte = Int(units.start[s]), endByte = Int(units.end[e - 1])
        let startPage = pageIndex(containing: startByte, pageStarts)
        let endPage = pageIndex(containing: endByte - 1, pageStarts)
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[startByte..<endByte]), as: UTF8.self)
        return ChunkRecord(
            bookID: bookID, index: index,
            startPage: pages[startPage].page, endPage: pages[endPage].page,
            startOffset: scalarCount(b, from: pageStarts[startPage], to: startByte),
            endOffset: scalarCount(b, from: pageStarts[endPage], to: endByte),
            tokenCount: options.unit == .tokens ? tokens + 2 : tokens,
            text: text)
    }

    func pageIndex(containing byte: Int, _ pageStarts: [Int]) -> Int {
        var lo = 0, hi = pageStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if pageStarts[mid] <= byte { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    func scalarCount(_ b: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int {
        var n = 0
        for i in from..<to where b[i] & 0xC0 != 0x80 { n += 1 }
        return n
    }
}

/// Hands values that are only read, or written at disjoint places, to worker threads.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
