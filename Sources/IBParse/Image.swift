// Images as books: PNG, JPEG, TIFF (every page of a multi-page TIFF) and WebP
// become one page each, in file order, with their OCR text. The pixel size is
// read from the header and an absurd one refused before anything is decoded;
// a large photo is scaled down to what recognition needs.
#if canImport(Glibc)
import Glibc
#endif

enum ImageParser {
    /// Whether `head` starts a PNG, JPEG, TIFF or WebP file.
    static func isImage(_ head: some Collection<UInt8>) -> Bool { kind(Array(head.prefix(12))) != nil }

    static func kind(_ h: [UInt8]) -> String? {
        if h.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "PNG" }
        if h.starts(with: [0xFF, 0xD8, 0xFF]) { return "JPEG" }
        if h.starts(with: [0x49, 0x49, 0x2A, 0x00]) || h.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if h.count >= 12 && h.starts(with: Array("RIFF".utf8)) && Array(h[8..<12]) == Array("WEBP".utf8) { return "WebP" }
        return nil
    }

    /// The most pages read from one TIFF.
    static let maxPages = 10_000

    static func parse(_ bytes: InputBytes, options: ParseOptions) throws(ParseError) -> ParsedBook {
        try T.load()
        let kind = kind(Array(bytes.prefix(12))) ?? "image"
        var book = ParsedBook(format: .image)
        let language = options.ocrLanguage ?? .auto
        try quietly { () throws(ParseError) in try bytes.withUnsafeBufferPointer { (b) throws(ParseError) in
            guard let base = b.baseAddress else { throw ParseError("empty file (0 bytes)") }
            if kind == "TIFF" {
                var n: Int32 = 0
                var w: Int32 = 0, h: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, res: Int32 = 0, cmap: Int32 = 0, format: Int32 = 0
                while Int(n) < maxPages && T.readHeaderMemTiff(base, b.count, n, &w, &h, &bps, &spp, &res, &cmap, &format) == 0 {
                    try check(width: Int(w), height: Int(h), colour: spp >= 3 || cmap != 0, kind: kind, page: Int(n) + 1)
                    guard let pix = T.pixReadMemTiff(base, b.count, n) else {
                        throw ParseError("corrupt TIFF: page \(n + 1) could not be decoded")
                    }
                    book.pages.append(try recognize(pix, language: language))
                    n += 1
                }
                if n == 0 { throw ParseError("corrupt or truncated TIFF (no readable page)") }
            } else {
                var format: Int32 = 0, w: Int32 = 0, h: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, cmap: Int32 = 0
                guard T.pixReadHeaderMem(base, b.count, &format, &w, &h, &bps, &spp, &cmap) == 0 else {
                    throw ParseError("corrupt or truncated \(kind) (its header cannot be read)")
                }
                // A JPEG is decoded at half size when large (below), so its colour costs a quarter.
                try check(width: Int(w), height: Int(h), colour: (spp >= 3 || cmap != 0) && !(format == 2 && Int(w) * Int(h) > OCR.scaleAbove),
                          kind: kind, page: nil)
                // A large JPEG (a phone photo) is decoded at half size straight away: a page needs
                // no more than 16 megapixels, and a 48-megapixel photo decoded whole takes 200 MB.
                let pixels = Int(w) * Int(h)
                let reduction: Int32 = pixels > OCR.scaleAbove ? 2 : 1
                var warnings: Int32 = 0
                let decoded = format == 2 && reduction > 1 ? T.pixReadMemJpeg(base, b.count, 0, reduction, &warnings, 0) : T.pixReadMem(base, b.count)
                guard let pix = decoded else { throw ParseError("corrupt or truncated \(kind) (it cannot be decoded)") }
                book.pages.append(try recognize(pix, language: language))
            }
        } }
        if book.pages.allSatisfy({ $0.text.isEmpty }) {
            throw ParseError(book.pages.count == 1 ? "no text found in the image" : "no text found on any of the \(book.pages.count) pages")
        }
        return book
    }

    /// A colour image is decoded to 4 bytes a pixel (and the decoder holds its rows besides):
    /// over this many pixels it is refused (measured: 24 megapixels of colour PNG peak at 240 MB,
    /// 62 at 500 MB; grey at 64 megapixels at 200 MB).
    static let maxColourPixels = 24_000_000

    static func check(width: Int, height: Int, colour: Bool, kind: String, page: Int?) throws(ParseError) {
        let at = page.map { " (page \($0))" } ?? ""
        if width <= 0 || height <= 0 { throw ParseError("corrupt \(kind)\(at): \(width) x \(height) pixels") }
        if width * height > OCR.maxPixels {
            throw ParseError("\(kind)\(at) is too large to read: \(width) x \(height) pixels (limit \(OCR.maxPixels / 1_000_000) megapixels)")
        }
        if colour && width * height > maxColourPixels {
            throw ParseError("\(kind)\(at) is too large to read: \(width) x \(height) colour pixels (limit \(maxColourPixels / 1_000_000) megapixels in colour, \(OCR.maxPixels / 1_000_000) in grey)")
        }
    }

    /// OCR of one decoded image; takes ownership of `pix`.
    static func recognize(_ source: OpaquePointer, language: OCRLanguage) throws(ParseError) -> ParsedPage {
        let result = try OCR.recognize(taking: source, dpi: Int(T.pixGetXRes(source)), language: language)
        return ParsedPage(text: result.text, ocrConfidence: result.confidence)
    }
}
