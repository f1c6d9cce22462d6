// The structure fields of chunk records: "section" (the titles of the
// innermost unit holding the chunk's start, outermost first), "date" (from
// the start's unit to the end's, each the nearest dated unit) and "voice",
// from the "structure" marks of the book's page records.
import IBCore

struct ChunkStructure: @unchecked Sendable {
    let outline: BookOutline
    /// Byte offset into the book's text where each unit starts, and where an end mark closed it (Int.max: none).
    let starts: [Int]
    let ends: [Int]
    /// Each unit's `,"section":[...]` and `,"voice":"..."`, ready to write.
    let fields: [[UInt8]]

    /// nil when the book has no marks.
    init?(marks: [(page: Int, marks: [StructureMark])], text: BookText) {
        guard !marks.isEmpty else { return nil }
        outline = BookOutline(pages: marks)
        guard !outline.isEmpty else { return nil }
        let pageIndex = Dictionary(text.pageNumbers.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        let bytes = text.bytes
        /// The byte offset of (page, scalar offset).
        func byte(page: Int, offset: Int) -> Int {
            guard let i = pageIndex[page] else { return 0 }
            let end = i + 1 < text.pageStarts.count ? text.pageStarts[i + 1] : bytes.count
            var b = text.pageStarts[i], scalars = 0
            while b < end && scalars < offset {
                b += 1
                while b < end && bytes[b] & 0xC0 == 0x80 { b += 1 }
                scalars += 1
            }
            return b
        }
        starts = outline.units.map { byte(page: $0.startPage, offset: $0.startOffset) }
        ends = outline.units.map { unit in unit.end.map { byte(page: $0.page, offset: $0.offset) } ?? Int.max }
        fields = outline.units.map { unit in
            var out: [UInt8] = Array(",\"section\":".utf8)
            JSON.array(unit.path.map { .string($0) }).write(to: &out)
            if let voice = unit.voice {
                out += Array(",\"voice\":".utf8)
                JSON.writeString(voice, to: &out)
            }
            return out
        }
    }

    /// The innermost unit holding byte `offset`: the last starting at or before it, or the
    /// unit around that one where an end mark closed it first (BookOutline.unit reads the same).
    func unit(at offset: Int) -> Int? {
        var lo = 0, hi = starts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if starts[mid] <= offset { lo = mid + 1 } else { hi = mid }
        }
        var current = lo == 0 ? nil : lo - 1
        while let u = current, ends[u] <= offset { current = outline.units[u].parent }
        return current
    }

    /// Writes the fields of a chunk spanning bytes start..<end.
    func write(start: Int, end: Int, to out: inout ByteWriter) {
        guard let first = unit(at: start) else { return }
        fields[first].withUnsafeBufferPointer { out.append($0) }
        let last = unit(at: max(start, end - 1)) ?? first
        guard let from = outline.dates(of: first)?.from ?? outline.dates(of: last)?.from,
              let to = outline.dates(of: last)?.to ?? outline.dates(of: first)?.to else { return }
        var date: [UInt8] = Array(",\"date\":{\"from\":".utf8)
        JSON.writeString(from, to: &date)
        date += Array(",\"to\":".utf8)
        JSON.writeString(to, to: &date)
        date.append(UInt8(ascii: "}"))
        date.withUnsafeBufferPointer { out.append($0) }
    }
}
