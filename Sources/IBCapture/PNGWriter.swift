// PNG files from cairo's RGB24 pixels, written here rather than by
// cairo_surface_write_to_png: libpng's adaptive filters and zlib level 6 took
// nine tenths of a card's time. A picture of at most 256 colours (most cards)
// is written with a palette, one byte a pixel; others as RGB rows with the Up
// filter (a flat background becomes zeros). zlib (the libz cairo already
// loaded) runs at level 1 with run-length matches only: several times faster
// than cairo's writer, for files a little larger.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

enum PNGWriter {
    /// zlib's z_stream (64-bit layout); deflateInit2_ checks its size, so a mismatch fails cleanly.
    struct ZStream {
        var nextIn: UnsafePointer<UInt8>? = nil
        var availIn: UInt32 = 0
        var totalIn: UInt = 0
        var nextOut: UnsafeMutablePointer<UInt8>? = nil
        var availOut: UInt32 = 0
        var totalOut: UInt = 0
        var msg: UnsafePointer<CChar>? = nil
        var state: OpaquePointer? = nil
        var zalloc: OpaquePointer? = nil
        var zfree: OpaquePointer? = nil
        var opaque: OpaquePointer? = nil
        var dataType: Int32 = 0
        var adler: UInt = 0
        var reserved: UInt = 0
    }

    struct Zlib: @unchecked Sendable {
        let version: @convention(c) () -> UnsafePointer<CChar>
        let compressBound: @convention(c) (UInt) -> UInt
        let deflateInit2: @convention(c) (UnsafeMutableRawPointer, Int32, Int32, Int32, Int32, Int32, UnsafePointer<CChar>, Int32) -> Int32
        let deflate: @convention(c) (UnsafeMutableRawPointer, Int32) -> Int32
        let deflateEnd: @convention(c) (UnsafeMutableRawPointer) -> Int32
        let crc32: @convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt
    }

    static let zlib: Zlib? = {
        guard let h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL) else { return nil }
        func f<F>(_ name: String, _ type: F.Type) -> F? { dlsym(h, name).map { unsafeBitCast($0, to: F.self) } }
        guard let version = f("zlibVersion", (@convention(c) () -> UnsafePointer<CChar>).self),
              let bound = f("compressBound", (@convention(c) (UInt) -> UInt).self),
              let initialise = f("deflateInit2_", (@convention(c) (UnsafeMutableRawPointer, Int32, Int32, Int32, Int32, Int32, UnsafePointer<CChar>, Int32) -> Int32).self),
              let deflate = f("deflate", (@convention(c) (UnsafeMutableRawPointer, Int32) -> Int32).self),
              let end = f("deflateEnd", (@convention(c) (UnsafeMutableRawPointer) -> Int32).self),
              let crc = f("crc32", (@convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt).self) else { return nil }
        return Zlib(version: version, compressBound: bound, deflateInit2: initialise, deflate: deflate, deflateEnd: end, crc32: crc)
    }()

    /// The zlib stream of `raw`: level 1 with run-length matching only (Z_RLE), which suits
    /// filtered image rows and runs several times faster than the default.
    static func compress(_ raw: UnsafeBufferPointer<UInt8>, _ z: Zlib) -> [UInt8]? {
        // On the heap: zlib keeps the stream's address and checks it on every call.
        let stream = UnsafeMutablePointer<ZStream>.allocate(capacity: 1)
        stream.initialize(to: ZStream())
        defer { stream.deallocate() }
        let handle = UnsafeMutableRawPointer(stream)
        guard z.deflateInit2(handle, 1, 8, 15, 8, 3, z.version(), Int32(MemoryLayout<ZStream>.size)) == 0 else { return nil }
        defer { _ = z.deflateEnd(handle) }
        let capacity = Int(z.compressBound(UInt(raw.count)))
        var written = 0
        let out = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            stream.pointee.nextIn = raw.baseAddress
            stream.pointee.availIn = UInt32(raw.count)
            stream.pointee.nextOut = buffer.baseAddress
            stream.pointee.availOut = UInt32(capacity)
            let status = z.deflate(handle, 4)  // Z_FINISH
            written = status == 1 ? Int(stream.pointee.totalOut) : -1  // Z_STREAM_END
            count = max(0, written)
        }
        return written >= 0 ? out : nil
    }

    /// Rows of palette indices (filter None) and the palette, when the picture has at most
    /// 256 colours (a card's background, inks and their anti-aliased blends usually do):
    /// a third of the bytes to compress. nil when there are more.
    static func indexed(pixels: UnsafeRawPointer, width: Int, height: Int, stride: Int) -> (rows: [UInt8], palette: [UInt8])? {
        // Open addressing on the colour: 1,024 slots for at most 256 colours.
        var keys = [UInt32](repeating: UInt32.max, count: 1024)
        var slots = [UInt8](repeating: 0, count: 1024)
        var palette: [UInt8] = []
        var failed = false
        let rowBytes = 1 + width
        let rows = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { out, count in
            var lastColour = UInt32.max, lastIndex: UInt8 = 0
            rowLoop: for y in 0..<height {
                let row = (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
                let o = y * rowBytes
                out[o] = 0
                for x in 0..<width {
                    let colour = row[x] & 0xFFFFFF
                    if colour != lastColour {
                        var slot = Int((colour &* 2654435761) >> 22) & 1023
                        while keys[slot] != colour && keys[slot] != UInt32.max { slot = (slot + 1) & 1023 }
                        if keys[slot] == UInt32.max {
                            if palette.count == 256 * 3 { failed = true; break rowLoop }
                            keys[slot] = colour
                            slots[slot] = UInt8(palette.count / 3)
                            palette += [UInt8(colour >> 16), UInt8((colour >> 8) & 0xFF), UInt8(colour & 0xFF)]
                        }
                        lastColour = colour
                        lastIndex = slots[slot]
                    }
                    out[o + 1 + x] = lastIndex
                }
            }
            count = failed ? 0 : rowBytes * height
        }
        return failed ? nil : (rows, palette)
    }

    /// The PNG bytes of `height` rows of `width` pixels, each a native-endian UInt32 0x??RRGGBB, `stride` bytes apart; nil without zlib.
    static func encode(pixels: UnsafeRawPointer, width: Int, height: Int, stride: Int) -> [UInt8]? {
        guard let z = zlib else { return nil }
        if let (rows, palette) = indexed(pixels: pixels, width: width, height: height, stride: stride),
           let packed = rows.withUnsafeBufferPointer({ compress($0, z) }) {
            return file(width: width, height: height, colourType: 3, palette: palette, packed: packed, z)
        }
        let rowBytes = 1 + width * 3
        let raw = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { out, count in
            for y in 0..<height {
                let row = (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
                let o = y * rowBytes
                out[o] = 2  // Up: each byte less the one above it (a flat background becomes zeros)
                if y == 0 {
                    for x in 0..<width {
                        let p = row[x], i = o + 1 + x * 3
                        out[i] = UInt8(truncatingIfNeeded: p >> 16); out[i + 1] = UInt8(truncatingIfNeeded: p >> 8); out[i + 2] = UInt8(truncatingIfNeeded: p)
                    }
                    continue
                }
                let above = (pixels + (y - 1) * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width {
                    let p = row[x], q = above[x], i = o + 1 + x * 3
                    out[i] = UInt8(truncatingIfNeeded: p >> 16) &- UInt8(truncatingIfNeeded: q >> 16)
                    out[i + 1] = UInt8(truncatingIfNeeded: p >> 8) &- UInt8(truncatingIfNeeded: q >> 8)
                    out[i + 2] = UInt8(truncatingIfNeeded: p) &- UInt8(truncatingIfNeeded: q)
                }
            }
            count = rowBytes * height
        }
        guard let packed = raw.withUnsafeBufferPointer({ compress($0, z) }) else { return nil }
        return file(width: width, height: height, colourType: 2, palette: nil, packed: packed, z)
    }

    /// The file around compressed rows: signature, IHDR (8 bits a sample), PLTE when indexed, IDAT, IEND.
    static func file(width: Int, height: Int, colourType: UInt8, palette: [UInt8]?, packed: [UInt8], _ z: Zlib) -> [UInt8] {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png.reserveCapacity(packed.count + 64)
        func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ body: [UInt8]) {
            png += be(body.count)
            let start = png.count
            png += Array(type.utf8)
            png += body
            let crc = png[start...].withUnsafeBufferPointer { z.crc32(0, $0.baseAddress, UInt32($0.count)) }
            png += be(Int(crc))
        }
        chunk("IHDR", be(width) + be(height) + [8, colourType, 0, 0, 0])  // no interlace
        if let palette { chunk("PLTE", palette) }
        chunk("IDAT", packed)
        chunk("IEND", [])
        return png
    }
}
