// The records every stage reads and writes: one JSON object per line, each
// with a `type`. Field names are snake_case and documented in man/man7/ib.7.
// Fields a stage does not know are kept and written back unchanged.

/// Why a record could not be read; the reader adds FILE:LINE.
public struct RecordError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads typed fields out of a record object with messages that name the field.
struct FieldReader {
    let object: JSONObject
    let type: String

    func string(_ key: String) throws(RecordError) -> String { try required(key, "a string", \.stringValue) }
    func optionalString(_ key: String) throws(RecordError) -> String? { try optional(key, "a string", \.stringValue) }
    func int(_ key: String) throws(RecordError) -> Int { try required(key, "an integer", \.intValue) }
    func optionalInt(_ key: String) throws(RecordError) -> Int? { try optional(key, "an integer", \.intValue) }

    private func required<T>(_ key: String, _ kind: String, _ read: (JSON) -> T?) throws(RecordError) -> T {
        guard let value = object[key] else { throw RecordError("\(type) record: missing field '\(key)'") }
        guard let typed = read(value) else { throw RecordError("\(type) record: field '\(key)' must be \(kind)") }
        return typed
    }

    /// Absent and null are both nil.
    private func optional<T>(_ key: String, _ kind: String, _ read: (JSON) -> T?) throws(RecordError) -> T? {
        guard let value = object[key], !value.isNull else { return nil }
        return try required(key, kind, read)
    }

    /// An integer field within `range` (absent: nil).
    func optionalInt(_ key: String, in range: ClosedRange<Int>) throws(RecordError) -> Int? {
        guard let value = try optionalInt(key) else { return nil }
        try Self.check(value, key, in: range, type)
        return value
    }

    func int(_ key: String, in range: ClosedRange<Int>) throws(RecordError) -> Int {
        let value = try int(key)
        try Self.check(value, key, in: range, type)
        return value
    }

    static func check(_ value: Int, _ key: String, in range: ClosedRange<Int>, _ type: String) throws(RecordError) {
        guard range.contains(value) else {
            throw RecordError("\(type) record: field '\(key)' is \(value), outside \(range.lowerBound)...\(range.upperBound)")
        }
    }

    /// A book id (`key`): it names rows, files and URLs, so it must be a plain identifier.
    func bookID(_ key: String) throws(RecordError) -> String {
        let id = try string(key)
        if let why = RecordLimits.bookIDProblem(id) { throw RecordError("\(type) record: field '\(key)' \(why)") }
        return id
    }

    func strings(_ key: String) throws(RecordError) -> [String] {
        guard let value = object[key], !value.isNull else { return [] }
        if let single = value.stringValue { return [single] }
        guard let array = value.arrayValue else { throw RecordError("\(type) record: field '\(key)' must be an array of strings") }
        var out: [String] = []
        for item in array {
            guard let s = item.stringValue else { throw RecordError("\(type) record: field '\(key)' must be an array of strings") }
            out.append(s)
        }
        return out
    }

    /// Everything not in `known`, to be written back out unchanged.
    func extra(known: Set<String>) -> JSONObject {
        var extra = JSONObject()
        for entry in object.entries where !known.contains(entry.key) { extra[entry.key] = entry.value }
        return extra
    }
}

/// The bounds record fields must keep: anything outside is a broken or
/// hostile producer, refused at the door with FILE:LINE.
public enum RecordLimits {
    public static let bookIDBytes = 128
    /// Pages of a book (a page number, page_count).
    public static let pages = 10_000_000
    /// Character offsets into a page, chunk indices, token counts.
    public static let offsets = 1_000_000_000

    /// Why `id` is not a sane book id, or nil when it is: non-empty, at most
    /// 128 bytes, no path separators, no `..`, no control characters.
    public static func bookIDProblem(_ id: String) -> String? {
        if id.isEmpty { return "is empty" }
        if id.utf8.count > bookIDBytes { return "is \(id.utf8.count) bytes long; at most \(bookIDBytes)" }
        if id.contains("/") || id.contains("\\") { return "contains a path separator" }
        if id.contains("..") { return "contains '..'" }
        if id.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "contains a control character"
        }
        return nil
    }
}

// MARK: - book

public struct BookRecord: Sendable, Equatable {
    public var id: String
    public var title: String
    public var authors: [String]
    public var language: String?
    public var format: String
    public var source: String
    public var sha256: String
    public var pageCount: Int
    public var extra = JSONObject()

    public init(id: String, title: String, authors: [String], language: String?, format: String,
                source: String, sha256: String, pageCount: Int) {
        self.id = id; self.title = title; self.authors = authors; self.language = language
        self.format = format; self.source = source; self.sha256 = sha256; self.pageCount = pageCount
    }

    /// Book ids derive from the content hash: the same bytes always get the same id.
    public static func id(forSHA256 sha256: String) -> String { String(sha256.prefix(16)) }

    static let known: Set<String> = ["type", "id", "title", "authors", "language", "format", "source", "sha256", "page_count"]

    public init(_ object: JSONObject) throws(RecordError) {
        let r = FieldReader(object: object, type: "book")
        id = try r.bookID("id")
        title = try r.string("title")
        authors = try r.strings("authors")
        language = try r.optionalString("language")
        format = try r.optionalString("format") ?? "unknown"
        source = try r.optionalString("source") ?? ""
        sha256 = try r.optionalString("sha256") ?? ""
        pageCount = try r.optionalInt("page_count", in: 0...RecordLimits.pages) ?? 0
        extra = r.extra(known: Self.known)
    }

    public var json: JSON {
        .object(.record(["type": "book", "id": .string(id), "title": .string(title), "authors": JSON(authors),
                         "language": JSON(language), "format": .string(format), "source": .string(source),
                         "sha256": .string(sha256), "page_count": JSON(pageCount)], extra: extra))
    }
}

// MARK: - page

public struct PageRecord: Sendable, Equatable {
    public var bookID: String
    /// Physical page number, from 1.
    public var page: Int
    /// The printed page label ("iv", "23") where the source defines one.
    public var label: String?
    public var sectionIndex: Int?
    public var sectionTitle: String?
    public var text: String
    public var extra = JSONObject()

    public init(bookID: String, page: Int, label: String? = nil, sectionIndex: Int? = nil,
                sectionTitle: String? = nil, text: String) {
        self.bookID = bookID; self.page = page; self.label = label
        self.sectionIndex = sectionIndex; self.sectionTitle = sectionTitle; self.text = text
    }

    static let known: Set<String> = ["type", "book_id", "page", "label", "section_index", "section_title", "text"]

    public init(_ object: JSONObject) throws(RecordError) {
        let r = FieldReader(object: object, type: "page")
        bookID = try r.bookID("book_id")
        page = try r.int("page", in: 1...RecordLimits.pages)
        label = try r.optionalString("label")
        sectionIndex = try r.optionalInt("section_index", in: 0...RecordLimits.offsets)
        sectionTitle = try r.optionalString("section_title")
        text = try r.string("text")
        extra = r.extra(known: Self.known)
    }

    public var json: JSON {
        .object(.record(["type": "page", "book_id": .string(bookID), "page": JSON(page), "label": JSON(label),
                         "section_index": JSON(sectionIndex), "section_title": JSON(sectionTitle), "text": .string(text)],
                        extra: extra))
    }
}

// MARK: - chunk

public enum EmbeddingEncoding: String, Sendable {
    case floats     // a JSON array of numbers
    case base64     // little-endian float32, base64

    /// Writes `vector` as a JSON value in this encoding (chunk records and ib-embed --query share it).
    public func write(_ vector: [Float], to out: inout [UInt8]) {
        switch self {
        case .floats:
            out.append(UInt8(ascii: "["))
            for (i, value) in vector.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeFloat(value, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .base64:
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: Base64.encode(Float32LE.bytes(vector)).utf8)
            out.append(UInt8(ascii: "\""))
        }
    }
}

public struct ChunkRecord: Sendable, Equatable {
    public var bookID: String
    /// Position of the chunk in its book, from 0.
    public var index: Int
    public var startPage: Int
    public var endPage: Int
    /// Unicode scalar offset into start_page's text where the chunk begins.
    public var startOffset: Int
    /// Unicode scalar offset into end_page's text where the chunk ends (exclusive).
    public var endOffset: Int
    public var tokenCount: Int
    public var text: String
    public var embedding: [Float]?
    /// Window vectors: the chunk's tokens in runs of about 32, then its paragraphs
    /// (at most 64 tokens), each mean-pooled from the same forward pass as
    /// `embedding`, unit length, quantised to int8 by its largest component; `dim`
    /// codes per window. Search scores chunks by their best window. Empty when absent.
    public var windows: [Int8] = []
    public var model: String?
    /// The precision the native model ran in for `embedding` and `windows` ("bf16",
    /// "int8"); nil means fp32, or a provider's own vectors (HTTP providers write none).
    /// ib-index keeps a library to one precision; ib-search embeds queries in it.
    public var precision: String?
    public var extra = JSONObject()

    /// The values "precision" may take; an absent field reads as fp32.
    public static let precisions: Set<String> = ["fp32", "bf16", "int8"]

    /// `precision` with absence read as fp32.
    public var effectivePrecision: String { precision ?? "fp32" }

    public init(bookID: String, index: Int, startPage: Int, endPage: Int, startOffset: Int, endOffset: Int,
                tokenCount: Int, text: String, embedding: [Float]? = nil, model: String? = nil) {
        self.bookID = bookID; self.index = index; self.startPage = startPage; self.endPage = endPage
        self.startOffset = startOffset; self.endOffset = endOffset; self.tokenCount = tokenCount
        self.text = text; self.embedding = embedding; self.model = model
    }

    /// Stable across runs: the same book and index always name the same chunk.
    public var id: String { "\(bookID):\(index)" }

    static let known: Set<String> = ["type", "book_id", "index", "start_page", "end_page", "start_offset",
                                     "end_offset", "token_count", "text", "embedding", "model", "precision", "dim", "windows"]

    public init(_ object: JSONObject) throws(RecordError) {
        let r = FieldReader(object: object, type: "chunk")
        bookID = try r.bookID("book_id")
        index = try r.int("index", in: 0...RecordLimits.offsets)
        startPage = try r.int("start_page", in: 1...RecordLimits.pages)
        endPage = try r.int("end_page", in: 1...RecordLimits.pages)
        if endPage < startPage { throw RecordError("chunk record: end_page \(endPage) is before start_page \(startPage)") }
        startOffset = try r.optionalInt("start_offset", in: 0...RecordLimits.offsets) ?? 0
        // A missing end on a one-page chunk is its start (so the record writes back readable).
        endOffset = try r.optionalInt("end_offset", in: 0...RecordLimits.offsets) ?? (startPage == endPage ? startOffset : 0)
        if startPage == endPage && endOffset < startOffset {
            throw RecordError("chunk record: end_offset \(endOffset) is before start_offset \(startOffset) on the same page")
        }
        tokenCount = try r.optionalInt("token_count", in: 0...RecordLimits.offsets) ?? 0
        text = try r.string("text")
        model = try r.optionalString("model")
        precision = try r.optionalString("precision")
        if let precision, !Self.precisions.contains(precision) {
            throw RecordError("chunk record: 'precision' is '\(precision)', not one of \(Self.precisions.sorted().joined(separator: ", "))")
        }
        extra = r.extra(known: Self.known)
        embedding = try Self.readEmbedding(object["embedding"])
        if let embedding, let dim = try r.optionalInt("dim"), dim != embedding.count {
            throw RecordError("chunk record: 'dim' is \(dim) but the embedding has \(embedding.count) values")
        }
        if let value = object["windows"], !value.isNull {
            guard let embedding, !embedding.isEmpty else { throw RecordError("chunk record: 'windows' without an embedding") }
            guard let text = value.stringValue, let bytes = Base64.decode(text), bytes.count % embedding.count == 0 else {
                throw RecordError("chunk record: 'windows' must be base64 of int8 codes, \(embedding.count) per window")
            }
            windows = bytes.map { Int8(bitPattern: $0) }
        }
    }

    static func readEmbedding(_ value: JSON?) throws(RecordError) -> [Float]? {
        guard let value, !value.isNull else { return nil }
        if let text = value.stringValue {
            guard let bytes = Base64.decode(text), bytes.count % 4 == 0 else {
                throw RecordError("chunk record: 'embedding' is not base64 of little-endian float32 values")
            }
            let floats = Float32LE.floats(bytes)
            guard floats.allSatisfy(\.isFinite) else { throw RecordError("chunk record: 'embedding' has NaN or infinite values") }
            return floats
        }
        guard let array = value.arrayValue else { throw RecordError("chunk record: 'embedding' must be an array of numbers or a base64 string") }
        var floats: [Float] = []
        floats.reserveCapacity(array.count)
        for item in array {
            guard let n = item.doubleValue else { throw RecordError("chunk record: 'embedding' must hold only numbers") }
            let f = Float(n)
            guard f.isFinite else { throw RecordError("chunk record: 'embedding' has NaN or infinite values") }
            floats.append(f)
        }
        return floats
    }

    /// Writes the record as one JSON line (without the newline).
    public func write(to out: inout [UInt8], encoding: EmbeddingEncoding = .floats) {
        let o = JSONObject.record(["type": "chunk", "book_id": .string(bookID), "index": JSON(index),
                                   "start_page": JSON(startPage), "end_page": JSON(endPage), "start_offset": JSON(startOffset),
                                   "end_offset": JSON(endOffset), "token_count": JSON(tokenCount), "text": .string(text)],
                                  extra: extra)
        var head: [UInt8] = []
        JSON.object(o).write(to: &head)
        guard let embedding else { out.append(contentsOf: head); return }
        // The embedding is written directly: 384 floats through the JSON enum would dominate.
        head.removeLast()  // "}"
        out.append(contentsOf: head)
        if let model {
            out.append(contentsOf: ",\"model\":".utf8)
            JSON.writeString(model, to: &out)
        }
        if let precision {
            out.append(contentsOf: ",\"precision\":".utf8)
            JSON.writeString(precision, to: &out)
        }
        out.append(contentsOf: ",\"dim\":\(embedding.count),\"embedding\":".utf8)
        encoding.write(embedding, to: &out)
        if !windows.isEmpty {
            out.append(contentsOf: ",\"windows\":\"".utf8)
            out.append(contentsOf: windows.withUnsafeBytes { Base64.encode(Array($0)) }.utf8)
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
    }

    public var json: JSON {
        var out: [UInt8] = []
        write(to: &out)
        return try! JSON.parse(out)
    }
}

// MARK: - any record

/// One line of a record stream, typed where a stage knows the type.
public enum Record: Sendable {
    case book(BookRecord)
    case page(PageRecord)
    case chunk(ChunkRecord)
    /// A type this build does not model; passed through unchanged.
    case other(type: String, object: JSONObject)

    public init(_ json: JSON) throws(RecordError) {
        guard let object = json.objectValue else { throw RecordError("a record must be a JSON object") }
        guard let typeValue = object["type"] else { throw RecordError("record has no 'type' field") }
        guard let type = typeValue.stringValue else { throw RecordError("record field 'type' must be a string") }
        switch type {
        case "book": self = .book(try BookRecord(object))
        case "page": self = .page(try PageRecord(object))
        case "chunk": self = .chunk(try ChunkRecord(object))
        default: self = .other(type: type, object: object)
        }
    }

    public var type: String {
        switch self {
        case .book: "book"
        case .page: "page"
        case .chunk: "chunk"
        case .other(let type, _): type
        }
    }

    public func write(to out: inout [UInt8], encoding: EmbeddingEncoding = .floats) {
        switch self {
        case .book(let book): book.json.write(to: &out)
        case .page(let page): page.json.write(to: &out)
        case .chunk(let chunk): chunk.write(to: &out, encoding: encoding)
        case .other(_, let object): JSON.object(object).write(to: &out)
        }
    }
}
