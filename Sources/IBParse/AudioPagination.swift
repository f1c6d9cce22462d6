// An audio book's pages: about a minute of speech each, cut at a pause
// between transcribed segments, and a chapter mark always starts a new page.
// A pure function over the segments (times and text), so it is tested
// without audio.
import IBAudio
import IBCore

/// One stretch of transcribed speech: what the recogniser heard between two times.
public struct SpeechPiece: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var text: String
    public init(start: Double, end: Double, text: String) { self.start = start; self.end = end; self.text = text }
}

/// A page of an audio book before it becomes a record.
struct AudioPage: Sendable, Equatable {
    var start: Double
    var end: Double
    var text: String
    /// The chapter it belongs to (an index into the chapters), nil without chapters.
    var chapter: Int?
    /// Whether the page is its chapter's first.
    var startsChapter: Bool
}

enum AudioPagination {
    /// Seconds of speech a page aims at.
    static let target = 60.0

    static func pages(_ segments: [SpeechPiece], chapters: [AudioChapter], target: Double = target) -> [AudioPage] {
        var pages: [AudioPage] = []
        var group: [SpeechPiece] = []
        var groupChapter: Int? = nil
        func flush() {
            guard !group.isEmpty else { return }
            for (i, range) in cuts(group, target: target).enumerated() {
                let piece = group[range]
                pages.append(AudioPage(start: piece.first!.start, end: piece.last!.end,
                                       text: piece.map(\.text).joined(separator: " "),
                                       chapter: groupChapter, startsChapter: i == 0 && groupChapter != nil))
            }
            group.removeAll()
        }
        var cursor = 0
        for segment in segments {
            let text = segment.text.collapsedWhitespace
            guard !text.isEmpty else { continue }
            let chapter = chapterIndex(of: segment, in: chapters, from: &cursor)
            if chapter != groupChapter { flush(); groupChapter = chapter }
            group.append(SpeechPiece(start: segment.start, end: max(segment.end, segment.start), text: text))
        }
        flush()
        return pages
    }

    /// The chapter holding the segment's middle (segments come in time order, so the
    /// search moves forward from `cursor`).
    static func chapterIndex(of segment: SpeechPiece, in chapters: [AudioChapter], from cursor: inout Int) -> Int? {
        guard !chapters.isEmpty else { return nil }
        let middle = (segment.start + segment.end) / 2
        while cursor + 1 < chapters.count && chapters[cursor + 1].start <= middle { cursor += 1 }
        return cursor
    }

    /// Splits one chapter's segments into page ranges. From each page's start, the cut is
    /// chosen among the boundaries that make a page of 2/3 to 3/2 of the target: the
    /// longest pause wins (pauses over 2 s count as 2 s), less a little for straying from
    /// the target. A rest shorter than a third of the target joins the page before.
    static func cuts(_ segments: [SpeechPiece], target: Double) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var first = 0
        let n = segments.count
        while first < n {
            let pageStart = segments[first].start
            if segments[n - 1].end - pageStart <= target * 1.5 {
                ranges.append(first..<n); break
            }
            var best: (end: Int, score: Double)? = nil
            var fallback: Int? = nil
            for k in first..<(n - 1) {
                let length = segments[k].end - pageStart
                if length < target * 2 / 3 { continue }
                if fallback == nil { fallback = k + 1 }
                if length > target * 1.5 { break }
                let pause = min(max(segments[k + 1].start - segments[k].end, 0), 2)
                let score = pause - 0.5 * abs(length - target) / target
                if best == nil || score > best!.score { best = (k + 1, score) }
            }
            var end = best?.end ?? fallback ?? n
            if end < n && segments[n - 1].end - segments[end].start < target / 3 { end = n }
            ranges.append(first..<end)
            first = end
        }
        return ranges
    }
}
