// Float32 vectors as little-endian bytes: the one layout ib keeps them in,
// wherever they go as bytes (base64 in chunk records, BLOBs in the library
// and the embedding cache), so every reader and writer agrees by construction.
public enum Float32LE {
    /// The bytes of `vector`, 4 per value, little-endian.
    public static func bytes(_ vector: [Float]) -> [UInt8] {
        var out: [UInt8] = []
        append(vector, to: &out)
        return out
    }

    public static func append(_ vector: [Float], to out: inout [UInt8]) {
        out.reserveCapacity(out.count + vector.count * 4)
        for value in vector {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        }
    }

    /// The floats in `raw` (its length rounded down to whole values).
    public static func floats(_ raw: UnsafeRawBufferPointer) -> [Float] {
        (0..<raw.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
    }

    public static func floats(_ bytes: [UInt8]) -> [Float] { bytes.withUnsafeBytes { floats($0) } }
}
