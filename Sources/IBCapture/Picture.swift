// A picture as a list of shapes and lines of text, laid out once and then
// written two ways: SVG as text here, PNG through cairo and pango
// (PictureCairo). Cards, charts and the status picture all build one.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

public struct RGB: Sendable, Equatable {
    public var r: Double, g: Double, b: Double
    public init(_ hex: UInt32) {
        r = Double((hex >> 16) & 0xFF) / 255; g = Double((hex >> 8) & 0xFF) / 255; b = Double(hex & 0xFF) / 255
    }
    var svg: String {
        func c(_ x: Double) -> String { let s = String(Int((x * 255).rounded()), radix: 16); return s.count == 1 ? "0" + s : s }
        return "#" + c(r) + c(g) + c(b)
    }
}

public struct FontFace: Sendable, Equatable {
    /// Families in order of preference (Latin first, then a CJK family for the characters it lacks).
    public var families: [String]
    public var bold = false
    public var italic = false
}

public enum TextAnchor: Sendable { case start, middle, end }

public enum Shape: Sendable {
    case rect(x: Double, y: Double, w: Double, h: Double, fill: RGB, radius: Double = 0)
    case line(x1: Double, y1: Double, x2: Double, y2: Double, width: Double, color: RGB)
    /// An arc of a circle stroked with a round cap; angles in degrees clockwise from 12 o'clock.
    case arc(cx: Double, cy: Double, r: Double, from: Double, to: Double, width: Double, color: RGB)
    /// One line of text with its baseline at y; `maxWidth`: squeezed to fit when wider.
    case text(String, x: Double, y: Double, size: Double, face: FontFace, color: RGB, anchor: TextAnchor, maxWidth: Double?)
}

public struct Picture: Sendable {
    public var width: Int
    public var height: Int
    public var shapes: [Shape] = []

    public init(width: Int, height: Int) { self.width = width; self.height = height }

    public mutating func add(_ s: Shape) { shapes.append(s) }

    /// The SVG document (UTF-8), sized in pixels.
    public func svg() -> String {
        func n(_ x: Double) -> String {
            let r = (x * 100).rounded() / 100
            return r == r.rounded() ? String(Int(r)) : String(r)
        }
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
        for shape in shapes {
            switch shape {
            case let .rect(x, y, w, h, fill, radius):
                s += "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(w))\" height=\"\(n(h))\"" + (radius > 0 ? " rx=\"\(n(radius))\"" : "")
                s += " fill=\"\(fill.svg)\"/>\n"
            case let .line(x1, y1, x2, y2, width, color):
                s += "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(color.svg)\" stroke-width=\"\(n(width))\"/>\n"
            case let .arc(cx, cy, r, from, to, width, color):
                if to - from >= 359.99 {
                    s += "<circle cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"\(n(r))\" fill=\"none\" stroke=\"\(color.svg)\" stroke-width=\"\(n(width))\"/>\n"
                } else if to > from {
                    let (x1, y1) = Picture.point(cx, cy, r, from), (x2, y2) = Picture.point(cx, cy, r, to)
                    s += "<path d=\"M \(n(x1)) \(n(y1)) A \(n(r)) \(n(r)) 0 \(to - from > 180 ? 1 : 0) 1 \(n(x2)) \(n(y2))\""
                    s += " fill=\"none\" stroke=\"\(color.svg)\" stroke-width=\"\(n(width))\" stroke-linecap=\"round\"/>\n"
                }
            case let .text(text, x, y, size, face, color, anchor, maxWidth):
                let families = face.families.map { "'\($0)'" }.joined(separator: ", ")
                s += "<text x=\"\(n(x))\" y=\"\(n(y))\" font-family=\"\(Picture.escape(families))\" font-size=\"\(n(size))\""
                if face.bold { s += " font-weight=\"bold\"" }
                if face.italic { s += " font-style=\"italic\"" }
                switch anchor {
                case .start: break
                case .middle: s += " text-anchor=\"middle\""
                case .end: s += " text-anchor=\"end\""
                }
                // The SVG renderer measures for itself: squeeze a line whose estimate is too wide, as cairo's side does.
                if let maxWidth, LineBreaking.width(text) * size * (face.bold ? 1.1 : 1) > maxWidth {
                    s += " textLength=\"\(n(maxWidth))\" lengthAdjust=\"spacingAndGlyphs\""
                }
                s += " fill=\"\(color.svg)\" xml:space=\"preserve\">\(Picture.escape(text))</text>\n"
            }
        }
        return s + "</svg>\n"
    }

    static func point(_ cx: Double, _ cy: Double, _ r: Double, _ degrees: Double) -> (Double, Double) {
        let a = (degrees - 90) * Double.pi / 180
        return (cx + r * cos(a), cy + r * sin(a))
    }

    /// XML text: the five special characters escaped, and control characters (not allowed in XML 1.0) dropped.
    static func escape(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                if u.value < 0x20 && u != "\t" && u != "\n" { continue }
                if u.value == 0xFFFE || u.value == 0xFFFF { continue }
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// Writes the picture as `format` ("svg" or "png") to `path`: a temporary file
    /// beside it, renamed into place, so a failure never leaves half a picture.
    public func write(format: String, to path: String) throws {
        let temporary = path + ".tmp\(getpid())"
        do {
            if format == "png" {
                try PictureCairo.writePNG(self, to: temporary)
            } else {
                try Picture.writeFile(Array(svg().utf8), to: temporary)
            }
        } catch let e as IBError {
            unlink(temporary)
            throw IBError(e.message.replacingAll(temporary, path), code: e.code)  // name the file asked for
        } catch {
            unlink(temporary)
            throw error
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw IBError("\(path): \(reason)")
        }
    }

    static func writeFile(_ bytes: [UInt8], to path: String) throws(IBError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw IBError("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 { if errno == EINTR { continue }; throw IBError("\(path): \(String(cString: strerror(errno)))") }
            done += n
        }
    }
}
