// The parsed form of one input before it becomes records: a book's metadata
// and its pages. Every format parser (one file each) produces a ParsedBook.
import IBCore

/// The formats ib-parse reads. The raw value is the `format` field of the book record.
public enum BookFormat: String, Sendable, CaseIterable {
    case text, markdown, html, pdf, epub, docx
    /// PNG, JPEG, TIFF or WebP, read by OCR.
    case image
    /// WAV, MP3, M4A/M4B, Ogg (Vorbis, Opus), FLAC: decoded by ffmpeg, transcribed.
    case audio

    /// Names accepted by --format.
    public init?(name: String) {
        switch name.lowercased() {
        case "text", "txt", "plain": self = .text
        case "markdown", "md": self = .markdown
        case "html", "htm", "xhtml": self = .html
        case "pdf": self = .pdf
        case "epub": self = .epub
        case "docx": self = .docx
        case "image", "png", "jpeg", "jpg", "tiff", "tif", "webp": self = .image
        case "audio", "wav", "mp3", "m4a", "m4b", "ogg", "opus", "flac": self = .audio
        default: return nil
        }
    }
}

public struct ParsedPage: Sendable, Equatable {
    public var label: String?
    public var sectionIndex: Int?
    public var sectionTitle: String?
    public var text: String
    /// Set when the text was recognised by OCR: tesseract's mean word confidence, 0-100.
    public var ocrConfidence: Int?
    /// Units (chapters, scenes, dated entries, letters) starting on this page.
    public var structure: [StructureMark] = []
    /// Audio books: where the page's speech starts and ends, in seconds.
    public var startTime: Double?
    public var endTime: Double?
    public init(label: String? = nil, sectionIndex: Int? = nil, sectionTitle: String? = nil, text: String, ocrConfidence: Int? = nil) {
        self.label = label; self.sectionIndex = sectionIndex; self.sectionTitle = sectionTitle; self.text = text
        self.ocrConfidence = ocrConfidence
    }
}

public struct ParsedBook: Sendable {
    public var title: String?
    public var authors: [String] = []
    public var language: String?
    public var format: BookFormat
    public var pages: [ParsedPage] = []
    /// Problems that did not fail the book (a PDF page that could not be extracted).
    public var warnings: [String] = []
    public init(format: BookFormat) { self.format = format }
}

/// Why an input could not be parsed. `kind` is a stable machine word for some
/// errors (`drm_protected`, `password_protected`); the message is for people.
public struct ParseError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var kind: String?
    public init(_ message: String, kind: String? = nil) { self.message = message; self.kind = kind }
    public var description: String { kind.map { $0 == "network" ? message : "\($0): \(message)" } ?? message }
}

/// Options shared by every format.
public struct ParseOptions: Sendable {
    /// Target length of an estimated page, in characters (Unicode scalars).
    public var pageCharacters = Pagination.defaultTarget
    /// Forces a text encoding for plain text (utf-8, utf-16le, utf-16be, latin1).
    public var encoding: TextEncoding?
    public var title: String?
    public var format: BookFormat?
    /// URL fetching limits.
    public var timeoutSeconds: Double = 30
    public var maxDownloadBytes = 256 << 20
    /// Worker processes for a PDF's pages (IB_PARSE_JOBS); nil: one per CPU for 64 pages or more.
    public var pdfWorkers: Int?
    /// When PDF pages are OCR'd (--ocr).
    public var ocr: OCRMode = .auto
    /// OCR languages (--lang); nil: from the book's metadata, else automatic.
    var ocrLanguage: OCRLanguage?
    /// Makes the speech recogniser for audio (the ib-parse tool sets it; nil: audio is refused).
    public var speech: SpeechRecognizerFactory?
    /// The speech model folder (--model); nil: the recogniser's default place.
    public var speechModel: String?
    /// Sets --lang: "auto" or tesseract names joined with "+" ("eng+chi_sim"); false when malformed.
    public mutating func setOCRLanguage(_ value: String) -> Bool {
        guard let l = OCRLanguage(value) else { return false }
        ocrLanguage = l
        return true
    }
    public init() {}
}

/// --ocr: `auto` OCRs the PDF pages whose text layer is (nearly) empty and that hold an image;
/// `always` every page; `never` none.
public enum OCRMode: String, Sendable, CaseIterable {
    case auto, always, never
}

extension String {
    /// Collapses runs of white space to one space and trims the ends.
    var collapsedWhitespace: String {
        var out = ""
        var pendingSpace = false
        for scalar in unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.unicodeScalars.append(" "); pendingSpace = false }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
