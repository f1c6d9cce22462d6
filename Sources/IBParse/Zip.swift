// A small ZIP reader over zlib's inflate, for EPUB and DOCX. It reads the
// central directory, supports stored and deflated entries, checks CRCs and
// refuses what could hurt: entry names with `..` or absolute paths,
// encryption, ZIP64, and bombs (caps on each entry's and the archive's total
// uncompressed size and on the compression ratio). Nothing is written to disk.
import CZlib

struct ZipArchive {
    struct Entry {
        let name: String
        let method, flags: UInt16
        let crc: UInt32
        let compressedSize, uncompressedSize, localHeaderOffset: Int
    }

    static let maxEntryBytes = 256 << 20
    static let maxTotalBytes = 1 << 30
    /// Uncompressed / compressed beyond this, for entries over 16 MiB, is a bomb.
    static let maxRatio = 100
    static let ratioCheckBytes = 16 << 20
    /// The documents a book's text comes from (an EPUB's spine, a DOCX's body and
    /// notes) may hold this much uncompressed in all: 64 MiB is twenty times War and
    /// Peace, and what ib-parse holds in memory grows with it (~2x).
    static let maxTextBytes = 64 << 20

    let bytes: InputBytes
    private(set) var entries: [Entry] = []
    private var byName: [String: Int] = [:]
    private var byLowerName: [String: Int] = [:]

    init(_ bytes: [UInt8]) throws(ParseError) { try self.init(InputBytes(bytes)) }

    init(_ bytes: InputBytes) throws(ParseError) {
        self.bytes = bytes
        guard let eocd = Self.findEndOfCentralDirectory(bytes) else {
            throw ParseError("corrupt or truncated ZIP archive (no end of central directory)")
        }
        let count = Int(u16(eocd + 10))
        let cdSize = Int(u32(eocd + 12))
        let cdOffset = Int(u32(eocd + 16))
        if count == 0xFFFF || cdOffset == 0xFFFF_FFFF { throw ParseError("ZIP64 archives are not supported") }
        guard cdOffset + cdSize <= eocd else { throw ParseError("corrupt or truncated ZIP archive (central directory out of range)") }
        var p = cdOffset
        var total = 0
        for _ in 0..<count {
            guard p + 46 <= bytes.count, u32(p) == 0x0201_4B50 else {
                throw ParseError("corrupt ZIP archive (bad central directory entry)")
            }
            let flags = u16(p + 8)
            let method = u16(p + 10)
            let crc = u32(p + 16)
            let compressed = Int(u32(p + 20))
            let uncompressed = Int(u32(p + 24))
            let nameLength = Int(u16(p + 28)), extraLength = Int(u16(p + 30)), commentLength = Int(u16(p + 32))
            let local = Int(u32(p + 42))
            guard p + 46 + nameLength <= bytes.count else { throw ParseError("corrupt ZIP archive (entry name out of range)") }
            let name = String(decoding: bytes[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self)
            p += 46 + nameLength + extraLength + commentLength
            try Self.checkName(name)
            if name.hasSuffix("/") { continue }  // a directory
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF { throw ParseError("ZIP64 archives are not supported") }
            if uncompressed > Self.maxEntryBytes {
                throw ParseError("ZIP entry '\(name)' is too large uncompressed (\(uncompressed) bytes; limit \(Self.maxEntryBytes)): refusing a possible ZIP bomb")
            }
            if uncompressed > Self.ratioCheckBytes && uncompressed / max(compressed, 1) > Self.maxRatio {
                throw ParseError("ZIP entry '\(name)' has a compression ratio over \(Self.maxRatio):1: refusing a possible ZIP bomb")
            }
            total += uncompressed
            if total > Self.maxTotalBytes {
                throw ParseError("ZIP archive is too large uncompressed (over \(Self.maxTotalBytes) bytes): refusing a possible ZIP bomb")
            }
            // Many entries each small enough to pass the checks above can still add up
            // to a bomb: a whole archive over 16 MiB uncompressed that inflates more than
            // 100 times its own size is refused before anything is inflated.
            if total > Self.ratioCheckBytes && total / max(bytes.count, 1) > Self.maxRatio {
                throw ParseError("ZIP archive inflates to over \(Self.maxRatio) times its size (\(total) bytes from \(bytes.count)): refusing a possible ZIP bomb")
            }
            let entry = Entry(name: name, method: method, flags: flags, crc: crc, compressedSize: compressed,
                              uncompressedSize: uncompressed, localHeaderOffset: local)
            if byName[name] == nil {
                byName[name] = entries.count
                byLowerName[name.lowercased()] = entries.count
                entries.append(entry)
            }
        }
    }

    /// Refuses a book whose text documents declare more than maxTextBytes in all,
    /// before any is inflated (the declared sizes are enforced when inflating).
    static func checkTextSize(_ entries: [Entry], what: String) throws(ParseError) {
        let total = entries.reduce(0) { $0 + $1.uncompressedSize }
        if total > maxTextBytes {
            throw ParseError("the \(what) is too large: \(total) bytes uncompressed (limit \(maxTextBytes >> 20) MiB)")
        }
    }

    /// Entry names must stay inside the archive: no absolute paths, drive letters or `..` parts.
    static func checkName(_ name: String) throws(ParseError) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).flatMap { $0.split(separator: "\\", omittingEmptySubsequences: false) }
        if name.hasPrefix("/") || name.hasPrefix("\\") || parts.contains("..")
            || (name.count >= 2 && name.dropFirst().first == ":") || name.utf8.contains(0) {
            throw ParseError("ZIP entry has an unsafe path '\(name)' (absolute or with ..): refusing the archive")
        }
    }

    func entry(_ name: String) -> Entry? {
        if let i = byName[name] { return entries[i] }
        if let i = byLowerName[name.lowercased()] { return entries[i] }
        return nil
    }

    func read(_ name: String, limit: Int = ZipArchive.maxEntryBytes) throws(ParseError) -> [UInt8] {
        guard let entry = entry(name) else { throw ParseError("missing '\(name)' in the archive") }
        return try read(entry, limit: limit)
    }

    /// The entry's uncompressed bytes, CRC-checked; at most `limit` bytes.
    func read(_ entry: Entry, limit: Int = ZipArchive.maxEntryBytes) throws(ParseError) -> [UInt8] {
        if entry.flags & 1 != 0 { throw ParseError("ZIP entry '\(entry.name)' is encrypted") }
        let p = entry.localHeaderOffset
        guard p + 30 <= bytes.count, u32(p) == 0x0403_4B50 else {
            throw ParseError("corrupt or truncated ZIP archive (bad local header for '\(entry.name)')")
        }
        let start = p + 30 + Int(u16(p + 26)) + Int(u16(p + 28))
        guard start + entry.compressedSize <= bytes.count else {
            throw ParseError("truncated ZIP archive ('\(entry.name)' runs past the end of the file)")
        }
        let expected = min(entry.uncompressedSize, limit)
        var out: [UInt8]
        switch entry.method {
        case 0:
            guard entry.compressedSize == entry.uncompressedSize else {
                throw ParseError("corrupt ZIP archive (stored entry '\(entry.name)' has mismatched sizes)")
            }
            out = bytes.withUnsafeBufferPointer { Array(UnsafeBufferPointer(rebasing: $0[start..<(start + expected)])) }
        case 8:
            out = try inflate(start: start, count: entry.compressedSize, size: expected, name: entry.name,
                              exact: expected == entry.uncompressedSize)
        default:
            throw ParseError("ZIP entry '\(entry.name)' uses an unsupported compression method \(entry.method)")
        }
        if out.count == entry.uncompressedSize {
            let crc = out.withUnsafeBufferPointer { b in
                UInt32(crc32(0, b.baseAddress, uInt(b.count)))
            }
            if crc != entry.crc { throw ParseError("corrupt ZIP archive (CRC mismatch in '\(entry.name)')") }
        }
        return out
    }

    private func inflate(start: Int, count: Int, size: Int, name: String, exact: Bool) throws(ParseError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ParseError("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        // One spare byte shows whether the data inflates beyond its declared size.
        var out = [UInt8](repeating: 0, count: size + 1)
        var status: Int32 = Z_OK
        let produced: Int = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress! + start)
                stream.avail_in = uInt(count)
                stream.next_out = output.baseAddress
                stream.avail_out = uInt(output.count)
                status = CZlib.inflate(&stream, Z_FINISH)
                return output.count - Int(stream.avail_out)
            }
        }
        if produced > size {
            if exact { throw ParseError("ZIP entry '\(name)' inflates beyond its declared size: refusing a possible ZIP bomb") }
            out.removeLast(out.count - size)
            return out
        }
        if status != Z_STREAM_END {
            throw ParseError("corrupt or truncated ZIP archive (cannot inflate '\(name)')")
        }
        // A stream that ends short of its declared size is corrupt, and its CRC
        // would go unchecked (found by scripts/fuzz/run zip).
        if produced != size {
            throw ParseError("corrupt ZIP archive ('\(name)' inflates to \(produced) bytes, not the \(size) declared)")
        }
        out.removeLast(out.count - produced)
        return out
    }

    private static func findEndOfCentralDirectory(_ bytes: InputBytes) -> Int? {
        guard bytes.count >= 22 else { return nil }
        let lowest = max(0, bytes.count - 22 - 65535)
        var p = bytes.count - 22
        while p >= lowest {
            if bytes[p] == 0x50 && bytes[p + 1] == 0x4B && bytes[p + 2] == 0x05 && bytes[p + 3] == 0x06 { return p }
            p -= 1
        }
        return nil
    }

    @inline(__always) private func u16(_ p: Int) -> UInt16 { UInt16(bytes[p]) | UInt16(bytes[p + 1]) << 8 }
    @inline(__always) private func u32(_ p: Int) -> UInt32 {
        UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16 | UInt32(bytes[p + 3]) << 24
    }
}
