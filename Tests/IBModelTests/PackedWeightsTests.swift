// Weights packed once (ib_gemm_pack, SentenceEncoder.packWeights) give the
// products and vectors of per-call packing bit for bit, on both kernel paths.
#if canImport(Glibc)
import Glibc
#endif
import CKernels
import IBCore
@testable import IBModel
import XCTest

final class PackedWeightsTests: XCTestCase {
    /// ib_gemm_packed against ib_gemm on shapes with partial panels, a K past
    /// one K block (1536), bias, GELU and accumulation, AVX-512 and AVX2; ib_gemm
    /// packs panel by panel for one block of rows and all of B first for more.
    func testPackedProductIsIbGemmsBitForBitOnBothPaths() {
        var seed: UInt64 = 7
        func next() -> Float {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: seed >> 11) % 2001 - 1000) / 1000
        }
        let wide = ib_kernels_select(1) != 0
        defer { _ = ib_kernels_select(1) }
        for avx512 in wide ? [1, 0] : [0] {
            XCTAssertEqual(ib_kernels_select(Int32(avx512)), Int32(avx512))
            for (m, n, k, flags) in [(5, 384, 384, 0), (13, 50, 1600, Int32(IB_GEMM_GELU)), (4, 33, 7, Int32(IB_GEMM_ACCUMULATE)),
                                     (2, 40, 64, 0), (9, 1536, 384, Int32(IB_GEMM_GELU)),
                                     // more rows than one block (MC = 72): ib_gemm packs all of B first
                                     (80, 70, 96, Int32(IB_GEMM_ACCUMULATE))] {
                let a = (0..<(m * k)).map { _ in next() }, b = (0..<(n * k)).map { _ in next() }, bias = (0..<n).map { _ in next() }
                let start = (0..<(m * n)).map { _ in next() }
                var want = start, got = start
                // 64-byte aligned, as the kernels read it
                let floats = ib_gemm_packed_floats(Int32(n), Int32(k))
                let raw = UnsafeMutableRawPointer.allocate(byteCount: floats * 4, alignment: 64)
                defer { raw.deallocate() }
                let packed = raw.initializeMemory(as: Float.self, repeating: .nan, count: floats)
                ib_gemm(Int32(m), Int32(n), Int32(k), a, Int32(k), b, Int32(k), bias, &want, Int32(n), flags)
                ib_gemm_pack(Int32(n), Int32(k), b, Int32(k), packed)
                ib_gemm_packed(Int32(m), Int32(n), Int32(k), a, Int32(k), b, packed, Int32(k), bias, &got, Int32(n), flags)
                XCTAssertEqual(got.map(\.bitPattern), want.map(\.bitPattern), "avx512 \(avx512) m \(m) n \(n) k \(k) flags \(flags)")
                // Split by outputs (ib_gemm_packed_part): the parts together write the same bits.
                for parts in 1...5 {
                    var split = start
                    for part in (0..<parts).reversed() {
                        ib_gemm_packed_part(Int32(m), Int32(n), Int32(k), a, Int32(k), b, packed, Int32(k), bias, &split, Int32(n), flags,
                                            Int32(part), Int32(parts))
                    }
                    XCTAssertEqual(split.map(\.bitPattern), want.map(\.bitPattern), "\(parts) parts: avx512 \(avx512) m \(m) n \(n) k \(k)")
                }
                // A misaligned copy is not read: the product is packed per call instead.
                var fallback = start
                ib_gemm_packed(Int32(m), Int32(n), Int32(k), a, Int32(k), b, packed + 1, Int32(k), bias, &fallback, Int32(n), flags)
                XCTAssertEqual(fallback.map(\.bitPattern), want.map(\.bitPattern), "misaligned: m \(m) n \(n) k \(k)")
            }
        }
    }

    /// The encoder's vectors once its weights are packed: the same bits, one text
    /// at a time and in a batch; and still sentence-transformers' (ParityTests).
    func testPackedEncoderGivesTheSameVectors() throws {
        // An empty cache folder: packed here, in memory (PackedWeightsFileTests: the kept copy).
        var template = Array("/tmp/ib-packed-memory-XXXXXX".utf8CString)
        let cache = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        let saved = Config.rawEnvironment("XDG_CACHE_HOME")
        setenv("XDG_CACHE_HOME", cache, 1)
        defer {
            if let saved { setenv("XDG_CACHE_HOME", saved, 1) } else { unsetenv("XDG_CACHE_HOME") }
            _ = system("rm -rf '\(cache)'")
        }
        let model: SentenceEncoder
        do { model = try ParityTests.model() } catch { throw XCTSkip("no model here: \(error)") }
        model.threads = 1
        let reference = try ParityTests.loadReference()
        let texts = reference.map(\.text)
        let before = texts.map { model.embed([$0])[0] }, batched = model.embed(texts)
        XCTAssertFalse(model.weightsPacked)
        model.packWeights()
        XCTAssertTrue(model.weightsPacked)
        // A copy for later processes is written on another thread (PackedWeightsFileTests maps it).
        var kept = false
        for _ in 0..<400 where !kept {
            kept = packedFileCount(cache + "/ib/packed") == 1
            if !kept { usleep(50_000) }
        }
        XCTAssertTrue(kept, "no packed copy written in 20 s")
        XCTAssertEqual(texts.map { model.embed([$0])[0] }.map { $0.map(\.bitPattern) }, before.map { $0.map(\.bitPattern) })
        XCTAssertEqual(model.embed(texts).map { $0.map(\.bitPattern) }, batched.map { $0.map(\.bitPattern) })
        model.packWeights()   // idempotent
        XCTAssertEqual(model.embed([texts[0]])[0].map(\.bitPattern), before[0].map(\.bitPattern))
    }

    /// Finished packed files (*.f32) in `folder`.
    private func packedFileCount(_ folder: String) -> Int {
        guard let dir = opendir(folder) else { return 0 }
        defer { closedir(dir) }
        var n = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".f32") { n += 1 }
        }
        return n
    }
}
