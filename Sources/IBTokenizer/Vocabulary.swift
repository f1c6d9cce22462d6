// The WordPiece vocabulary: vocab.txt, one token per line, id = line number.
// Looked up by UTF-8 bytes in an open-addressing table, so tokenising never
// builds a String per candidate piece.
import IBCore

public struct Vocabulary: Sendable {
    /// All token bytes, back to back.
    private let storage: [UInt8]
    private let starts: [Int32]
    private let lengths: [Int32]
    /// Slots hold id + 1 in the low `idBits` bits (0 is empty) and a tag
    /// from the token's hash above them: a probe looks at a token only when
    /// the tags agree.
    private let slots: [UInt32]
    private let mask: Int
    private let idBits: UInt32

    public var count: Int { starts.count }

    public init(path: String) throws(IBError) {
        // The tokens are the file's lines, read in place: `storage` is the file.
        let storage = try FileSystem.read(path, limit: 64 << 20)
        var starts: [Int32] = [], lengths: [Int32] = []
        starts.reserveCapacity(storage.count / 4 + 16)
        lengths.reserveCapacity(storage.count / 4 + 16)
        storage.withUnsafeBufferPointer { bytes in
            let n = bytes.count
            var lineStart = 0
            while true {
                var i = n
                if lineStart < n, let newline = memchr(bytes.baseAddress! + lineStart, 0x0A, n - lineStart) {
                    i = UnsafeRawPointer(newline) - UnsafeRawPointer(bytes.baseAddress!)
                }
                var lineEnd = i
                if lineEnd > lineStart, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                if i == n && lineEnd == lineStart { break }  // no trailing empty token
                starts.append(Int32(lineStart))
                lengths.append(Int32(lineEnd - lineStart))
                if i == n { break }
                lineStart = i + 1
            }
        }
        guard !starts.isEmpty else { throw IBError("\(path): empty vocabulary") }
        var size = 1
        while size < starts.count * 3 { size <<= 1 }
        var slots = [UInt32](repeating: 0, count: size)
        let idBits = UInt32(UInt32(starts.count + 1).bitWidth - UInt32(starts.count + 1).leadingZeroBitCount)
        storage.withUnsafeBufferPointer { s in
            for id in (0..<starts.count).reversed() {  // first occurrence wins
                let piece = UnsafeBufferPointer(rebasing: s[Int(starts[id])..<Int(starts[id] + lengths[id])])
                let h = Vocabulary.hash(piece, seed: Vocabulary.fnvOffset)
                var slot = Int(truncatingIfNeeded: h) & (size - 1)
                while slots[slot] != 0 {
                    let other = Int(slots[slot] & (idBits >= 32 ? .max : (1 << idBits) - 1)) - 1
                    if lengths[other] == lengths[id] && memcmp(s.baseAddress! + Int(starts[other]), piece.baseAddress!, piece.count) == 0 { break }
                    slot = (slot + 1) & (size - 1)
                }
                slots[slot] = Vocabulary.tag(h, idBits) | UInt32(id + 1)
            }
        }
        self.storage = storage
        self.starts = starts
        self.lengths = lengths
        self.slots = slots
        self.mask = size - 1
        self.idBits = idBits
    }

    static let fnvOffset: UInt64 = 0xcbf29ce484222325

    /// The hash's top bits, above the id's; 0 when ids take every bit.
    @inline(__always)
    static func tag(_ h: UInt64, _ idBits: UInt32) -> UInt32 {
        idBits >= 32 ? 0 : (UInt32(truncatingIfNeeded: h >> 32) &>> idBits) &<< idBits
    }

    @inline(__always)
    static func mix(_ h: UInt64, _ byte: UInt8) -> UInt64 { (h ^ UInt64(byte)) &* 0x100000001b3 }

    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        var h = seed
        for b in bytes { h = mix(h, b) }
        return h ^ (h >> 29)
    }

    /// The FNV state after "##", for continuation pieces.
    static let continuationSeed = mix(mix(fnvOffset, 0x23), 0x23)

    /// The id of `piece`, or of "##" + `piece` when `continuation` is set.
    @inline(__always)
    public func id(of piece: UnsafeBufferPointer<UInt8>, continuation: Bool) -> Int32? {
        // Hash as if "##" had been prepended, without building the string.
        let seed = continuation ? Vocabulary.continuationSeed : Vocabulary.fnvOffset
        return find(Vocabulary.hash(piece, seed: seed), piece, continuation: continuation)
    }

    /// The longest piece of `word` from `start` on that is in the vocabulary
    /// (as "##" + piece when `continuation`): its id and where it ends. The
    /// same as trying id(of:) on ever shorter pieces, with each length's hash
    /// taken from one pass over the bytes.
    public func longestPiece(of word: UnsafeBufferPointer<UInt8>, from start: Int, continuation: Bool) -> (id: Int32, end: Int)? {
        let n = word.count - start
        guard n > 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: n) { states -> (id: Int32, end: Int)? in
            var h = continuation ? Vocabulary.continuationSeed : Vocabulary.fnvOffset
            for k in 0..<n {
                h = Vocabulary.mix(h, word[start + k])
                states[k] = h
            }
            var length = n
            while length > 0 {
                let state = states[length - 1]
                if let id = find(state ^ (state >> 29), UnsafeBufferPointer(rebasing: word[start..<start + length]), continuation: continuation) {
                    return (id, start + length)
                }
                length -= 1
            }
            return nil
        }
    }

    /// The id of `piece` (after "##" when `continuation`), given its hash.
    @inline(__always)
    private func find(_ h: UInt64, _ piece: UnsafeBufferPointer<UInt8>, continuation: Bool) -> Int32? {
        let prefix = continuation ? 2 : 0
        let tag = Vocabulary.tag(h, idBits)
        let idMask: UInt32 = idBits >= 32 ? .max : (1 << idBits) - 1
        var slot = Int(truncatingIfNeeded: h) & mask
        return storage.withUnsafeBufferPointer { s -> Int32? in
            while true {
                let entry = slots[slot]
                if entry == 0 { return nil }
                let id = Int(entry & idMask) - 1
                if entry & ~idMask == tag && Int(lengths[id]) == piece.count + prefix {
                    let start = s.baseAddress! + Int(starts[id])
                    if (!continuation || (start[0] == 0x23 && start[1] == 0x23))
                        && memcmp(start + prefix, piece.baseAddress!, piece.count) == 0 {
                        return Int32(id)
                    }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    public func id(of token: String) -> Int32? {
        var token = token
        return token.withUTF8 { id(of: $0, continuation: false) }
    }

    public func token(_ id: Int32) -> String {
        guard id >= 0, Int(id) < starts.count else { return "[UNK]" }
        return String(decoding: storage[Int(starts[Int(id)])..<Int(starts[Int(id)] + lengths[Int(id)])], as: UTF8.self)
    }
}

#if canImport(Glibc)
import Glibc
#endif
