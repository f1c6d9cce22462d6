// The times of an audio book's chunks: each page record carries start_time
// and end_time (seconds); a chunk's start and end are placed inside their
// pages in proportion to the text before them (speech runs at a steady pace
// within a minute-long page), so a chunk of chapter 2 gets a time inside it.
import IBCore

struct ChunkTimes: Sendable {
    /// By page, in the order of the book's pages (BookText.pageNumbers); nil for a page without times.
    private(set) var pages: [(start: Double, end: Double)?] = []
    private(set) var any = false

    /// Records the times of the page just begun (call once per page, in order).
    mutating func add(_ page: PageRecord) {
        let start = page.extra["start_time"]?.doubleValue, end = page.extra["end_time"]?.doubleValue
        if let start, let end, start.isFinite, end.isFinite, start >= 0, end >= start {
            pages.append((start, end)); any = true
        } else {
            pages.append(nil)
        }
    }

    /// A page that took the fast path (no extra fields): no times.
    mutating func addUntimed() { pages.append(nil) }

    mutating func removeAll() { pages.removeAll(); any = false }

    /// The time at byte `offset` of the book's text, or nil when its page has none.
    func time(at offset: Int, _ text: BookText) -> Double? {
        let starts = text.pageStarts
        var lo = 0, hi = starts.count
        while lo < hi { let mid = (lo + hi) / 2; if starts[mid] <= offset { lo = mid + 1 } else { hi = mid } }
        let i = max(lo - 1, 0)
        guard i < pages.count, let page = pages[i] else { return nil }
        let pageEnd = i + 1 < starts.count ? starts[i + 1] : text.count
        return MediaTime.interpolate(start: page.start, end: page.end, offset: offset - starts[i], length: pageEnd - starts[i])
    }

    /// Writes `,"start_time":S,"end_time":E` for a chunk spanning bytes start..<end.
    func write(start: Int, end: Int, _ text: BookText, to out: inout ByteWriter) {
        guard any, let s = time(at: start, text), let e = time(at: max(start, end - 1), text) else { return }
        var field: [UInt8] = Array(",\"start_time\":".utf8)
        JSON.writeNumber((s * 1000).rounded() / 1000, to: &field)
        field += Array(",\"end_time\":".utf8)
        JSON.writeNumber((max(e, s) * 1000).rounded() / 1000, to: &field)
        field.withUnsafeBufferPointer { out.append($0) }
    }
}
