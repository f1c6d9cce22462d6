// OCR through tesseract's C API, with images decoded by leptonica (the library
// tesseract itself reads images with). Both are loaded on first use, like
// poppler: no other tool, and no ib-parse run without an image or a scanned
// page, pays for them at start-up.
//
// One recognition: the image (8-bit grey) goes to tesseract with automatic page
// segmentation; tesseract corrects small skew itself. When the result is poor
// (few words or low confidence), orientation and script are detected (osd):
// a page turned by 90, 180 or 270 degrees is turned back, and a page in Han
// script is read again with chi_sim, then the better reading is kept.
#if canImport(Glibc)
import Glibc
#endif

/// The recognised text of one image, in reading order, and tesseract's mean word confidence (0-100).
struct OCRResult: Sendable {
    var text: String
    var confidence: Int
}

/// OCR languages: "auto" (English, Chinese when the script is Han), or tesseract names joined with "+".
struct OCRLanguage: Sendable, Equatable {
    var names: String?   // nil: auto
    static let auto = OCRLanguage(names: nil)
    /// Where tesseract finds its language data (TESSDATA_PREFIX, as tesseract itself reads it).
    static let installedDataPath = getenv("TESSDATA_PREFIX").map { String(cString: $0) } ?? "/usr/share/tesseract-ocr/5/tessdata"

    /// Parses --lang: "auto", or tesseract language names ("eng", "chi_sim", "eng+chi_sim").
    init?(_ value: String) {
        if value == "auto" { names = nil; return }
        let parts = value.split(separator: "+", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" } }) else { return nil }
        // Each language's data must be installed (tesseract-ocr-LANG).
        guard parts.allSatisfy({ access(Self.installedDataPath + "/\($0).traineddata", R_OK) == 0 }) else { return nil }
        names = value
    }
    init(names: String?) { self.names = names }

    /// The tesseract languages for a book's metadata language (BCP 47: "en", "zh-CN"), else auto.
    static func forBook(_ language: String?) -> OCRLanguage {
        guard let l = language?.lowercased() else { return .auto }
        if l.hasPrefix("zh") { return l.contains("hant") || l.hasSuffix("tw") || l.hasSuffix("hk") ? OCRLanguage(names: "chi_tra") : OCRLanguage(names: OCR.chinese) }
        if l.hasPrefix("en") { return OCRLanguage(names: "eng") }
        return .auto
    }
}

enum OCR {
    /// Images larger than this are refused before they are decoded (a 48-megapixel photo is 48M).
    static let maxPixels = 64_000_000
    /// Larger images are scaled down to about this many pixels before recognition: a page needs
    /// no more (a 300 dpi A4 page is 8.7M pixels), and time grows with the pixel count.
    static let scaleAbove = 16_000_000

    /// Simplified Chinese: the chi_sim model with the Han script model (HanS) beside it when
    /// installed. Character recall on the three clean pages of scripts/gen/ocr-images (Noto Serif
    /// CJK SC 12 pt, 200 dpi): chi_sim 0.974, HanS 0.977, chi_sim+HanS 0.981 (twice the time).
    static let chinese = access(OCRLanguage.installedDataPath + "/HanS.traineddata", R_OK) == 0 ? "chi_sim+HanS" : "chi_sim"

    /// One tesseract instance per language set in this process (workers make their own after fork).
    nonisolated(unsafe) private static var engines: [String: OpaquePointer] = [:]

    static func engine(_ languages: String) throws(ParseError) -> OpaquePointer {
        if let e = engines[languages] { return e }
        try T.load()
        guard let api = T.TessBaseAPICreate() else { throw ParseError("tesseract could not start") }
        // Tesseract's own messages ("Estimating resolution...", "Empty page!!") are not ours to print.
        _ = T.TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        if T.TessBaseAPIInit3(api, nil, languages) != 0 {
            T.TessBaseAPIDelete(api)
            throw ParseError("OCR language data '\(languages)' is not installed (apt-get install tesseract-ocr-\(String(String(languages.split(separator: "+").first ?? "eng").map { $0 == "_" ? "-" : $0 })))")
        }
        _ = T.TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        T.TessBaseAPISetPageSegMode(api, 3)  // PSM_AUTO: layout analysis, no OSD
        engines[languages] = api
        return api
    }

    /// Recognises a leptonica image of any depth (`dpi` 0 when unknown):
    /// made grey, scaled down when larger than needed, its background evened out (shadows, uneven
    /// light) and its skew corrected, then read.
    /// Takes ownership of `source`, freed as soon as its grey copy is made (memory: the decoded
    /// image and its copy are never held together with the rest).
    static func recognize(taking source: OpaquePointer, dpi given: Int, language: OCRLanguage) throws(ParseError) -> OCRResult {
        var owned: OpaquePointer? = source
        var gray = T.pixConvertTo8(source, 0)
        T.pixDestroy(&owned)
        defer { T.pixDestroy(&gray) }
        guard gray != nil else { throw ParseError("the image cannot be converted to grey (unsupported pixel format)") }
        var dpi = given
        var w = Int(T.pixGetWidth(gray)), h = Int(T.pixGetHeight(gray))
        func replace(_ made: OpaquePointer?) {
            guard made != nil else { return }
            var old = gray
            gray = made
            T.pixDestroy(&old)
        }
        if w * h > scaleAbove {
            let scale = Float((Double(scaleAbove) / Double(w * h)).squareRoot())
            replace(T.pixScaleGrayLI(gray, scale, scale))
            if dpi > 0 { dpi = Int(Float(dpi) * scale) }
            w = Int(T.pixGetWidth(gray)); h = Int(T.pixGetHeight(gray))
        }
        // A resolution that is not plausible (photos say 72 or 96, or nothing) is left to tesseract,
        // which estimates it from the height of the text; a stated one is tried first (it helps
        // small Chinese type: 0.981 against 0.967 estimated) and, when the reading is poor, the
        // estimate (a cover's large type at a stated 150 dpi reads as no text at all).
        if dpi < 70 || dpi > 1200 || dpi == 72 || dpi == 96 { dpi = 0 }
        // Measured on the 12 phone-like photos of scripts/gen/ocr-images: word recall 0.30 without
        // levelling and deskewing (several pages read as empty), 0.999 with them. Levelling takes
        // the strokes of large type (a cover's title) for background, so a reading that is poor
        // after it is tried again on the image only deskewed, and the better one kept.
        var levelled = T.pixBackgroundNormSimple(gray, nil, nil)
        defer { T.pixDestroy(&levelled) }
        var binary = T.pixConvertTo1(levelled ?? gray, 160)
        var angle: Float = 0, confidence: Float = 0
        if binary != nil && T.pixFindSkewSweepAndSearch(binary, &angle, &confidence, 4, 2, 15, 0.5, 0.01) == 0
            && confidence >= 2.5 && abs(angle) >= 0.2 {
            // Skew up to 15 degrees either way (a tilted photo), found on a binarised copy.
            replace(T.pixRotate(gray, angle * Float.pi / 180, 1, 1, 0, 0))  // area map, bring in white
            if levelled != nil, let turned = T.pixRotate(levelled, angle * Float.pi / 180, 1, 1, 0, 0) {
                T.pixDestroy(&levelled); levelled = turned
            }
        }
        T.pixDestroy(&binary)
        func read(_ pix: OpaquePointer, dpi: Int) throws(ParseError) -> OCRResult {
            let w = Int(T.pixGetWidth(pix)), h = Int(T.pixGetHeight(pix))
            // Leptonica keeps 8-bit pixels in 32-bit words, most significant byte first.
            let wpl = Int(T.pixGetWpl(pix))
            guard let data = T.pixGetData(pix) else { throw ParseError("the image has no pixels") }
            var bytes = [UInt8](repeating: 0, count: w * h)
            for y in 0..<h {
                let row = data + y * wpl
                for x in 0..<w { bytes[y * w + x] = UInt8(truncatingIfNeeded: row[x >> 2] >> (24 - 8 * UInt32(x & 3))) }
            }
            return try bytes.withUnsafeBufferPointer { (b) throws(ParseError) in
                try recognize(gray: b.baseAddress!, width: w, height: h, stride: w, dpi: dpi, language: language)
            }
        }
        var attempts: [(OpaquePointer, Int)] = []
        // Tesseract's own estimate fails for Chinese (no x-height: it guessed 611 dpi for 24 pt type
        // at 150), so 150 dpi is tried last.
        for resolution in dpi > 0 ? [dpi, 0] : [0, 150] {
            if let levelled { attempts.append((levelled, resolution)) }
            attempts.append((gray!, resolution))
        }
        var best: OCRResult? = nil
        for (image, resolution) in attempts {
            let r = try read(image, dpi: resolution)
            if best == nil || better(r, than: best!) { best = r }
            if good(best!) { break }
        }
        return best!
    }

    /// Recognises an 8-bit grey image (`stride` bytes per row) at `dpi`.
    static func recognize(gray: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, dpi: Int,
                          language: OCRLanguage) throws(ParseError) -> OCRResult {
        let languages = language.names ?? "eng"
        let first = try run(gray: gray, width: width, height: height, stride: stride, dpi: dpi, languages: languages)
        if good(first) { return first }
        // Poor: find the orientation (osd) and read the turned page again; in auto, also try Chinese
        // (osd cannot tell Han script from too few characters), and keep the best reading.
        var best = first
        let degrees = detectOrientation(gray: gray, width: width, height: height, stride: stride, dpi: dpi)?.0 ?? 0
        var image = [UInt8](), w = width, h = height
        if degrees != 0 {
            (image, w, h) = rotate(gray: gray, width: width, height: height, stride: stride, degrees: degrees)
            let again = try image.withUnsafeBufferPointer { (b) throws(ParseError) in
                try run(gray: b.baseAddress!, width: w, height: h, stride: w, dpi: dpi, languages: languages)
            }
            if better(again, than: best) { best = again }
        }
        if language.names == nil && !good(best) {
            let chinese = try { () throws(ParseError) -> OCRResult in
                if degrees == 0 { return try run(gray: gray, width: width, height: height, stride: stride, dpi: dpi, languages: OCR.chinese) }
                return try image.withUnsafeBufferPointer { (b) throws(ParseError) in
                    try run(gray: b.baseAddress!, width: w, height: h, stride: w, dpi: dpi, languages: OCR.chinese)
                }
            }()
            if better(chinese, than: best) { best = chinese }
        }
        return best
    }

    /// A reading that needs no second try: confident, and either some text or a few words read
    /// very confidently (a cover).
    static func good(_ r: OCRResult) -> Bool {
        let words = wordCount(r.text)
        return (r.confidence >= 75 && words >= 5) || (r.confidence >= 88 && words >= 1)
    }
    /// The higher confidence wins, unless it read far fewer words than a fair reading.
    static func better(_ a: OCRResult, than b: OCRResult) -> Bool {
        if wordCount(a.text) * 2 < wordCount(b.text) && b.confidence >= 60 { return false }
        return a.confidence > b.confidence
    }
    static func wordCount(_ s: String) -> Int {
        var n = 0, inWord = false
        for u in s.unicodeScalars {
            if u.value >= 0x2E80 { n += 1; inWord = false; continue }  // a CJK character counts as a word
            let letter = u.properties.isAlphabetic || u.properties.numericType != nil
            if letter && !inWord { n += 1 }
            inWord = letter
        }
        return n
    }

    private static func run(gray: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, dpi: Int,
                            languages: String) throws(ParseError) -> OCRResult {
        let api = try engine(languages)
        T.TessBaseAPISetImage(api, gray, Int32(width), Int32(height), 1, Int32(stride))
        if dpi > 0 { T.TessBaseAPISetSourceResolution(api, Int32(dpi)) }
        defer { T.TessBaseAPIClear(api) }
        guard let raw = T.TessBaseAPIGetUTF8Text(api) else { return OCRResult(text: "", confidence: 0) }
        let length = strlen(raw)
        let text = raw.withMemoryRebound(to: UInt8.self, capacity: length) { tidy(UnsafeBufferPointer(start: $0, count: length)) }
        T.TessDeleteText(raw)
        let confidence = text.isEmpty ? 0 : Int(T.TessBaseAPIMeanTextConf(api))
        return OCRResult(text: text, confidence: max(0, min(100, confidence)))
    }

    /// Orientation in degrees to turn the image clockwise (0, 90, 180, 270) and the script name, from tesseract's osd.
    private static func detectOrientation(gray: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, dpi: Int) -> (Int, String)? {
        guard let api = try? engine("osd") else { return nil }
        T.TessBaseAPISetImage(api, gray, Int32(width), Int32(height), 1, Int32(stride))
        if dpi > 0 { T.TessBaseAPISetSourceResolution(api, Int32(dpi)) }
        defer { T.TessBaseAPIClear(api) }
        var degrees: Int32 = 0, orientationConfidence: Float = 0, scriptConfidence: Float = 0
        var script: UnsafePointer<CChar>? = nil
        guard T.TessBaseAPIDetectOrientationScript(api, &degrees, &orientationConfidence, &script, &scriptConfidence) != 0 else { return nil }
        let name = script.map { String(cString: $0) } ?? ""
        // Orientation is trusted only with some confidence (tesseract's own cut-off is 2).
        return (orientationConfidence >= 2 ? Int(degrees) : 0, scriptConfidence >= 1 ? name : "")
    }

    /// Turns a grey image by `degrees` (90, 180, 270) counter-clockwise, the way osd's orient_deg asks.
    static func rotate(gray: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, degrees: Int) -> ([UInt8], Int, Int) {
        let quarter = ((degrees / 90) % 4 + 4) % 4
        let (w, h) = quarter % 2 == 1 ? (height, width) : (width, height)
        var out = [UInt8](repeating: 255, count: w * h)
        for y in 0..<height {
            let row = gray + y * stride
            for x in 0..<width {
                let (nx, ny): (Int, Int)
                switch quarter {
                case 1: (nx, ny) = (y, width - 1 - x)             // 90 counter-clockwise
                case 2: (nx, ny) = (width - 1 - x, height - 1 - y)
                case 3: (nx, ny) = (height - 1 - y, x)            // 270 counter-clockwise
                default: (nx, ny) = (x, y)
                }
                out[ny * w + nx] = row[x]
            }
        }
        return (out, w, h)
    }

    /// Tesseract's text made into page text: lines kept, paragraphs as blank lines, line-end
    /// hyphenation joined (as for PDF text), the spaces tesseract puts between Chinese characters
    /// removed, and a line break between two Chinese characters joined (it is no word break).
    static func tidy(_ b: UnsafeBufferPointer<UInt8>) -> String {
        let joined = joinFalseParagraphs(PDFParser.joinHyphenation(b))
        var out = String.UnicodeScalarView()
        let scalars = Array(joined.unicodeScalars)
        func cjk(_ u: Unicode.Scalar) -> Bool {
            let v = u.value
            return (0x3000...0x303F).contains(v) || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFF00...0xFFEF).contains(v) || (0x20000...0x2FA1F).contains(v)
        }
        var i = 0
        while i < scalars.count {
            let u = scalars[i]
            if (u == " " || u == "\n") && !out.isEmpty {
                // A run of spaces, or one line break, between two CJK characters goes.
                var j = i
                var newlines = 0
                while j < scalars.count && (scalars[j] == " " || scalars[j] == "\n") { if scalars[j] == "\n" { newlines += 1 }; j += 1 }
                // A line break only inside a paragraph: after a full line (12 characters or more),
                // not between short lines (titles on a cover or a shelf).
                var lineLength = 0
                for c in out.reversed() { if c == "\n" { break }; lineLength += 1 }
                if newlines <= 1, j < scalars.count, let last = out.last, cjk(last), cjk(scalars[j]),
                   newlines == 0 || lineLength >= 12 { i = j; continue }
            }
            out.append(u)
            i += 1
        }
        return String(out)
    }
}

extension OCR {
    /// Tesseract often takes every line of a photographed page (curved, in perspective) for a
    /// paragraph of its own. A blank line is kept only where a paragraph can end: not where a
    /// full line (40 characters or more: not a heading) ends inside a sentence (on a letter, a
    /// comma or a semicolon) and the next line goes on with a word.
    static func joinFalseParagraphs(_ text: String) -> String {
        guard text.contains("\n\n") else { return text }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var out: [Substring] = []
        var i = 0
        while i < lines.count {
            let line = lines[i]
            out.append(line)
            // line, "", next: drop the blank when the sentence plainly goes on.
            if i + 2 < lines.count, lines[i + 1].isEmpty, line.count >= 40, let last = line.last,
               last.isLetter || last == "," || last == ";", let first = lines[i + 2].first, first.isLetter {
                i += 2
                continue
            }
            i += 1
        }
        return out.joined(separator: "\n")
    }
}

/// Runs `body` with standard error sent to /dev/null: libpng, libjpeg and libtiff report
/// broken data there on their own, and one line per input is ours to print.
func quietly<R>(_ body: () throws(ParseError) -> R) throws(ParseError) -> R {
    fflush(nil)
    let saved = dup(2)
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    if saved >= 0 && null >= 0 { dup2(null, 2) }
    if null >= 0 { close(null) }
    defer {
        fflush(nil)
        if saved >= 0 { dup2(saved, 2); close(saved) }
    }
    return try body()
}

/// tesseract and leptonica, loaded on first use.
enum T {
    nonisolated(unsafe) static var TessBaseAPICreate: (@convention(c) () -> OpaquePointer?)!
    nonisolated(unsafe) static var TessBaseAPIDelete: (@convention(c) (OpaquePointer?) -> Void)!
    nonisolated(unsafe) static var TessBaseAPIInit3: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32)!
    nonisolated(unsafe) static var TessBaseAPISetVariable: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32)!
    nonisolated(unsafe) static var TessBaseAPISetPageSegMode: (@convention(c) (OpaquePointer?, Int32) -> Void)!
    nonisolated(unsafe) static var TessBaseAPISetImage: (@convention(c) (OpaquePointer?, UnsafePointer<UInt8>?, Int32, Int32, Int32, Int32) -> Void)!
    nonisolated(unsafe) static var TessBaseAPISetSourceResolution: (@convention(c) (OpaquePointer?, Int32) -> Void)!
    nonisolated(unsafe) static var TessBaseAPIGetUTF8Text: (@convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?)!
    nonisolated(unsafe) static var TessDeleteText: (@convention(c) (UnsafeMutablePointer<CChar>?) -> Void)!
    nonisolated(unsafe) static var TessBaseAPIMeanTextConf: (@convention(c) (OpaquePointer?) -> Int32)!
    nonisolated(unsafe) static var TessBaseAPIClear: (@convention(c) (OpaquePointer?) -> Void)!
    nonisolated(unsafe) static var TessBaseAPIDetectOrientationScript: (@convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Float>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?, UnsafeMutablePointer<Float>?) -> Int32)!
    // leptonica
    nonisolated(unsafe) static var setMsgSeverity: (@convention(c) (Int32) -> Int32)!
    nonisolated(unsafe) static var pixReadHeaderMem: (@convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> Int32)!
    nonisolated(unsafe) static var readHeaderMemTiff: (@convention(c) (UnsafePointer<UInt8>?, Int, Int32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> Int32)!
    nonisolated(unsafe) static var pixReadMem: (@convention(c) (UnsafePointer<UInt8>?, Int) -> OpaquePointer?)!
    nonisolated(unsafe) static var pixReadMemJpeg: (@convention(c) (UnsafePointer<UInt8>?, Int, Int32, Int32, UnsafeMutablePointer<Int32>?, Int32) -> OpaquePointer?)!
    nonisolated(unsafe) static var pixReadMemTiff: (@convention(c) (UnsafePointer<UInt8>?, Int, Int32) -> OpaquePointer?)!
    nonisolated(unsafe) static var pixConvertTo8: (@convention(c) (OpaquePointer?, Int32) -> OpaquePointer?)!
    nonisolated(unsafe) static var pixBackgroundNormSimple: (@convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> OpaquePointer?)!
    nonisolated(unsafe) static var pixConvertTo1: (@convention(c) (OpaquePointer?, Int32) -> OpaquePointer?)!
    nonisolated(unsafe) static var pixFindSkewSweepAndSearch: (@convention(c) (OpaquePointer?, UnsafeMutablePointer<Float>?, UnsafeMutablePointer<Float>?, Int32, Int32, Float, Float, Float) -> Int32)!
    nonisolated(unsafe) static var pixRotate: (@convention(c) (OpaquePointer?, Float, Int32, Int32, Int32, Int32) -> OpaquePointer?)!
    nonisolated(unsafe) static var pixCreate: (@convention(c) (Int32, Int32, Int32) -> OpaquePointer?)!
    nonisolated(unsafe) static var pixScaleGrayLI: (@convention(c) (OpaquePointer?, Float, Float) -> OpaquePointer?)!
    nonisolated(unsafe) static var pixDestroy: (@convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Void)!
    nonisolated(unsafe) static var pixGetWidth: (@convention(c) (OpaquePointer?) -> Int32)!
    nonisolated(unsafe) static var pixGetHeight: (@convention(c) (OpaquePointer?) -> Int32)!
    nonisolated(unsafe) static var pixGetWpl: (@convention(c) (OpaquePointer?) -> Int32)!
    nonisolated(unsafe) static var pixGetXRes: (@convention(c) (OpaquePointer?) -> Int32)!
    nonisolated(unsafe) static var pixGetData: (@convention(c) (OpaquePointer?) -> UnsafeMutablePointer<UInt32>?)!

    nonisolated(unsafe) private static var once = LoadOnce()

    static func load() throws(ParseError) { try once.run(loadTesseract) }

    private static func loadTesseract() throws(ParseError) {
        // Tesseract is built with OpenMP: one thread per process, so that worker processes
        // (one per CPU) do not each start a thread per CPU, and fork stays safe.
        setenv("OMP_THREAD_LIMIT", "1", 0)
        let tess = try DynamicLibrary.open(["libtesseract.so.5"], needed: "OCR needs tesseract (apt-get install libtesseract5 tesseract-ocr-eng)")
        let lept = try DynamicLibrary.open(["liblept.so.5"], needed: "OCR needs leptonica (apt-get install liblept5)")
        var missing: [String] = []
        func symbol<F>(_ library: DynamicLibrary, _ name: String) -> F? { library.symbol(name, &missing) }
        TessBaseAPICreate = symbol(tess, "TessBaseAPICreate")
        TessBaseAPIDelete = symbol(tess, "TessBaseAPIDelete")
        TessBaseAPIInit3 = symbol(tess, "TessBaseAPIInit3")
        TessBaseAPISetVariable = symbol(tess, "TessBaseAPISetVariable")
        TessBaseAPISetPageSegMode = symbol(tess, "TessBaseAPISetPageSegMode")
        TessBaseAPISetImage = symbol(tess, "TessBaseAPISetImage")
        TessBaseAPISetSourceResolution = symbol(tess, "TessBaseAPISetSourceResolution")
        TessBaseAPIGetUTF8Text = symbol(tess, "TessBaseAPIGetUTF8Text")
        TessDeleteText = symbol(tess, "TessDeleteText")
        TessBaseAPIMeanTextConf = symbol(tess, "TessBaseAPIMeanTextConf")
        TessBaseAPIClear = symbol(tess, "TessBaseAPIClear")
        TessBaseAPIDetectOrientationScript = symbol(tess, "TessBaseAPIDetectOrientationScript")
        setMsgSeverity = symbol(lept, "setMsgSeverity")
        pixReadHeaderMem = symbol(lept, "pixReadHeaderMem")
        readHeaderMemTiff = symbol(lept, "readHeaderMemTiff")
        pixReadMem = symbol(lept, "pixReadMem")
        pixReadMemTiff = symbol(lept, "pixReadMemTiff")
        pixReadMemJpeg = symbol(lept, "pixReadMemJpeg")
        pixConvertTo8 = symbol(lept, "pixConvertTo8")
        pixScaleGrayLI = symbol(lept, "pixScaleGrayLI")
        pixBackgroundNormSimple = symbol(lept, "pixBackgroundNormSimple")
        pixConvertTo1 = symbol(lept, "pixConvertTo1")
        pixFindSkewSweepAndSearch = symbol(lept, "pixFindSkewSweepAndSearch")
        pixRotate = symbol(lept, "pixRotate")
        pixCreate = symbol(lept, "pixCreate")
        pixDestroy = symbol(lept, "pixDestroy")
        pixGetWidth = symbol(lept, "pixGetWidth")
        pixGetHeight = symbol(lept, "pixGetHeight")
        pixGetWpl = symbol(lept, "pixGetWpl")
        pixGetXRes = symbol(lept, "pixGetXRes")
        pixGetData = symbol(lept, "pixGetData")
        try LoadOnce.require(missing, in: "tesseract or leptonica")
        _ = setMsgSeverity(6)  // L_SEVERITY_NONE: leptonica's messages are not ours to print
    }
}

