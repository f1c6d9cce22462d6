// Plain text: UTF-8 (a BOM is accepted), UTF-16 LE or BE with a BOM, or an
// encoding named with --encoding. Other bytes are an error that names the
// byte offset and line. CRLF and CR become LF; pages are estimated.

public enum TextEncoding: String, Sendable {
    case utf8 = "utf-8", utf16le = "utf-16le", utf16be = "utf-16be", latin1, windows1252 = "windows-1252"

    public init?(name: String) {
        switch name.lowercased() {
        case "utf-8", "utf8": self = .utf8
        case "utf-16le", "utf16le": self = .utf16le
        case "utf-16be", "utf16be": self = .utf16be
        case "latin1", "latin-1", "iso-8859-1", "iso8859-1": self = .latin1
        case "windows-1252", "cp1252": self = .windows1252
        default: return nil
        }
    }
}

enum TextParser {
    static func parse(_ bytes: [UInt8], options: ParseOptions) throws(ParseError) -> ParsedBook {
        let text = normalizeNewlines(try decode(bytes, encoding: options.encoding))
        var book = ParsedBook(format: .text)
        // Its headings, and the days of a diary written as paragraphs that open with their date.
        var days = DayEntries()
        let marks = days.adding(to: TextHeadings.marks(text), text: text)
        book.pages = Pagination.pages(sections: [.init(index: nil, title: nil, text: text, marks: marks)],
                                      target: options.pageCharacters)
        return book
    }

    /// Decodes to UTF-8 bytes. Without an encoding: a UTF-16 BOM means UTF-16, else UTF-8 (its BOM dropped).
    static func decode(_ bytes: [UInt8], encoding: TextEncoding?) throws(ParseError) -> [UInt8] {
        var encoding = encoding
        var start = 0
        if bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] == 0xFE && (encoding == nil || encoding == .utf16le) {
            encoding = .utf16le; start = 2
        } else if bytes.count >= 2 && bytes[0] == 0xFE && bytes[1] == 0xFF && (encoding == nil || encoding == .utf16be) {
            encoding = .utf16be; start = 2
        } else if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF && (encoding == nil || encoding == .utf8) {
            encoding = .utf8; start = 3
        }
        switch encoding ?? .utf8 {
        case .utf8:
            if let bad = firstInvalidUTF8(bytes, from: start) {
                throw ParseError("not valid UTF-8 at byte offset \(bad) (line \(lineNumber(bytes, bad))); use --encoding latin1 for 8-bit text")
            }
            return start == 0 ? bytes : Array(bytes[start...])
        case .utf16le, .utf16be:
            return try decodeUTF16(bytes, from: start, bigEndian: encoding == .utf16be)
        case .latin1, .windows1252:
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + bytes.count / 8)
            let cp1252 = encoding == .windows1252
            for byte in bytes {
                if byte < 0x80 { out.append(byte); continue }
                var scalar = UInt32(byte)
                if cp1252 && byte < 0xA0, let mapped = windows1252High[Int(byte - 0x80)] { scalar = mapped }
                appendUTF8(scalar, to: &out)
            }
            return out
        }
    }

    static let windows1252High: [UInt32?] = [
        0x20AC, nil, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, nil, 0x017D, nil,
        nil, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, nil, 0x017E, 0x0178,
    ]

    static func lineNumber(_ bytes: [UInt8], _ offset: Int) -> Int {
        var line = 1
        for i in 0..<min(offset, bytes.count) where bytes[i] == 0x0A { line += 1 }
        return line
    }

    static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        if v < 0x80 { out.append(UInt8(v)) }
        else if v < 0x800 { out.append(UInt8(0xC0 | v >> 6)); out.append(UInt8(0x80 | v & 0x3F)) }
        else if v < 0x10000 {
            out.append(UInt8(0xE0 | v >> 12)); out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        } else {
            out.append(UInt8(0xF0 | v >> 18)); out.append(UInt8(0x80 | v >> 12 & 0x3F))
            out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        }
    }

    static func decodeUTF16(_ bytes: [UInt8], from start: Int, bigEndian: Bool) throws(ParseError) -> [UInt8] {
        if (bytes.count - start) % 2 != 0 {
            throw ParseError("UTF-16 text has an odd number of bytes (a truncated last character at byte offset \(bytes.count - 1))")
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = start
        @inline(__always) func unit(_ at: Int) -> UInt32 {
            bigEndian ? UInt32(bytes[at]) << 8 | UInt32(bytes[at + 1]) : UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at])
        }
        while i < bytes.count {
            let u = unit(i)
            if u >= 0xD800 && u < 0xDC00 {
                guard i + 3 < bytes.count else { throw ParseError("invalid UTF-16 at byte offset \(i): unpaired surrogate") }
                let low = unit(i + 2)
                guard low >= 0xDC00 && low < 0xE000 else { throw ParseError("invalid UTF-16 at byte offset \(i): unpaired surrogate") }
                appendUTF8(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00), to: &out)
                i += 4
            } else if u >= 0xDC00 && u < 0xE000 {
                throw ParseError("invalid UTF-16 at byte offset \(i): unpaired surrogate")
            } else {
                appendUTF8(u, to: &out)
                i += 2
            }
        }
        return out
    }

    /// The offset of the first byte that is not part of well-formed UTF-8, or nil.
    static func firstInvalidUTF8(_ bytes: [UInt8], from start: Int = 0) -> Int? {
        bytes.withUnsafeBufferPointer { b -> Int? in
            let n = b.count
            var i = start
            while i < n {
                // ASCII fast path, 8 bytes at a time.
                while i + 8 <= n {
                    let word = UnsafeRawPointer(b.baseAddress! + i).loadUnaligned(as: UInt64.self)
                    if word & 0x8080_8080_8080_8080 != 0 { break }
                    i += 8
                }
                if i >= n { break }
                let c = b[i]
                if c < 0x80 { i += 1; continue }
                var length = 0
                var lowerBound: UInt8 = 0x80, upperBound: UInt8 = 0xBF
                switch c {
                case 0xC2...0xDF: length = 2
                case 0xE0: length = 3; lowerBound = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: length = 3
                case 0xED: length = 3; upperBound = 0x9F
                case 0xF0: length = 4; lowerBound = 0x90
                case 0xF1...0xF3: length = 4
                case 0xF4: length = 4; upperBound = 0x8F
                default: return i
                }
                if i + length > n { return i }
                let second = b[i + 1]
                if second < lowerBound || second > upperBound { return i }
                for k in 2..<max(length, 2) where b[i + k] & 0xC0 != 0x80 { return i }
                i += length
            }
            return nil
        }
    }

    /// CRLF and lone CR become LF.
    static func normalizeNewlines(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(0x0D) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x0D {
                out.append(0x0A)
                if i + 1 < bytes.count && bytes[i + 1] == 0x0A { i += 1 }
            } else {
                out.append(c)
            }
            i += 1
        }
        return out
    }
}
