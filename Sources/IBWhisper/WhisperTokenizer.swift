// Whisper's byte-level BPE: token ids to text (decode) and text to ids
// (encode, for prompts and for the round-trip test).
//
// vocabulary.txt holds one token a line, its line number is its id, written in
// GPT-2's byte alphabet (each byte shown as one printable character, e.g. a
// space as "Ġ"). tokenizer.json holds the merges, ranked by line. Special
// tokens (<|endoftext|>, <|startoftranscript|>, languages, timestamps) follow
// the text tokens.
import Foundation

public struct WhisperTokenizer: Sendable {
    let tokens: [String]
    private let ids: [String: Int]
    private let merges: MergeTable          // read on first encode: decoding needs none
    private let byteToChar: [Character]
    private let charToByte: [Unicode.Scalar: UInt8]

    public let endOfText: Int
    public let startOfTranscript: Int
    public let noTimestamps: Int
    public let timestampBegin: Int
    public let noSpeech: Int
    public let startOfPrevious: Int
    public let transcribe: Int
    public let translate: Int

    init(vocabularyPath: String, tokenizerPath: String) throws {
        guard let text = try? String(contentsOfFile: vocabularyPath, encoding: .utf8) else {
            throw WhisperError.model("\(vocabularyPath): cannot be read as UTF-8 text")
        }
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        tokens = lines
        var ids: [String: Int] = [:]
        for (id, token) in lines.enumerated() where ids[token] == nil { ids[token] = id }
        self.ids = ids
        func special(_ names: String...) throws -> Int {
            for name in names { if let id = ids[name] { return id } }
            throw WhisperError.model("\(vocabularyPath): no \(names[0]) token")
        }
        endOfText = try special("<|endoftext|>")
        startOfTranscript = try special("<|startoftranscript|>")
        noTimestamps = try special("<|notimestamps|>")
        timestampBegin = noTimestamps + 1
        noSpeech = try special("<|nospeech|>", "<|nocaptions|>")
        startOfPrevious = try special("<|startofprev|>")
        transcribe = try special("<|transcribe|>")
        translate = try special("<|translate|>")
        (byteToChar, charToByte) = Self.byteAlphabet()
        guard FileManager.default.isReadableFile(atPath: tokenizerPath) else {
            throw WhisperError.model("\(tokenizerPath): missing")
        }
        merges = MergeTable(path: tokenizerPath)
    }

    var count: Int { tokens.count }

    /// The id of a special token such as "<|zh|>", if the vocabulary has it.
    public func id(of token: String) -> Int? { ids[token] }

    /// The text of the text tokens among `ids` (specials and timestamps are skipped);
    /// bytes that are not UTF-8 become U+FFFD, as the reference tokenizer does.
    public func decode(_ ids: [Int]) -> String {
        var bytes: [UInt8] = []
        for id in ids where id >= 0 && id < endOfText && id < tokens.count {
            for scalar in tokens[id].unicodeScalars { if let b = charToByte[scalar] { bytes.append(b) } }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The token ids of `text` (no special tokens).
    public func encode(_ text: String) -> [Int] {
        var out: [Int] = []
        for piece in Self.pretokenize(text) {
            let symbols = piece.utf8.map { String(byteToChar[Int($0)]) }
            for symbol in bytePairMerge(symbols) {
                if let id = ids[symbol] { out.append(id) }
            }
        }
        return out
    }

    /// Merges the best-ranked adjacent pair until no pair has a rank.
    private func bytePairMerge(_ start: [String]) -> [String] {
        let mergeRanks = merges.ranks
        var parts = start
        while parts.count > 1 {
            var best = Int.max, at = -1
            for i in 0..<(parts.count - 1) {
                if let rank = mergeRanks[parts[i] + " " + parts[i + 1]], rank < best { best = rank; at = i }
            }
            if at < 0 { break }
            parts[at] += parts[at + 1]
            parts.remove(at: at + 1)
        }
        return parts
    }

    /// GPT-2's split: contractions, letters, numbers, other symbols (each with one
    /// leading space), and runs of white space.
    static func pretokenize(_ text: String) -> [String] {
        let pattern = #"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [text] }
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { ns.substring(with: $0.range) }
    }

    /// GPT-2's map of the 256 byte values to printable characters, both ways.
    private static func byteAlphabet() -> ([Character], [Unicode.Scalar: UInt8]) {
        var printable = Array(33...126) + Array(161...172) + Array(174...255)
        var codes = printable
        var extra = 0
        for b in 0..<256 where !printable.contains(b) {
            printable.append(b)
            codes.append(256 + extra)
            extra += 1
        }
        var forward = [Character](repeating: " ", count: 256)
        var backward: [Unicode.Scalar: UInt8] = [:]
        for (b, code) in zip(printable, codes) {
            let scalar = Unicode.Scalar(UInt32(code))!
            forward[b] = Character(scalar)
            backward[scalar] = UInt8(b)
        }
        return (forward, backward)
    }

    static func readMerges(_ path: String) -> [String: Int] {
        guard let data = FileManager.default.contents(atPath: path),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let model = json["model"] as? [String: Any], let merges = model["merges"] as? [Any] else {
            return [:]   // encode then leaves text as bytes: decoding never needs merges
        }
        var ranks: [String: Int] = [:]
        ranks.reserveCapacity(merges.count)
        for (rank, merge) in merges.enumerated() {
            if let line = merge as? String { ranks[line] = rank }
            else if let pair = merge as? [String], pair.count == 2 { ranks[pair[0] + " " + pair[1]] = rank }
        }
        return ranks
    }
}

/// tokenizer.json's merges, parsed once on first use (a model load that only
/// decodes never parses the 2 MB file).
final class MergeTable: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var loaded: [String: Int]?
    init(path: String) { self.path = path }
    var ranks: [String: Int] {
        lock.lock(); defer { lock.unlock() }
        if let loaded { return loaded }
        let ranks = WhisperTokenizer.readMerges(path)
        loaded = ranks
        return ranks
    }
}
