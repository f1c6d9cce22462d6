// Reads CTranslate2's model.bin: the weights of a converted model, written by
// CTranslate2's Python converter and read here without CTranslate2 or Python.
//
// Layout (little-endian), as CTranslate2's model reader defines it:
//   u32 binary version (6 here)
//   string spec name ("WhisperSpec"), u32 spec revision (3)
//   u32 variable count, then per variable:
//     string name, u8 rank, rank x u32 dimensions, u8 data type, u32 byte count, bytes
//   u32 alias count, then per alias: string alias, string target variable
// A string is a u16 length (counting a trailing NUL) and that many bytes.
// Data types: 0 float32, 1 int8, 2 int16, 3 int32, 4 float16, 5 bfloat16.
import Foundation

/// One stored tensor: its shape, its type and its bytes (a slice of the file).
struct CT2Variable {
    enum DataType: UInt8 { case float32 = 0, int8 = 1, int16 = 2, int32 = 3, float16 = 4, bfloat16 = 5 }
    let shape: [Int]
    let type: DataType
    let bytes: Data

    var count: Int { shape.reduce(1, *) }

    /// The values as fp32 (float16 and bfloat16 widened exactly).
    func floats() -> [Float] {
        let n = count
        return [Float](unsafeUninitializedCapacity: n) { out, initialized in
            bytes.withUnsafeBytes { raw in
                switch type {
                case .float32:
                    memcpy(out.baseAddress!, raw.baseAddress!, n * 4)
                case .float16:
                    let halves = halfs()
                    halves.withUnsafeBufferPointer { ib_f16_to_f32($0.baseAddress!, out.baseAddress!, n) }
                case .bfloat16:
                    for i in 0..<n { out[i] = Float(bitPattern: UInt32(raw.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)) << 16) }
                case .int8, .int16, .int32:
                    let values = integers()
                    for i in 0..<n { out[i] = Float(values[i]) }
                }
            }
            initialized = n
        }
    }

    /// The values as IEEE half bit patterns (float16 as stored; float32 rounded).
    func halfs() -> [UInt16] {
        guard type == .float16 else { return floats().map { Float16($0).bitPattern } }
        let n = count
        return [UInt16](unsafeUninitializedCapacity: n) { out, initialized in
            bytes.withUnsafeBytes { raw in _ = memcpy(out.baseAddress!, raw.baseAddress!, n * 2) }
            initialized = n
        }
    }

    /// The values of an integer (or boolean) variable.
    func integers() -> [Int] {
        bytes.withUnsafeBytes { raw in
            switch type {
            case .int8: return (0..<count).map { Int(raw.loadUnaligned(fromByteOffset: $0, as: Int8.self)) }
            case .int16: return (0..<count).map { Int(raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
            case .int32: return (0..<count).map { Int(raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
            default: return []
            }
        }
    }
}

import CKernels

/// The parsed file: spec name and revision, and the variables by name (aliases resolved).
struct CT2ModelFile {
    let binaryVersion: Int
    let spec: String
    let specRevision: Int
    let variables: [String: CT2Variable]

    init(path: String) throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
            throw WhisperError.model("\(path): cannot be read")
        }
        var reader = ByteReader(data: data, path: path)
        binaryVersion = Int(try reader.u32())
        guard (5...6).contains(binaryVersion) else {
            throw WhisperError.model("\(path): CTranslate2 binary version \(binaryVersion), expected 6")
        }
        spec = try reader.string()
        specRevision = Int(try reader.u32())
        let count = Int(try reader.u32())
        guard count < 100_000 else { throw WhisperError.model("\(path): \(count) variables is not a model") }
        var variables: [String: CT2Variable] = [:]
        for _ in 0..<count {
            let name = try reader.string()
            let rank = Int(try reader.u8())
            var shape: [Int] = []
            for _ in 0..<rank { shape.append(Int(try reader.u32())) }
            guard let type = CT2Variable.DataType(rawValue: try reader.u8()) else {
                throw WhisperError.model("\(path): variable \(name) has an unknown data type")
            }
            let byteCount = Int(try reader.u32())
            let itemSize = [1, 1, 2, 4, 2, 2][Int(type.rawValue)]
            let elements = shape.reduce(1) { $0.multipliedReportingOverflow(by: $1).partialValue }
            guard shape.allSatisfy({ $0 >= 0 && $0 < 1 << 28 }), elements * itemSize == byteCount else {
                throw WhisperError.model("\(path): variable \(name) has \(byteCount) bytes for shape \(shape)")
            }
            variables[name] = CT2Variable(shape: shape, type: type, bytes: try reader.bytes(byteCount))
        }
        if binaryVersion >= 3, !reader.atEnd {
            let aliases = Int(try reader.u32())
            for _ in 0..<aliases {
                let alias = try reader.string(), target = try reader.string()
                guard let variable = variables[target] else {
                    throw WhisperError.model("\(path): alias \(alias) names a missing variable \(target)")
                }
                variables[alias] = variable
            }
        }
        self.variables = variables
    }

    func variable(_ name: String, path: String) throws -> CT2Variable {
        guard let variable = variables[name] else { throw WhisperError.model("\(path): no variable \(name)") }
        return variable
    }
}

/// Bounds-checked little-endian reads over the file's bytes.
private struct ByteReader {
    let data: Data
    let path: String
    var offset = 0

    var atEnd: Bool { offset >= data.count }

    mutating func bytes(_ count: Int) throws -> Data {
        guard count >= 0, offset + count <= data.count else {
            throw WhisperError.model("\(path): truncated at byte \(offset)")
        }
        let start = data.startIndex + offset
        offset += count
        return data[start..<(start + count)]     // a slice of the mapped file: no copy
    }
    mutating func u8() throws -> UInt8 { try bytes(1).first! }
    mutating func u16() throws -> UInt16 { try bytes(2).withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) } }
    mutating func u32() throws -> UInt32 { try bytes(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } }
    mutating func string() throws -> String {
        let raw = try bytes(Int(try u16()))
        return String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}
