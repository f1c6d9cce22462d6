// A Picture drawn to a PNG through cairo, its text shaped and set by pango
// (fontconfig picks a CJK face for the characters the Latin one lacks).
import IBCore

public enum PictureCairo {
    /// Opaque pixels (every picture paints its background): libpng writes 3 bytes a pixel, not 4.
    static let formatRGB24: Int32 = 1

    public static func writePNG(_ picture: Picture, to path: String) throws {
        let c = try CairoPango.library()
        guard let surface = c.imageSurfaceCreate(formatRGB24, Int32(picture.width), Int32(picture.height)),
              c.surfaceStatus(surface) == 0 else {
            throw IBError("cannot make a \(picture.width)x\(picture.height) picture (too large?)")
        }
        defer { c.surfaceDestroy(surface) }
        let cr = c.create(surface)
        defer { c.destroy(cr) }
        let layout = c.createLayout(cr)
        defer { c.unref(layout) }
        var fonts: [String: CPointer] = [:]
        defer { for f in fonts.values { c.fontFree(f) } }
        for shape in picture.shapes {
            switch shape {
            case let .rect(x, y, w, h, fill, radius):
                c.setSourceRGBA(cr, fill.r, fill.g, fill.b, 1)
                if radius > 0 {
                    let r = min(radius, w / 2, h / 2)
                    c.newPath(cr)
                    c.arc(cr, x + w - r, y + r, r, -Double.pi / 2, 0)
                    c.arc(cr, x + w - r, y + h - r, r, 0, Double.pi / 2)
                    c.arc(cr, x + r, y + h - r, r, Double.pi / 2, Double.pi)
                    c.arc(cr, x + r, y + r, r, Double.pi, 3 * Double.pi / 2)
                    c.closePath(cr)
                } else {
                    c.rectangle(cr, x, y, w, h)
                }
                c.fill(cr)
            case let .line(x1, y1, x2, y2, width, color):
                c.setSourceRGBA(cr, color.r, color.g, color.b, 1)
                c.setLineWidth(cr, width)
                c.newPath(cr); c.moveTo(cr, x1, y1); c.lineTo(cr, x2, y2); c.stroke(cr)
            case let .arc(cx, cy, r, from, to, width, color):
                guard to > from else { continue }
                c.setSourceRGBA(cr, color.r, color.g, color.b, 1)
                c.setLineWidth(cr, width)
                c.setLineCap(cr, to - from >= 359.99 ? 0 : 1)  // butt for a full circle, round for an arc
                c.newPath(cr)
                c.arc(cr, cx, cy, r, (from - 90) * Double.pi / 180, (to - 90) * Double.pi / 180)
                c.stroke(cr)
            case let .text(text, x, y, size, face, color, anchor, maxWidth):
                let key = description(face, size)
                let font: CPointer
                if let f = fonts[key] { font = f } else {
                    guard let f = c.fontFromString(key) else { continue }
                    fonts[key] = f
                    font = f
                }
                c.setFont(layout, font)
                let bytes = Array(text.utf8)
                bytes.withUnsafeBufferPointer { b in
                    b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(1, b.count)) { c.setText(layout, $0, Int32(b.count)) }
                }
                var w: Int32 = 0, h: Int32 = 0
                c.pixelSize(layout, &w, &h)
                let baseline = Double(c.baseline(layout)) / 1024
                var width = Double(w)
                var squeeze = 1.0
                if let maxWidth, width > maxWidth, width > 0 { squeeze = maxWidth / width; width = maxWidth }
                let left: Double
                switch anchor {
                case .start: left = x
                case .middle: left = x - width / 2
                case .end: left = x - width
                }
                c.save(cr)
                c.setSourceRGBA(cr, color.r, color.g, color.b, 1)
                c.translate(cr, left, y - baseline)
                if squeeze < 1 { c.scale(cr, squeeze, 1) }
                c.showLayout(cr, layout)
                c.restore(cr)
            }
        }
        c.surfaceFlush(surface)
        if let data = c.imageData(surface),
           let png = PNGWriter.encode(pixels: UnsafeRawPointer(data), width: picture.width, height: picture.height, stride: Int(c.imageStride(surface))) {
            try Picture.writeFile(png, to: path)
            return
        }
        // No zlib of our own to call: cairo's (slower) writer.
        let status = path.withCString { c.writeToPNG(surface, $0) }
        if status != 0 { throw IBError("\(path): cannot write the PNG (cairo status \(status))") }
    }

    /// Pango's font description: "Family A,Family B Bold Italic 36px".
    static func description(_ face: FontFace, _ size: Double) -> String {
        var s = face.families.joined(separator: ",")
        if face.bold { s += " Bold" }
        if face.italic { s += " Italic" }
        return s + " \(Int(size.rounded()))px"
    }

    /// What a PNG holds, as cairo decodes it: its size, how many pixels differ from the
    /// top-left (background) pixel, and the box around them (checks and tests).
    public struct Inspection: Sendable {
        public var width: Int, height: Int, inked: Int
        public var minX: Int, minY: Int, maxX: Int, maxY: Int
    }

    public static func inspectPNG(_ path: String, ignoringEdge edge: Int = 0) throws -> Inspection {
        let c = try CairoPango.library()
        guard let s = path.withCString({ c.imageSurfaceFromPNG($0) }), c.surfaceStatus(s) == 0 else {
            throw IBError("\(path): not a PNG cairo can read")
        }
        defer { c.surfaceDestroy(s) }
        let w = Int(c.imageWidth(s)), h = Int(c.imageHeight(s)), stride = Int(c.imageStride(s))
        var result = Inspection(width: w, height: h, inked: 0, minX: w, minY: h, maxX: -1, maxY: -1)
        guard let data = c.imageData(s), w > 2 * edge, h > 2 * edge else { return result }
        let p = UnsafeMutableRawPointer(data)
        // RGB24 leaves the top byte unspecified: colours only.
        let background = p.load(fromByteOffset: (h / 2) * stride + (edge + 1) * 4, as: UInt32.self) & 0xFFFFFF
        for row in edge..<(h - edge) {
            for col in edge..<(w - edge) where p.load(fromByteOffset: row * stride + col * 4, as: UInt32.self) & 0xFFFFFF != background {
                result.inked += 1
                result.minX = min(result.minX, col); result.maxX = max(result.maxX, col)
                result.minY = min(result.minY, row); result.maxY = max(result.maxY, row)
            }
        }
        return result
    }
}
