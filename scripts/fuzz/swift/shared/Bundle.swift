// Shared by the EPUB, DOCX and ZIP harnesses: turns a fuzz input into a ZIP
// archive so that mutations reach the XML inside rather than dying on a CRC.
//
// An input that starts with "PK" is taken as a ZIP archive as it is. Any other
// input is a bundle: entries, each a line "==> NAME" followed by its content,
// up to the next such line. The bundle becomes a valid ZIP with every entry
// stored (method 0) and its CRC right; when NAME ends in "~" the entry is
// deflated instead (the "~" dropped), so inflate is reached as well.
import CZlib

enum Bundle {
    static func archive(_ input: [UInt8]) -> [UInt8] {
        if input.starts(with: [0x50, 0x4B]) { return input }
        var entries: [(name: [UInt8], data: [UInt8])] = []
        let marker = Array("==> ".utf8)
        var i = 0
        var lineStart = true
        var current: (name: [UInt8], start: Int)? = nil
        while i < input.count {
            if lineStart && input[i...].starts(with: marker) {
                if let c = current { entries.append((c.name, trimNewline(Array(input[c.start..<i])))) }
                var j = i + marker.count
                while j < input.count && input[j] != 0x0A { j += 1 }
                current = (Array(input[(i + marker.count)..<j]), min(j + 1, input.count))
                i = min(j + 1, input.count)
                lineStart = true
                continue
            }
            lineStart = input[i] == 0x0A
            i += 1
        }
        if let c = current { entries.append((c.name, trimNewline(Array(input[c.start..<input.count])))) }
        return zip(entries)
    }

    private static func trimNewline(_ b: [UInt8]) -> [UInt8] { b.last == 0x0A ? Array(b.dropLast()) : b }

    static func zip(_ entries: [(name: [UInt8], data: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func u16(_ v: Int, _ b: inout [UInt8]) { b.append(UInt8(v & 0xFF)); b.append(UInt8(v >> 8 & 0xFF)) }
        func u32(_ v: Int, _ b: inout [UInt8]) { u16(v & 0xFFFF, &b); u16(v >> 16 & 0xFFFF, &b) }
        for (name0, data) in entries.prefix(0xFFFE) {
            var name = name0
            var method = 0
            var stored = data
            if name.last == UInt8(ascii: "~") {
                name.removeLast()
                method = 8
                stored = deflate(data)
            }
            name = Array(name.prefix(0xFFFF))
            let crc = data.withUnsafeBufferPointer { Int(crc32(0, $0.baseAddress, uInt($0.count))) }
            let offset = out.count
            u32(0x0403_4B50, &out); u16(20, &out); u16(0, &out); u16(method, &out); u16(0, &out); u16(0, &out)
            u32(crc, &out); u32(stored.count, &out); u32(data.count, &out); u16(name.count, &out); u16(0, &out)
            out += name
            out += stored
            u32(0x0201_4B50, &central); u16(20, &central); u16(20, &central); u16(0, &central); u16(method, &central)
            u16(0, &central); u16(0, &central); u32(crc, &central); u32(stored.count, &central); u32(data.count, &central)
            u16(name.count, &central); u16(0, &central); u16(0, &central); u16(0, &central); u16(0, &central)
            u32(0, &central); u32(offset, &central)
            central += name
        }
        let cdOffset = out.count
        out += central
        u32(0x0605_4B50, &out); u16(0, &out); u16(0, &out)
        u16(min(entries.count, 0xFFFE), &out); u16(min(entries.count, 0xFFFE), &out)
        u32(central.count, &out); u32(cdOffset, &out); u16(0, &out)
        return out
    }

    /// Raw deflate (no zlib header), as ZIP stores it.
    static func deflate(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return data }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 16)
        var input = data
        let produced = input.withUnsafeMutableBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = inp.baseAddress
                stream.avail_in = uInt(inp.count)
                stream.next_out = o.baseAddress
                stream.avail_out = uInt(o.count)
                _ = CZlib.deflate(&stream, Z_FINISH)
                return o.count - Int(stream.avail_out)
            }
        }
        return Array(out.prefix(produced))
    }
}
