// The fast path for page records, the bulk of ib-chunk's input: one pass
// over the line's bytes decodes the text straight into the book's buffer.
// It takes only the plain shape ib-parse writes (the known page fields, each
// once, with string, whole-number or null values, no other keys) and
// declines anything else, valid or not; the general JSON parser then reads
// that line, so results and error messages are the same either way.

struct PageDecoder {
    /// The page's number, with its text appended to `text` after
    /// `text.beginPage`; nil (and `text` unchanged) when the line needs the
    /// general parser. `bookID` is the current book's id when it needs no
    /// escaping in JSON (else nil: every page takes the general path).
    func decode(_ line: UnsafeBufferPointer<UInt8>, bookID: [UInt8]?, after lastPage: Int?, into text: BookText) -> Int? {
        guard let p = line.baseAddress, let bookID else { return nil }
        let n = line.count
        var i = 0
        var decoded = false  // the text is in `text` already
        var page = -1
        func fail() -> Int? {
            if decoded { text.abandonPage() }
            return nil
        }
        @inline(__always) func skipSpace() {
            while i < n, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0A || p[i] == 0x0D { i += 1 }
        }
        func pageFits() -> Bool { page >= 1 && (lastPage == nil || page > lastPage!) }
        skipSpace()
        guard i < n, p[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        var seen: UInt8 = 0
        var textStart = -1  // offset of the text value's opening quote, when skipped
        while true {
            skipSpace()
            guard i < n, p[i] == UInt8(ascii: "\"") else { return fail() }
            // Keys: plain bytes only.
            let keyStart = i + 1
            var j = keyStart
            while j < n, p[j] != UInt8(ascii: "\""), p[j] != UInt8(ascii: "\\") { j += 1 }
            guard j < n, p[j] == UInt8(ascii: "\"") else { return fail() }
            let key = PageDecoder.field(p + keyStart, j - keyStart)
            guard key != 0, seen & key == 0 else { return fail() }
            seen |= key
            i = j + 1
            skipSpace()
            guard i < n, p[i] == UInt8(ascii: ":") else { return fail() }
            i += 1
            skipSpace()
            guard i < n else { return fail() }
            switch key {
            case PageDecoder.type:
                guard p[i] == UInt8(ascii: "\""), i + 5 < n, p[i + 1] == UInt8(ascii: "p"), p[i + 2] == UInt8(ascii: "a"),
                      p[i + 3] == UInt8(ascii: "g"), p[i + 4] == UInt8(ascii: "e"), p[i + 5] == UInt8(ascii: "\"") else { return fail() }
                i += 6
            case PageDecoder.bookIDKey:
                // Equal to the current id, which has nothing to escape: the same bytes, then a quote.
                guard p[i] == UInt8(ascii: "\"") else { return fail() }
                let s = i + 1
                guard s + bookID.count < n, p[s + bookID.count] == UInt8(ascii: "\"") else { return fail() }
                let same = bookID.withUnsafeBufferPointer { id in id.isEmpty || memcmp(id.baseAddress!, p + s, id.count) == 0 }
                guard same else { return fail() }
                i = s + bookID.count + 1
            case PageDecoder.pageKey, PageDecoder.sectionIndex:
                var value = 0
                let s = i
                while i < n, p[i] >= 0x30, p[i] <= 0x39 { value = value &* 10 &+ Int(p[i] - 0x30); i += 1 }
                if i == s {
                    guard key == PageDecoder.sectionIndex, PageDecoder.readNull(p, n, &i) else { return fail() }
                } else {
                    guard i - s <= 15 else { return fail() }
                    // A fraction or exponent is for the general parser.
                    if i < n, p[i] == UInt8(ascii: ".") || p[i] | 0x20 == UInt8(ascii: "e") { return fail() }
                }
                if key == PageDecoder.pageKey { page = value }
            case PageDecoder.label, PageDecoder.sectionTitle:
                if p[i] == UInt8(ascii: "\"") {
                    let length = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n - i + 8) { scratch in
                        PageDecoder.string(p, n, &i, scratch.baseAddress!)
                    }
                    guard length != nil else { return fail() }
                } else {
                    guard PageDecoder.readNull(p, n, &i) else { return fail() }
                }
            default:  // text
                guard p[i] == UInt8(ascii: "\"") else { return fail() }
                let known = PageDecoder.type | PageDecoder.bookIDKey | PageDecoder.pageKey
                if seen & known == known {
                    // The usual order: decode straight into the book.
                    guard pageFits() else { return fail() }
                    text.beginPage(page)
                    text.reserve(n - i)
                    decoded = true
                    guard let length = PageDecoder.string(p, n, &i, text.end) else { return fail() }
                    text.commit(length)
                } else {
                    // Decoded once the record is known to be a page.
                    textStart = i
                    i += 1
                    while i < n {
                        let c = p[i]
                        if c == UInt8(ascii: "\"") { break }
                        i += c == UInt8(ascii: "\\") ? 2 : 1
                    }
                    guard i < n else { return fail() }
                    i += 1
                }
            }
            skipSpace()
            guard i < n else { return fail() }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            guard p[i] == UInt8(ascii: "}") else { return fail() }
            i += 1
            break
        }
        skipSpace()
        let required = PageDecoder.type | PageDecoder.bookIDKey | PageDecoder.pageKey | PageDecoder.text
        guard i == n, seen & required == required else { return fail() }
        if decoded { return page }
        guard pageFits() else { return nil }
        text.beginPage(page)
        text.reserve(n - textStart)
        var t = textStart
        guard let length = PageDecoder.string(p, n, &t, text.end) else { text.abandonPage(); return nil }
        text.commit(length)
        return page
    }

    @inline(__always)
    private static func readNull(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) -> Bool {
        guard i + 3 < n, p[i] == UInt8(ascii: "n"), p[i + 1] == UInt8(ascii: "u"), p[i + 2] == UInt8(ascii: "l"),
              p[i + 3] == UInt8(ascii: "l") else { return false }
        i += 4
        return true
    }

    static let type: UInt8 = 1, bookIDKey: UInt8 = 2, pageKey: UInt8 = 4, label: UInt8 = 8
    static let sectionIndex: UInt8 = 16, sectionTitle: UInt8 = 32, text: UInt8 = 64

    private static func field(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt8 {
        func equals(_ s: StaticString) -> Bool { s.utf8CodeUnitCount == n && memcmp(s.utf8Start, p, n) == 0 }
        switch n {
        case 4: return equals("type") ? type : equals("page") ? pageKey : equals("text") ? text : 0
        case 5: return equals("label") ? label : 0
        case 7: return equals("book_id") ? bookIDKey : 0
        case 13: return equals("section_index") ? sectionIndex : equals("section_title") ? sectionTitle : 0
        default: return 0
        }
    }

    /// Decodes the JSON string whose opening quote is at `i` into `out`
    /// (room for the raw length and 8 bytes more assumed: BookText's padding), checking it as the general parser
    /// does; returns the decoded length, or nil for anything it would reject.
    static func string(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, _ out: UnsafeMutablePointer<UInt8>) -> Int? {
        var r = i + 1
        var w = 0
        while true {
            // Copy the run up to the next quote, backslash or control byte, checking any UTF-8 in it.
            let runStart = r
            let high = Bytes.copyPlainRun(p, n, &r, out, &w)
            if high != 0 && !Bytes.isValidUTF8(p + runStart, r - runStart) { return nil }
            guard r < n else { return nil }
            let c = p[r]
            if c == 0x22 { i = r + 1; return w }
            guard c == 0x5C, r + 1 < n else { return nil }  // a control byte, or a cut-off escape
            let e = p[r + 1]
            r += 2
            switch e {
            case UInt8(ascii: "n"): out[w] = 0x0A; w += 1
            case UInt8(ascii: "\""): out[w] = 0x22; w += 1
            case UInt8(ascii: "\\"): out[w] = 0x5C; w += 1
            case UInt8(ascii: "/"): out[w] = 0x2F; w += 1
            case UInt8(ascii: "t"): out[w] = 0x09; w += 1
            case UInt8(ascii: "r"): out[w] = 0x0D; w += 1
            case UInt8(ascii: "b"): out[w] = 0x08; w += 1
            case UInt8(ascii: "f"): out[w] = 0x0C; w += 1
            case UInt8(ascii: "u"):
                guard var v = hex4(p, n, r) else { return nil }
                r += 4
                if v >= 0xD800 && v < 0xDC00 {
                    guard r + 1 < n, p[r] == 0x5C, p[r + 1] == UInt8(ascii: "u"), let low = hex4(p, n, r + 2),
                          low >= 0xDC00 && low < 0xE000 else { return nil }
                    r += 6
                    v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                } else if v >= 0xDC00 && v < 0xE000 {
                    return nil
                }
                if v < 0x80 {
                    out[w] = UInt8(v); w += 1
                } else if v < 0x800 {
                    out[w] = UInt8(0xC0 | v >> 6); out[w + 1] = UInt8(0x80 | v & 0x3F); w += 2
                } else if v < 0x10000 {
                    out[w] = UInt8(0xE0 | v >> 12); out[w + 1] = UInt8(0x80 | (v >> 6) & 0x3F)
                    out[w + 2] = UInt8(0x80 | v & 0x3F); w += 3
                } else {
                    out[w] = UInt8(0xF0 | v >> 18); out[w + 1] = UInt8(0x80 | (v >> 12) & 0x3F)
                    out[w + 2] = UInt8(0x80 | (v >> 6) & 0x3F); out[w + 3] = UInt8(0x80 | v & 0x3F); w += 4
                }
            default:
                return nil
            }
        }
    }

    @inline(__always)
    private static func hex4(_ p: UnsafePointer<UInt8>, _ n: Int, _ at: Int) -> UInt32? {
        guard at + 4 <= n else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = p[at + k]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }
}

#if canImport(Glibc)
import Glibc
#endif
