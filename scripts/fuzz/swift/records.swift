// libFuzzer harness: the record reader every tool reads its input through
// (LineReader, JSON.parse, Record) and ib-chunk's PageDecoder with its
// fallback to the general parser. Built and run by scripts/fuzz/run records.
//
// The input is a JSON Lines stream. It is read by LineReader from a file
// (the first byte, when it is not '{', also picks a small maxLineBytes so the
// "line is longer" path and buffer growth are reached). Each line goes where
// ChunkStream sends it: PageDecoder first (with the book id of the last book
// record, as ib-chunk does; the book "b" until one comes, so pages alone
// reach the fast path), the general parser when it declines. Besides
// crashes and sanitizer reports these invariants trap when they fail:
//   - a page PageDecoder accepts, the general parser reads as the same page
//     record (same book id, page number and text, page after the last one);
//   - a line PageDecoder declines leaves the book's text as it was;
//   - every parsed JSON value writes out as JSON that parses back equal,
//     and every record re-serialises to a line that reads back as the same record.
@testable import IBChunk
import IBCore
#if canImport(Glibc)
import Glibc
#endif

nonisolated(unsafe) let text = BookText(capacity: 1 << 12)
let decoder = PageDecoder()
let inputFD: Int32 = {
    var template = Array("/tmp/ib-fuzz-records-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    precondition(fd >= 0, "mkstemp failed")
    unlink(String(cString: template))
    return fd
}()

func check(_ ok: Bool, _ message: @autoclosure () -> String) {
    if !ok { fatalError("invariant failed: \(message())") }
}

func feed(_ line: UnsafeBufferPointer<UInt8>, bookID: inout String?, plainID: inout [UInt8]?) {
    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
    let before = (count: text.count, pages: text.pageNumbers)
    let last = text.pageNumbers.last
    let json: JSON
    do { json = try JSON.parse(line) } catch {
        check(decoder.decode(line, bookID: plainID, after: last, into: text) == nil, "PageDecoder took a line JSON.parse refuses")
        return
    }
    // Any JSON value round-trips.
    var written: [UInt8] = []
    json.write(to: &written)
    guard let again = try? JSON.parse(written) else { check(false, "JSON wrote unparseable \(String(decoding: written, as: UTF8.self))"); return }
    check(again == json, "JSON round trip changed \(String(decoding: written, as: UTF8.self))")

    let record = try? Record(json)
    if let page = decoder.decode(line, bookID: plainID, after: last, into: text) {
        guard case .page(let p)? = record else { check(false, "PageDecoder took a line that is no page record"); return }
        check(p.page == page, "page \(page) decoded, \(p.page) parsed")
        check(p.bookID == bookID, "page of book \(p.bookID) decoded into \(bookID ?? "nil")")
        check(last.map { page > $0 } ?? (page >= 1), "page \(page) decoded after \(String(describing: last))")
        let start = text.pageStarts.last!
        let decoded = Array(UnsafeBufferPointer(start: text.base + start, count: text.count - start))
        check(decoded == Array(p.text.utf8), "page text decoded differs from parsed")
    } else {
        check(text.count == before.count && text.pageNumbers == before.pages, "a declined line changed the book's text")
    }
    guard let record else { return }
    var out: [UInt8] = []
    record.write(to: &out)
    guard let back = try? Record(JSON.parse(out)) else { check(false, "record wrote an unreadable line"); return }
    switch (record, back) {
    case (.book(let a), .book(let b)): check(a == b, "book record round trip")
    case (.page(let a), .page(let b)): check(a == b, "page record round trip")
    case (.chunk(let a), .chunk(let b)):
        // Embeddings pass through Float; a second round is exact.
        var out2: [UInt8] = []
        Record.chunk(b).write(to: &out2)
        check(out2 == out, "chunk record round trip")
        check(a.text == b.text && a.index == b.index && a.bookID == b.bookID, "chunk record fields")
    case (.other(let t1, let o1), .other(let t2, let o2)): check(t1 == t2 && o1 == o2, "record round trip")
    default: check(false, "record changed type on a round trip")
    }
    if case .book(let b) = record {
        bookID = b.id
        var id: [UInt8] = []
        JSON.writeString(b.id, to: &id)
        plainID = id.count == b.id.utf8.count + 2 ? Array(b.id.utf8) : nil
        text.removeAll()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    // One unlinked temporary file, rewritten for each input; LineReader opens it by its /proc path.
    guard ftruncate(inputFD, 0) == 0 else { return 0 }
    let fd = inputFD
    var off = 0
    while off < size { let n = pwrite(fd, data! + off, size - off, off_t(off)); if n <= 0 { return 0 }; off += n }
    let maxLine = size > 0 && data![0] != UInt8(ascii: "{") ? Int(data![0]) * 4 + 1 : LineReader.defaultMaxLineBytes
    text.removeAll()
    var bookID: String? = "b"
    var plainID: [UInt8]? = Array("b".utf8)
    do {
        let reader = try LineReader(path: "/proc/self/fd/\(fd)", maxLineBytes: maxLine)
        try reader.forEachLine { line in feed(line, bookID: &bookID, plainID: &plainID) }
    } catch {}  // a refused line (too long) is an error, not a finding
    return 0
}
