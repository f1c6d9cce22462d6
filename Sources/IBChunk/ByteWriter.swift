// Output bytes in a raw growable buffer: record lines are built with plain
// stores and copies, and handed to the output stream in one piece.
#if canImport(Glibc)
import Glibc
#endif

struct ByteWriter {
    private var memory: LargeMemory
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 1 << 16) {
        // Ordinary pages: a writer holds a block of chunks at a time.
        memory = LargeMemory(capacity, reserve: 1 << 32, hugePages: false)  // may move past this: only its own thread writes it
        self.capacity = memory.size
        base = memory.base.assumingMemoryBound(to: UInt8.self)
    }

    func deallocate() { memory.deallocate() }

    /// Empties the buffer, keeping its memory.
    mutating func removeAll() { count = 0 }

    @inline(__always)
    mutating func reserve(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    private mutating func grow(_ needed: Int) {
        memory.ensure(needed, keeping: count)
        capacity = memory.size
        base = memory.base.assumingMemoryBound(to: UInt8.self)
    }

    @inline(__always)
    mutating func append(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        reserve(n)
        (base + count).update(from: s.utf8Start, count: n)
        count += n
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let p = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).update(from: p, count: bytes.count)
        count += bytes.count
    }

    /// A whole number as JSON writes it.
    mutating func append(_ value: Int) {
        reserve(21)
        var v = value.magnitude
        if value < 0 { base[count] = UInt8(ascii: "-"); count += 1 }
        var digits = 1
        var t = v
        while t >= 10 { t /= 10; digits += 1 }
        var k = count + digits - 1
        repeat {
            base[k] = UInt8(truncatingIfNeeded: v % 10) + 0x30
            v /= 10
            k -= 1
        } while v > 0
        count += digits
    }

    private static let hex: StaticString = "0123456789abcdef"

    /// Bytes of valid UTF-8 as a JSON string, escaped as JSON.writeString does.
    mutating func appendJSONString(_ p: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n * 6 + 16)
        let out = base
        var w = count
        out[w] = 0x22; w += 1
        var i = 0
        while i < n {
            _ = Bytes.copyPlainRun(p, n, &i, out, &w)
            guard i < n else { break }
            let byte = p[i]
            i += 1
            out[w] = 0x5C
            switch byte {
            case 0x22: out[w + 1] = 0x22; w += 2
            case 0x5C: out[w + 1] = 0x5C; w += 2
            case 0x0A: out[w + 1] = UInt8(ascii: "n"); w += 2
            case 0x0D: out[w + 1] = UInt8(ascii: "r"); w += 2
            case 0x09: out[w + 1] = UInt8(ascii: "t"); w += 2
            default:
                let hex = ByteWriter.hex.utf8Start
                out[w + 1] = UInt8(ascii: "u"); out[w + 2] = 0x30; out[w + 3] = 0x30
                out[w + 4] = hex[Int(byte >> 4)]; out[w + 5] = hex[Int(byte & 0xF)]
                w += 6
            }
        }
        out[w] = 0x22; w += 1
        count = w
    }
}
