// Scanned PDF pages: a page whose text layer is (nearly) empty and that is
// mostly image is rendered by poppler through cairo at `dpi` and OCR'd. The
// scanned pages of a book are dealt round-robin to forked workers, one per CPU,
// after the text pass, so that OCR (a second or so a page) spreads over every
// core whatever the book's length and wherever its scanned pages are.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

enum ScanJob {
    /// Render resolution for OCR, measured on 300 dpi scans made with scripts/gen/ocr-images
    /// (12 Sherlock pages in 11 pt; two pages in 6 pt), in-process on Zen 5:
    ///   150 dpi: recall 0.9977 (11 pt), 0.9875 (6 pt), 0.80 s of CPU a page
    ///   200 dpi: recall 0.9963 (11 pt), 0.9954 (6 pt), 0.93 s
    ///   300 dpi: recall 0.9977 (11 pt), 0.9954 (6 pt), 1.05 s
    /// 200 keeps small type (footnotes) as well as 300 does, for 12% less time.
    static let dpi = 200
    /// Under --ocr auto a page is OCR'd when its text layer has fewer letters and digits than this
    /// and images cover at least `imageShare` of it. Measured: in sherlock.pdf (260 pages) and
    /// devils-dictionary.pdf (276) the fewest letters on a page with text are 98 and 19 (a short
    /// last page), and their few images (cover, title ornaments) sit on pages with text; under
    /// auto neither has a page OCR'd. Scanner stamps left in a scan's text layer are shorter than
    /// 32: "Scanned with CamScanner" has 21 letters, "Digitized by Google" 17.
    static let minLetters = 32
    static let imageShare = 0.3

    /// Whether an open page looks scanned: (nearly) no text, mostly image.
    static func isScanned(_ page: OpaquePointer, text: String?) -> Bool {
        var letters = 0
        for u in (text ?? "").unicodeScalars where u.properties.isAlphabetic || u.properties.numericType != nil {
            letters += 1
            if letters >= minLetters { return false }
        }
        var width = 0.0, height = 0.0
        P.poppler_page_get_size(page, &width, &height)
        guard width > 0 && height > 0, let list = P.poppler_page_get_image_mapping(page) else { return false }
        defer { P.poppler_page_free_image_mapping(list) }
        // GList: { gpointer data; GList *next; GList *prev }; PopplerImageMapping: { PopplerRectangle area (4 doubles); gint image_id }.
        var covered = 0.0
        var node: UnsafeMutableRawPointer? = list
        var seen = 0
        while let n = node, seen < 10_000 {
            if let mapping = n.load(as: UnsafeMutableRawPointer?.self) {
                let x1 = mapping.load(as: Double.self), y1 = mapping.load(fromByteOffset: 8, as: Double.self)
                let x2 = mapping.load(fromByteOffset: 16, as: Double.self), y2 = mapping.load(fromByteOffset: 24, as: Double.self)
                covered += abs(x2 - x1) * abs(y2 - y1)
            }
            node = n.load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            seen += 1
        }
        return covered >= imageShare * width * height
    }

    /// OCRs `pages` (0-based) of the document into `book`, in worker processes when there are
    /// several CPUs and this process has one thread. A page that cannot be rendered keeps its text
    /// and is reported.
    static func recognize(_ pages: [Int], in book: inout ParsedBook, document: OpaquePointer, gbytes: OpaquePointer?,
                          options: ParseOptions) throws(ParseError) {
        try T.load()
        try R.load()
        let language = options.ocrLanguage ?? OCRLanguage.forBook(book.language)
        var workers = min(Cores.available, 8, pages.count)
        if let forced = options.pdfWorkers { workers = min(forced, pages.count) }
        if workers > 1 && !PDFParser.isSingleThreaded() { workers = 1 }
        // Round-robin, so that a run of scanned pages is shared.
        let shares = (0..<workers).map { w in stride(from: w, to: pages.count, by: workers).map { pages[$0] } }
        var results: [Int: OCRResult] = [:]
        var firstError: ParseError? = nil
        if workers == 1 {
            for i in shares[0] {
                do { results[i] = try page(i, document: document, language: language) }
                catch { if firstError == nil { firstError = error } }
            }
        } else {
            results = inWorkers(shares, document: document, language: language)
        }
        var failed: [Int] = []
        for i in pages {
            guard let r = results[i] else { failed.append(i + 1); continue }
            book.pages[i].text = r.text
            book.pages[i].ocrConfidence = r.confidence
        }
        // Nothing recognised at all because OCR itself cannot run (no language data): that is the error.
        if results.isEmpty, let firstError { throw firstError }
        if !failed.isEmpty {
            book.warnings.append("\(failed.count == 1 ? "page" : "pages") \(PDFParser.ranges(failed)): OCR failed; kept with the text layer's text")
        }
    }

    /// Renders page `i` at `dpi` (less for a huge page: at most OCR.maxPixels / 4) and reads it.
    static func page(_ i: Int, document: OpaquePointer, language: OCRLanguage) throws(ParseError) -> OCRResult {
        guard let page = P.poppler_document_get_page(document, Int32(i)) else { throw ParseError("page \(i + 1) cannot be read") }
        defer { P.g_object_unref(UnsafeMutableRawPointer(page)) }
        var width = 0.0, height = 0.0
        P.poppler_page_get_size(page, &width, &height)
        guard width > 0 && height > 0 && width.isFinite && height.isFinite else { throw ParseError("page \(i + 1) has no size") }
        var scale = Double(dpi) / 72
        let budget = Double(OCR.maxPixels / 4)
        if width * height * scale * scale > budget { scale = (budget / (width * height)).squareRoot() }
        let w = max(1, Int(width * scale)), h = max(1, Int(height * scale))
        guard let surface = R.cairo_image_surface_create(1, Int32(w), Int32(h)) else { throw ParseError("page \(i + 1): out of memory") }  // CAIRO_FORMAT_RGB24
        defer { R.cairo_surface_destroy(surface) }
        guard R.cairo_surface_status(surface) == 0, let cr = R.cairo_create(surface) else { throw ParseError("page \(i + 1): cannot render") }
        R.cairo_set_source_rgb(cr, 1, 1, 1)
        R.cairo_paint(cr)
        R.cairo_scale(cr, scale, scale)
        P.poppler_page_render(page, cr)
        R.cairo_destroy(cr)
        R.cairo_surface_flush(surface)
        guard let data = R.cairo_image_surface_get_data(surface) else { throw ParseError("page \(i + 1): cannot render") }
        let stride = Int(R.cairo_image_surface_get_stride(surface))
        // xRGB words to an 8-bit grey leptonica image (pixels most significant byte first in 32-bit words).
        var pix = T.pixCreate(Int32(w), Int32(h), 8)
        defer { T.pixDestroy(&pix) }
        guard pix != nil, let out = T.pixGetData(pix) else { throw ParseError("page \(i + 1): out of memory") }
        let wpl = Int(T.pixGetWpl(pix))
        for y in 0..<h {
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            let target = out + y * wpl
            for x0 in Swift.stride(from: 0, to: w, by: 4) {
                var word: UInt32 = 0
                for k in 0..<4 where x0 + k < w {
                    let p = row[x0 + k]
                    let gray = ((p >> 16 & 0xFF) * 77 + (p >> 8 & 0xFF) * 150 + (p & 0xFF) * 29) >> 8
                    word |= gray << UInt32(24 - 8 * k)
                }
                target[x0 >> 2] = word
            }
        }
        let image = pix!
        pix = nil  // recognize takes it
        return try quietly { () throws(ParseError) in try OCR.recognize(taking: image, dpi: Int(scale * 72), language: language) }
    }

    /// Each share in a forked child, which sends [page][confidence][text] per page as soon as
    /// it is read (a crash loses only the pages after it).
    static func inWorkers(_ shares: [[Int]], document: OpaquePointer, language: OCRLanguage) -> [Int: OCRResult] {
        let received = WorkerProcesses.run(shares: shares.count) { share, send in
            for i in shares[share] {
                guard let r = try? page(i, document: document, language: language) else { continue }
                var record = WorkerRecord()
                record.put(Int32(i)); record.put(Int32(r.confidence)); record.put(r.text)
                send(record.bytes)
            }
        }
        var results: [Int: OCRResult] = [:]
        for bytes in received.compactMap({ $0 }) {
            var reader = WorkerRecordReader(bytes)
            while let i = reader.int32(), let confidence = reader.int32(), let text = reader.string(), let text {
                results[Int(i)] = OCRResult(text: text, confidence: Int(confidence))
            }
        }
        return results
    }
}

/// cairo, for rendering pages: poppler-glib already depends on it, so it is opened (not loaded
/// again) only when a page is rendered.
enum R {
    nonisolated(unsafe) static var cairo_image_surface_create: (@convention(c) (Int32, Int32, Int32) -> OpaquePointer?)!
    nonisolated(unsafe) static var cairo_surface_status: (@convention(c) (OpaquePointer?) -> Int32)!
    nonisolated(unsafe) static var cairo_surface_destroy: (@convention(c) (OpaquePointer?) -> Void)!
    nonisolated(unsafe) static var cairo_surface_flush: (@convention(c) (OpaquePointer?) -> Void)!
    nonisolated(unsafe) static var cairo_image_surface_get_data: (@convention(c) (OpaquePointer?) -> UnsafeMutablePointer<UInt8>?)!
    nonisolated(unsafe) static var cairo_image_surface_get_stride: (@convention(c) (OpaquePointer?) -> Int32)!
    nonisolated(unsafe) static var cairo_create: (@convention(c) (OpaquePointer?) -> OpaquePointer?)!
    nonisolated(unsafe) static var cairo_destroy: (@convention(c) (OpaquePointer?) -> Void)!
    nonisolated(unsafe) static var cairo_scale: (@convention(c) (OpaquePointer?, Double, Double) -> Void)!
    nonisolated(unsafe) static var cairo_set_source_rgb: (@convention(c) (OpaquePointer?, Double, Double, Double) -> Void)!
    nonisolated(unsafe) static var cairo_paint: (@convention(c) (OpaquePointer?) -> Void)!

    nonisolated(unsafe) private static var once = LoadOnce()

    static func load() throws(ParseError) { try once.run(loadCairo) }

    private static func loadCairo() throws(ParseError) {
        let cairo = try DynamicLibrary.open(["libcairo.so.2"], needed: "rendering scanned pages needs cairo (apt-get install libcairo2)")
        var missing: [String] = []
        func symbol<F>(_ name: String) -> F? { cairo.symbol(name, &missing) }
        cairo_image_surface_create = symbol("cairo_image_surface_create")
        cairo_surface_status = symbol("cairo_surface_status")
        cairo_surface_destroy = symbol("cairo_surface_destroy")
        cairo_surface_flush = symbol("cairo_surface_flush")
        cairo_image_surface_get_data = symbol("cairo_image_surface_get_data")
        cairo_image_surface_get_stride = symbol("cairo_image_surface_get_stride")
        cairo_create = symbol("cairo_create")
        cairo_destroy = symbol("cairo_destroy")
        cairo_scale = symbol("cairo_scale")
        cairo_set_source_rgb = symbol("cairo_set_source_rgb")
        cairo_paint = symbol("cairo_paint")
        try LoadOnce.require(missing, in: "cairo")
    }
}
