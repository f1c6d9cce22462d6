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
        let text = BookText(capacity: pages.reduce(0) { $0 + $1.text.utf8.count + 1 })
        var times = ChunkTimes()
        for page in pages {
            text.beginPage(page.page)
            times.add(page)
            var pageText = page.text
            pageText.withUTF8 { text.append($0) }
        }
        let units = makeUnitsInParallel(text.bytes)
        return cut(units, text.bytes).map { span in
            let end = units.end(span.lastUnit, text.bytes)
            let (startPage, endPage, startOffset, endOffset) = place(span.start, end, text)
            var chunk = ChunkRecord(
                bookID: bookID, index: span.index, startPage: startPage, endPage: endPage,
                startOffset: startOffset, endOffset: endOffset, tokenCount: span.tokenCount,
                text: String(decoding: UnsafeBufferPointer(rebasing: text.bytes[span.start..<end]), as: UTF8.self))
            if times.any, let s = times.time(at: span.start, text), let e = times.time(at: max(span.start, end - 1), text) {
                chunk.extra["start_time"] = .number((s * 1000).rounded() / 1000)
                chunk.extra["end_time"] = .number((max(e, s) * 1000).rounded() / 1000)
            }
            return chunk
        }
    }

    /// Writes the chunk records of one book, as `chunks` makes them, to `output`.
    func writeChunks(bookID: String, text: BookText, units: Units? = nil, structure: ChunkStructure? = nil,
                     times: ChunkTimes? = nil, to output: OutputStream) {
        let units = units ?? makeUnitsInParallel(text.bytes)
        let spans = cut(units, text.bytes)
        guard !spans.isEmpty else { return }
        var id: [UInt8] = []
        JSON.writeString(bookID, to: &id)
        let blocks = (spans.count + Chunker.block - 1) / Chunker.block
        writers.withUnsafeMutableBufferPointer { writers in
            let writers = writers.baseAddress!
            func send(_ k: Int) {
                output.write(UnsafeBufferPointer(start: writers[k].base, count: writers[k].count))
                writers[k].removeAll()
            }
            func write(block b: Int, into k: Int) {
                for n in b * Chunker.block..<min(spans.count, (b + 1) * Chunker.block) {
                    writeChunk(spans[n], after: n > 0 ? spans[n - 1] : nil, units, bookID: id, text: text, structure: structure,
                               times: times, to: &writers[k])
                }
            }
            guard blocks >= 4 else {
                for b in 0..<blocks { write(block: b, into: 0); send(0) }
                return
            }
            // A large book's odd blocks are written on the other core, into
            // two buffers in turn; this thread writes the even ones and sends
            // each block out in order.
            let ready = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
            let free = [DispatchSemaphore(value: 1), DispatchSemaphore(value: 1)]
            let done = DispatchSemaphore(value: 0)
            let shared = UncheckedSendable((self, writers, spans, units, id, text, blocks, ready, free, done, structure, times))
            DispatchQueue.global().async {
                let (chunker, writers, spans, units, id, text, blocks, ready, free, done, structure, times) = shared.value
                for b in stride(from: 1, to: blocks, by: 2) {
                    let k = 1 + (b / 2) % 2
                    free[k - 1].wait()
                    for n in b * Chunker.block..<min(spans.count, (b + 1) * Chunker.block) {
                        chunker.writeChunk(spans[n], after: n > 0 ? spans[n - 1] : nil, units, bookID: id, text: text,
                                           structure: structure, times: times, to: &writers[k])
                    }
                    ready[k - 1].signal()
                }
                done.signal()
            }
            for b in 0..<blocks {
                if b % 2 == 0 {
                    write(block: b, into: 0)
                    send(0)
                } else {
                    let k = 1 + (b / 2) % 2
                    ready[k - 1].wait()
                    send(k)
                    free[k - 1].signal()
                }
            }
            done.wait()
        }
    }

    /// Chunks per block when two threads write a book's records.
    static let block = 256

    /// Chunk lines being written: this thread's, and two for the other core. Kept across books.
    var writers = [ByteWriter(), ByteWriter(), ByteWriter()]

    deinit {
        writers.forEach { $0.deallocate() }
        caches.deinitialize(count: 2)
        caches.deallocate()
    }

    /// One chunk record line, as ChunkRecord.write writes it; `previous` is the chunk before it.
    func writeChunk(_ span: Span, after previous: Span?, _ units: Units, bookID: [UInt8], text: BookText,
                    structure: ChunkStructure? = nil, times: ChunkTimes? = nil, to out: inout ByteWriter) {
        // The end is found here rather than in `cut`: the text is read here anyway.
        let end = units.end(span.lastUnit, text.bytes)
        // The chunk's own text starts where the one before ended (it opens with that one's last
        // lines, the overlap): its section is where its own text starts (as ib-index reads it).
        var ownStart = span.start
        if let previous {
            var p = units.end(previous.lastUnit, text.bytes)
            // The blank line after the chunk before is no text: a heading right after it opens this one's.
            while p < end, text.bytes[p] == 0x20 || text.bytes[p] == 0x0A || text.bytes[p] == 0x09 || text.bytes[p] == 0x0D { p += 1 }
            if p > span.start && p < end { ownStart = p }
        }
        let (startPage, endPage, startOffset, endOffset) = place(span.start, end, text)
        out.append("{\"type\":\"chunk\",\"book_id\":")
        bookID.withUnsafeBufferPointer { out.append($0) }
        out.append(",\"index\":"); out.append(span.index)
        out.append(",\"start_page\":"); out.append(startPage)
        out.append(",\"end_page\":"); out.append(endPage)
        out.append(",\"start_offset\":"); out.append(startOffset)
        out.append(",\"end_offset\":"); out.append(endOffset)
        out.append(",\"token_count\":"); out.append(span.tokenCount)
        out.append(",\"text\":")
        out.appendJSONString(text.base + span.start, end - span.start)
        structure?.write(start: ownStart, end: end, to: &out)
        times?.write(start: span.start, end: end, text, to: &out)
        out.append("}\n")
    }

    /// A chunk's pages and scalar offsets.
    func place(_ start: Int, _ end: Int, _ text: BookText) -> (startPage: Int, endPage: Int, startOffset: Int, endOffset: Int) {
        let starts = text.pageStarts
        let startPage = pageIndex(containing: start, starts)
        let endPage = pageIndex(containing: end - 1, starts)
        let startOffset = Bytes.scalarCount(text.base, from: starts[startPage], to: start)
        // On one page, the end is counted on from the start.
        let endOffset = startPage == endPage ? startOffset + Bytes.scalarCount(text.base, from: start, to: end)
            : Bytes.scalarCount(text.base, from: starts[endPage], to: end)
        return (text.pageNumbers[startPage], text.pageNumbers[endPage], startOffset, endOffset)
    }

    /// Texts above this size are cut into units on both cores.
    static let parallelThreshold = 1 << 18

    /// The book's units, on both cores when it is large: the text is cut in
    /// two at whitespace and each part's units are made on its own thread.
    func makeUnitsInParallel(_ b: UnsafeBufferPointer<UInt8>) -> Units {
        storage.reserve(b.count + 2, keeping: 0)
        var first = UnitWriter(storage, base: 0)
        var state = UnitState()
        guard b.count >= Chunker.parallelThreshold else {
            touched &+= makeUnits(b, 0..<b.count, &caches.pointee, &first, &state)
            return Units(storage, first)
        }
        let cut = Chunker.wordBoundary(b, from: b.count / 2)
        var second = UnitWriter(storage, base: cut + 1)
        var secondState = UnitState()
        var sinks: [UInt64] = [0, 0]
        do {
            sinks.withUnsafeMutableBufferPointer { sinks in
                withUnsafeMutablePointer(to: &first) { first in
                    withUnsafeMutablePointer(to: &second) { second in
                        withUnsafeMutablePointer(to: &state) { state in
                            withUnsafeMutablePointer(to: &secondState) { secondState in
                                // Each worker writes only its own part's writer, state, cache and sink.
                                let shared = UncheckedSendable((self, b, caches, sinks.baseAddress!,
                                                                first, second, state, secondState, cut))
                                DispatchQueue.concurrentPerform(iterations: 2) { k in
                                    let (chunker, b, caches, sinks, first, second, state, secondState, cut) = shared.value
                                    if k == 0 {
                                        sinks[0] = chunker.makeUnits(b, 0..<cut, &caches[0], &first.pointee, &state.pointee)
                                    } else {
                                        sinks[1] = chunker.makeUnits(b, cut..<b.count, &caches[1], &second.pointee, &secondState.pointee)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        touched &+= sinks[0] &+ sinks[1]
        return join(first, state, second, at: cut, b)
    }

    /// The first ASCII whitespace at or after `i` (or the end): a place no run crosses.
    static func wordBoundary(_ b: UnsafeBufferPointer<UInt8>, from i: Int) -> Int {
        var i = i
        while i < b.count && !TextScan.isASCIIWhitespace(b[i]) { i += 1 }  // ASCII whitespace only: safe in UTF-8
        return i
    }

    /// The units of two parts made apart, the second from `cut` with a fresh
    /// state: its first boundary is set as one pass over the whole text would
    /// have set it, from the first part's final state. Then the historical split.
    func join(_ first: UnitWriter, _ state: UnitState, _ second: UnitWriter, at cut: Int, _ b: UnsafeBufferPointer<UInt8>) -> Units {
        if second.count > 0 {
            var newlines = state.newlines
            for i in cut..<Int(second.start[0]) where b[i] == 0x0A { newlines += 1 }
            second.before[0] = Chunker.boundary(first.count, newlines, state.prevRunEndsSentence)
        }
        let units = Units(storage, first, second)
        applyHistoricalSplit(units, b)
        return units
    }

    /// Books of parallelThreshold bytes or more were once always cut in two at
    /// the first whitespace from the middle, and the boundary in front of the
    /// second part's first unit was judged from the first part's last unit
    /// rather than its last run. That differs only after a run too long for a
    /// chunk; it is kept so that chunks stay exactly as they were.
    func applyHistoricalSplit(_ units: Units, _ b: UnsafeBufferPointer<UInt8>) {
        guard b.count >= Chunker.parallelThreshold else { return }
        let p = Chunker.wordBoundary(b, from: b.count / 2)
        // The first unit at or after p.
        var lo = 0, hi = units.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if units.start(mid) < p { lo = mid + 1 } else { hi = mid }
        }
        let k = lo
        guard k > 0 && k < units.count else { return }
        let lastStart = units.start(k - 1)
        let gapStart = units.end(k - 1, b), gapEnd = units.start(k)
        var newlines = 0
        for i in gapStart..<gapEnd where b[i] == 0x0A { newlines += 1 }
        UnsafeMutablePointer(mutating: units.before)[units.index(k)] = newlines >= 2 ? .paragraph : newlines == 1 ? .line
            : TextScan.endsSentence(b, lastStart, gapStart) ? .sentence : .word
    }

    // MARK: units

    /// One per thread making units; kept across books.
    private let caches: UnsafeMutablePointer<TokenCountCache> = {
        let caches = UnsafeMutablePointer<TokenCountCache>.allocate(capacity: 2)
        caches.initialize(to: TokenCountCache())
        (caches + 1).initialize(to: TokenCountCache())
        return caches
    }()
    func cache(_ k: Int) -> UnsafeMutablePointer<TokenCountCache> { caches + k }
    let storage = UnitStorage()
    /// Where makeUnits leaves the values its cache prefetches loaded, so they are not optimised away.
    var touched: UInt64 = 0

    @inline(__always)
    func count(_ bytes: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, _ cache: inout TokenCountCache) -> Int {
        switch options.unit {
        case .words: return 1
        case .tokens:
            let tokenizer = self.tokenizer!
            return cache.count(bytes, s, e) { tokenizer.countTokens(utf8: UnsafeBufferPointer(rebasing: bytes[s..<e])) }
        }
    }

    /// A run or ideograph found but not yet counted.
    struct Pending {
        var start: Int
        var end: Int
        var first: UInt64        // its first 8 bytes, zero-padded
        var hash: UInt64
        var strength: BoundaryStrength
        var ideograph: Bool
        var plain: Bool          // no control bytes (so no NUL)
    }

    /// Runs are counted in batches of this many: their cache lookups are
    /// started while scanning, so that they overlap instead of waiting in turn.
    static let batch = 32

    /// The units of b[range]; b must be a BookText's bytes (the token cache reads past a word's end).
    /// Makes the units of b[range], after `units` and `state` from the text
    /// before it; range ends at whitespace or at the end of the text so far.
    /// Returns a value of no meaning (see `touched`).
    func makeUnits(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ cache: inout TokenCountCache,
                   _ units: inout UnitWriter, _ state: inout UnitState) -> UInt64 {
        guard let p = b.baseAddress, !range.isEmpty else { return 0 }
        let pending = UnsafeMutablePointer<Pending>.allocate(capacity: Chunker.batch)
        defer { pending.deallocate() }
        var pendingCount = 0
        let hashing = options.unit == .tokens
        var touched: UInt64 = 0
        var newlines = state.newlines
        var prevRunEndsSentence = state.prevRunEndsSentence
        defer { state = UnitState(newlines: newlines, prevRunEndsSentence: prevRunEndsSentence) }
        var i = range.lowerBound
        let limit = range.upperBound

        while i < limit {
            // Between runs: whitespace, or an ideograph (a unit of its own).
            let c = p[i]
            var start = i
            var ideograph = false
            var plain = true
            if c < 0x80 {
                if c == 0x0A { newlines += 1; i += 1; continue }
                if TextScan.isASCIIWhitespace(c) { i += 1; continue }
            } else {
                let (v, length) = TextScan.scalar(b, i)
                if TextScan.isWhitespace(v) { i += length; continue }
                if TextClasses.isBERTChineseCharacter(v) {
                    ideograph = true
                    start = i
                    i += length
                }
            }
            if !ideograph {
                // A run of anything else up to whitespace or an ideograph (TextScan.runEnd, inlined).
                // Printable ASCII 8 bytes at a time: stop at the first byte
                // below 0x21 or above 0x7F (exact for the first such byte).
                while i + 8 <= limit {
                    let x = Bytes.load(p + i)
                    let special = ((x &- 0x2121_2121_2121_2121) & ~x & Bytes.highs) | (x & Bytes.highs)
                    if special == 0 { i += 8; continue }
                    i += special.trailingZeroBitCount >> 3
                    break
                }
                while i < limit {
                    let c = p[i]
                    if c > 0x20 && c < 0x80 { i += 1; continue }
                    if c < 0x80 {
                        if TextScan.isASCIIWhitespace(c) { break }
                        plain = false
                        i += 1
                        continue
                    }
                    let (v, length) = TextScan.scalar(b, i)
                    if TextScan.isWhitespace(v) || TextClasses.isBERTChineseCharacter(v) { break }
                    i += length
                }
            }
            let strength = Chunker.boundary(units.count + pendingCount, newlines, prevRunEndsSentence)
            var h: UInt64 = 0, first: UInt64 = 0
            if hashing && i - start <= TokenCountCache.maxKeyBytes {
                (first, h) = TokenCountCache.key(p + start, i - start)
            }
            pending[pendingCount] = Pending(start: start, end: i, first: first, hash: h, strength: strength,
                                            ideograph: ideograph, plain: plain)
            pendingCount += 1
            if pendingCount == Chunker.batch {
                touched &+= addPending(pending, pendingCount, &units, b, &cache)
                pendingCount = 0
            }
            prevRunEndsSentence = ideograph ? false : TextScan.endsSentenceQuick(b, start, i)
            newlines = 0
        }
        touched &+= addPending(pending, pendingCount, &units, b, &cache)
        return touched
    }

    /// Counts the pending runs and adds their units.
    func addPending(_ pending: UnsafeMutablePointer<Pending>, _ n: Int, _ units: inout UnitWriter, _ b: UnsafeBufferPointer<UInt8>,
                    _ cache: inout TokenCountCache) -> UInt64 {
        // First load every run's slot in one go, so that the CPU waits for
        // the misses together rather than one after another.
        let touched = tokenizer == nil ? 0 : Chunker.touch(pending, n, cache)
        let tokenizer = self.tokenizer
        let budget = self.budget
        for k in 0..<n {
            let run = pending[k]
            let length = run.end - run.start
            let tokens: Int
            if tokenizer == nil {
                tokens = 1
            } else if length <= TokenCountCache.maxKeyBytes {
                tokens = cache.count(b.baseAddress! + run.start, length, run.first, run.hash, plain: run.plain) {
                    tokenizer!.countTokens(utf8: UnsafeBufferPointer(rebasing: b[run.start..<run.end]))
                }
            } else {
                tokens = tokenizer!.countTokens(utf8: UnsafeBufferPointer(rebasing: b[run.start..<run.end]))
            }
            if run.ideograph || tokens <= budget {
                units.append(run.start, tokens, run.strength)
            } else {
                addLongRun(run.start, run.end, run.strength, &units, b, &cache)
            }
        }
        return touched
    }

    /// Loads each pending run's first cache slot (a small function of its own,
    /// so the loads go out back to back with nothing spilled between them).
    @inline(never)
    static func touch(_ pending: UnsafeMutablePointer<Pending>, _ n: Int, _ cache: TokenCountCache) -> UInt64 {
        var touched: UInt64 = 0
        for k in 0..<n { touched &+= cache.touch(pending[k].hash, pending[k].end - pending[k].start) }
        return touched
    }

    /// The boundary in front of a unit: the first is a paragraph start.
    @inline(__always)
    static func boundary(_ unitsSoFar: Int, _ newlines: Int, _ afterSentence: Bool) -> BoundaryStrength {
        unitsSoFar == 0 ? .paragraph : newlines >= 2 ? .paragraph : newlines == 1 ? .line : afterSentence ? .sentence : .word
    }

    /// A run over the budget: cut first at punctuation (pieces stay exact), then between scalars.
    func addLongRun(_ s: Int, _ e: Int, _ strength: BoundaryStrength, _ units: inout UnitWriter, _ b: UnsafeBufferPointer<UInt8>,
                    _ cache: inout TokenCountCache) {
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

    func addPiece(_ s: Int, _ e: Int, _ strength: BoundaryStrength, _ units: inout UnitWriter, _ b: UnsafeBufferPointer<UInt8>,
                  _ cache: inout TokenCountCache) {
        let tokens = count(b, s, e, &cache)
        if tokens <= budget { units.append(s, tokens, strength); return }
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
            units.append(start, count(b, start, best, &cache), strength)
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

    /// A chunk: from byte `start` of the book text to the end of unit `lastUnit`.
    struct Span {
        var index: Int
        var start: Int
        var lastUnit: Int
        var tokenCount: Int
    }

    func cut(_ units: Units, _ b: UnsafeBufferPointer<UInt8>) -> [Span] {
        let n = units.count
        guard n > 0 else { return [] }
        let budget = self.budget
        let overlap = options.overlap
        let minimumTokens = (0...4).map { Int((Chunker.minimumFill(BoundaryStrength(rawValue: UInt8($0))!) * Double(budget)).rounded(.up)) }
        let paragraphMinimum = minimumTokens[Int(BoundaryStrength.paragraph.rawValue)]
        var spans: [Span] = []
        // filled[j]: the tokens of units s..<s+j, for the chunk starting at s.
        var filled: [Int] = []
        var s = 0
        while s < n {
            // The furthest end that fits (at least one unit).
            filled.removeAll(keepingCapacity: true)
            filled.append(0)
            var total = units.tokens(s)
            filled.append(total)
            var lo = s + 1
            while lo < n {
                let next = total + units.tokens(lo)
                if next > budget { break }
                total = next
                lo += 1
                filled.append(total)
            }
            var e = lo
            if e < n {
                // End at the strongest boundary that leaves the chunk full enough.
                var bestStrength = BoundaryStrength.inWord
                var bestEnd = -1
                var k = e
                while k > s + 1 {
                    let strength = units.before(k)
                    let fill = filled[k - s]
                    if (bestEnd < 0 || strength > bestStrength) && fill >= minimumTokens[Int(strength.rawValue)] {
                        bestStrength = strength
                        bestEnd = k
                        if strength == .paragraph { break }
                    }
                    if bestStrength >= .word && fill < paragraphMinimum { break }
                    k -= 1
                }
                if bestEnd >= 0 { e = bestEnd }
            }
            let endTotal = filled[e - s]
            spans.append(Span(index: spans.count, start: units.start(s), lastUnit: e - 1,
                              tokenCount: options.unit == .tokens ? endTotal + 2 : endTotal))
            if e >= n { break }
            // Step back for the overlap, but always move forward. Within the
            // overlap, prefer starting at a sentence or line, if that keeps
            // at least half of it.
            var next = e
            while next > s + 1 && endTotal - filled[next - 1 - s] <= overlap { next -= 1 }
            var aligned = next
            while aligned < e && units.before(aligned) < .sentence { aligned += 1 }
            if aligned < e && 2 * (endTotal - filled[aligned - s]) >= overlap { next = aligned }
            s = max(next, s + 1)
        }
        return spans
    }

    func pageIndex(containing byte: Int, _ pageStarts: [Int]) -> Int {
        var lo = 0, hi = pageStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if pageStarts[mid] <= byte { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }
}

/// Hands values that are only read, or written at disjoint places, to worker threads.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
