// A small reader of 16 kHz mono WAV (PCM16 or float32) for ib-transcribe and
// the tests, until IBAudio (ffmpeg) is merged: anything else is refused with
// one line naming the file. Reads in bounded blocks.
import Foundation

public final class WaveFile {
    public let path: String
    private let handle: FileHandle
    private let isFloat: Bool
    private var remaining: Int

    public init(path: String) throws {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else { throw WhisperError.audio("\(path): cannot be opened") }
        self.handle = handle
        func fail(_ why: String) -> WhisperError { WhisperError.audio("\(path): \(why)") }
        let header = handle.readData(ofLength: 12)
        guard header.count == 12, header.prefix(4) == Data("RIFF".utf8), header.suffix(4) == Data("WAVE".utf8) else {
            throw fail("not a WAV file (16 kHz mono WAV expected)")
        }
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        while true {
            let chunk = handle.readData(ofLength: 8)
            guard chunk.count == 8 else { throw fail("no data chunk") }
            let id = String(decoding: chunk.prefix(4), as: UTF8.self)
            let size = Int(chunk.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) })
            if id == "fmt " {
                let body = handle.readData(ofLength: size)
                guard body.count == size, size >= 16 else { throw fail("truncated fmt chunk") }
                func u16(_ at: Int) -> Int { Int(body.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt16.self) }) }
                var tag = u16(0)
                if tag == 0xFFFE && size >= 26 { tag = u16(24) }   // WAVE_FORMAT_EXTENSIBLE: the sub-format's tag
                format = (tag, u16(2), Int(body.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }), u16(14))
                if size % 2 == 1 { _ = handle.readData(ofLength: 1) }
            } else if id == "data" {
                guard let f = format else { throw fail("data before fmt") }
                guard f.channels == 1, f.rate == 16000 else {
                    throw fail("\(f.channels) channel(s) at \(f.rate) Hz; 16 kHz mono WAV expected")
                }
                guard (f.tag == 1 && f.bits == 16) || (f.tag == 3 && f.bits == 32) else {
                    throw fail("sample format \(f.tag)/\(f.bits) bits; PCM16 or float32 expected")
                }
                isFloat = f.tag == 3
                remaining = size
                return
            } else {
                guard size >= 0, size < 1 << 31 else { throw fail("corrupt chunk size") }
                handle.seek(toFileOffset: handle.offsetInFile + UInt64(size + size % 2))
            }
        }
    }

    deinit { try? handle.close() }

    /// Up to maxSamples samples in [-1, 1], nil at the end.
    public func read(maxSamples: Int) throws -> [Float]? {
        let width = isFloat ? 4 : 2
        let want = min(remaining, maxSamples * width)
        guard want > 0 else { return nil }
        let data = handle.readData(ofLength: want)
        remaining -= data.count
        if data.count < width { return nil }
        let count = data.count / width
        return data.withUnsafeBytes { raw in
            if isFloat { return (0..<count).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) } }
            return (0..<count).map { Float(raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) / 32768 }
        }
    }

    /// The whole file (short audio).
    public func readAll() throws -> [Float] {
        var out: [Float] = []
        while let block = try read(maxSamples: 1 << 16) { out += block }
        return out
    }
}
