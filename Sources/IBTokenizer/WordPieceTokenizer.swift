// The WordPiece tokenizer of BERT-family sentence-transformers models,
// matching the original id for id. Text is normalised and split into words
// (Normalizer.swift), then each word is split greedily into the longest
// vocabulary pieces, "##"-prefixed after the first. A word longer than 100
// scalars, or one that cannot be split, becomes [UNK].
import IBCore

public final class WordPieceTokenizer: Sendable {
    public let vocabulary: Vocabulary
    public let clsID: Int32, sepID: Int32, padID: Int32, unkID: Int32, maskID: Int32
    /// Literal special tokens in the input map straight to their ids.
    private let specials: [(text: [UInt8], id: Int32)]
    static let maxWordScalars = 100

    public init(vocabPath: String) throws(IBError) {
        let vocabulary = try Vocabulary(path: vocabPath)
        self.vocabulary = vocabulary
        func special(_ token: String) throws(IBError) -> Int32 {
            guard let id = vocabulary.id(of: token) else { throw IBError("\(vocabPath): vocabulary has no \(token) token") }
            return id
        }
        clsID = try special("[CLS]"); sepID = try special("[SEP]"); padID = try special("[PAD]")
        unkID = try special("[UNK]"); maskID = try special("[MASK]")
        specials = [("[CLS]", clsID), ("[SEP]", sepID), ("[PAD]", padID), ("[UNK]", unkID), ("[MASK]", maskID)]
            .map { (Array($0.0.utf8), $0.1) }
    }

    /// Loads `vocab.txt` from a model folder.
    public convenience init(modelDirectory: String) throws(IBError) {
        let path = modelDirectory + "/vocab.txt"
        guard FileSystem.exists(path) else {
            throw IBError("no vocab.txt in \(modelDirectory): run \(Installation.fetchModelCommand), or set IB_MODEL_DIR")
        }
        try self.init(vocabPath: path)
    }

    /// Ids for `text` with [CLS] and [SEP], truncated as sentence-transformers
    /// does: the first `maxLength - 2` pieces are kept.
    public func encode(_ text: String, maxLength: Int? = nil) -> [Int32] {
        var ids: [Int32] = [clsID]
        tokenize(text) { ids.append($0) }
        if let maxLength, ids.count + 1 > maxLength { ids.removeLast(ids.count + 1 - maxLength) }
        ids.append(sepID)
        return ids
    }

    /// Ids without special tokens and without truncation.
    public func tokenize(_ text: String) -> [Int32] {
        var ids: [Int32] = []
        tokenize(text) { ids.append($0) }
        return ids
    }

    /// How many pieces `text` makes, without [CLS] and [SEP].
    public func countTokens(_ text: some StringProtocol) -> Int {
        var n = 0
        tokenize(String(text)) { _ in n += 1 }
        return n
    }

    public func tokens(_ ids: [Int32]) -> [String] { ids.map { vocabulary.token($0) } }

    /// Calls `emit` with each piece's id in order.
    public func tokenize(_ text: String, _ emit: (Int32) -> Void) {
        var text = text
        text.withUTF8 { bytes in
            // Literal special tokens are cut out before normalisation.
            var segmentStart = 0
            var i = 0
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "["), let (length, id) = special(at: i, in: bytes) {
                    tokenizeSegment(UnsafeBufferPointer(rebasing: bytes[segmentStart..<i]), emit)
                    emit(id)
                    i += length
                    segmentStart = i
                } else {
                    i += 1
                }
            }
            tokenizeSegment(UnsafeBufferPointer(rebasing: bytes[segmentStart..<bytes.count]), emit)
        }
    }

    private func special(at i: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int32)? {
        for s in specials where i + s.text.count <= bytes.count {
            if s.text.withUnsafeBufferPointer({ memcmp(bytes.baseAddress! + i, $0.baseAddress!, $0.count) == 0 }) {
                return (s.text.count, s.id)
            }
        }
        return nil
    }

    private func tokenizeSegment(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (Int32) -> Void) {
        guard !bytes.isEmpty else { return }
        if bytes.allSatisfy({ $0 < 0x80 }) { tokenizeASCII(bytes, emit); return }
        var word: [Unicode.Scalar] = []
        word.reserveCapacity(64)
        var normalized: [Unicode.Scalar] = []
        normalized.reserveCapacity(8)
        var utf8: [UInt8] = []
        utf8.reserveCapacity(256)
        func flush() {
            if !word.isEmpty { wordPiece(word, &utf8, emit); word.removeAll(keepingCapacity: true) }
        }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        loop: while true {
            let scalar: Unicode.Scalar
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): scalar = s
            case .emptyInput: break loop
            case .error: scalar = "\u{FFFD}"
            }
            switch CharacterRules.inputClass(scalar) {
            case .removed: continue
            case .whitespace: flush()
            case .ideograph:
                flush()
                normalized.removeAll(keepingCapacity: true)
                CharacterRules.stripAccents(scalar, into: &normalized)
                for s in normalized { word.append(s); flush() }
            case .letter, .punctuation:
                normalized.removeAll(keepingCapacity: true)
                CharacterRules.normalize(scalar, into: &normalized)
                for s in normalized {
                    if CharacterRules.isPunctuation(s) {
                        flush(); word.append(s); flush()
                    } else {
                        word.append(s)
                    }
                }
            }
        }
        flush()
    }

    /// The common case, on bytes alone: ASCII needs no Unicode tables, and
    /// every byte is a scalar boundary.
    private func tokenizeASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (Int32) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { word in
            var length = 0
            func flush() {
                guard length > 0 else { return }
                let piece = UnsafeBufferPointer(rebasing: word[0..<length])
                if length > WordPieceTokenizer.maxWordScalars { emit(unkID) } else { asciiWordPiece(piece, emit) }
                length = 0
            }
            for byte in bytes {
                switch CharacterRules.ascii[Int(byte)] {
                case .removed: continue
                case .whitespace: flush()
                case .punctuation:
                    flush()
                    word[0] = byte; length = 1
                    flush()
                case .letter, .ideograph:
                    word[length] = byte >= 0x41 && byte <= 0x5A ? byte + 32 : byte
                    length += 1
                }
            }
            flush()
        }
    }

    private func asciiWordPiece(_ word: UnsafeBufferPointer<UInt8>, _ emit: (Int32) -> Void) {
        // Fast path: the whole word is in the vocabulary.
        if let id = vocabulary.id(of: word, continuation: false) { emit(id); return }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: word.count) { pieces in
            var count = 0
            var start = 0
            while start < word.count {
                // The longest piece from `start` (the whole word is known not to be one).
                let piece = start == 0
                    ? vocabulary.longestPiece(of: UnsafeBufferPointer(rebasing: word[0..<word.count - 1]), from: 0, continuation: false)
                    : vocabulary.longestPiece(of: word, from: start, continuation: true)
                guard let piece else { emit(unkID); return }
                pieces[count] = piece.id; count += 1
                start = piece.end
            }
            for i in 0..<count { emit(pieces[i]) }
        }
    }

    /// How many pieces the UTF-8 `bytes` make, without [CLS] and [SEP].
    public func countTokens(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var n = 0
        if !bytes.contains(UInt8(ascii: "[")) {
            if let count = countASCIIWithPunctuation(bytes) { return count }
            tokenizeSegment(bytes) { _ in n += 1 }
        } else {
            tokenize(String(decoding: bytes, as: UTF8.self)) { _ in n += 1 }
        }
        return n
    }

    /// Punctuation outside ASCII that is common in running text (dashes,
    /// curly quotes, ellipsis, guillemets, CJK and full-width stops): each is
    /// a piece of its own, unchanged by normalisation (a test checks each).
    static func isSimplePunctuation(_ v: UInt32) -> Bool {
        switch v {
        case 0x2010...0x2027, 0xA1, 0xAB, 0xBB, 0xBF, 0x3001, 0x3002, 0xFF01, 0xFF0C, 0xFF1F: return true
        default: return false
        }
    }

    /// The count for text that is ASCII apart from simple punctuation, which
    /// only splits it: the ASCII stretches' counts plus one per mark; nil for
    /// any other text.
    private func countASCIIWithPunctuation(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var n = 0
        var stretchStart = 0
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i]
            if b0 < 0x80 { i += 1; continue }
            // A 2- or 3-byte scalar (all the marks are); anything else goes the general way.
            let value: UInt32, length: Int
            if b0 >= 0xC2 && b0 < 0xE0 && i + 1 < bytes.count {
                value = UInt32(b0 & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F); length = 2
            } else if b0 >= 0xE0 && b0 < 0xF0 && i + 2 < bytes.count {
                value = UInt32(b0 & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F); length = 3
                if value < 0x800 { return nil }  // overlong: not UTF-8
            } else {
                return nil
            }
            guard WordPieceTokenizer.isSimplePunctuation(value),
                  bytes[i + 1] & 0xC0 == 0x80, length == 2 || bytes[i + 2] & 0xC0 == 0x80 else { return nil }
            if i > stretchStart { tokenizeASCII(UnsafeBufferPointer(rebasing: bytes[stretchStart..<i])) { _ in n += 1 } }
            n += 1
            i += length
            stretchStart = i
        }
        if stretchStart == 0 { return nil }  // plain ASCII: the usual path
        if i > stretchStart { tokenizeASCII(UnsafeBufferPointer(rebasing: bytes[stretchStart..<i])) { _ in n += 1 } }
        return n
    }

    /// Greedy longest-match-first split of one word.
    private func wordPiece(_ word: [Unicode.Scalar], _ utf8: inout [UInt8], _ emit: (Int32) -> Void) {
        if word.count > WordPieceTokenizer.maxWordScalars { emit(unkID); return }
        // UTF-8 of the word, and the byte offset where each scalar starts.
        utf8.removeAll(keepingCapacity: true)
        var boundaries: [Int] = []
        boundaries.reserveCapacity(word.count + 1)
        for s in word {
            boundaries.append(utf8.count)
            utf8.append(contentsOf: UTF8.encode(s)!)
        }
        boundaries.append(utf8.count)
        var pieces: [Int32] = []
        let found: Bool = utf8.withUnsafeBufferPointer { bytes in
            var start = 0  // scalar index
            while start < word.count {
                var end = word.count
                var match: Int32? = nil
                while end > start {
                    let piece = UnsafeBufferPointer(rebasing: bytes[boundaries[start]..<boundaries[end]])
                    if let id = vocabulary.id(of: piece, continuation: start > 0) { match = id; break }
                    end -= 1
                }
                guard let id = match else { return false }
                pieces.append(id)
                start = end
            }
            return true
        }
        if found { pieces.forEach(emit) } else { emit(unkID) }
    }
}

#if canImport(Glibc)
import Glibc
#endif
