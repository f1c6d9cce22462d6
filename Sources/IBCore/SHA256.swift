import CIBSupport

public struct SHA256 {
    private var context = ib_sha256_ctx()

    public init() { ib_sha256_init(&context) }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        ib_sha256_update(&context, bytes.baseAddress, bytes.count)
    }

    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { ib_sha256_final(&context, $0.baseAddress!) }
        return digest
    }

    /// Lower-case hex digest of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hexString(hasher.finalize())
    }

    public static func hex(_ text: String) -> String { hex(Array(text.utf8)) }

    public static func hexString(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(digest.count * 2)
        for byte in digest { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
