// The kernels' per-thread scratch (CKernels thread_scratch.c) goes back to the
// allocator when its thread ends: the sentence encoder starts fresh threads on
// every call, and before this a long summary or ingestion grew by each
// thread's packing buffers (30 MB over a 3,000-page summary).
import CKernels
import Foundation
import XCTest
@testable import IBModel

final class ScratchMemoryTests: XCTestCase {
    /// The process's anonymous resident memory (the scratch buffers are large: mapped, and unmapped when freed).
    private func bytesInUse() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    func testThreadsThatEndGiveTheirScratchBack() {
        let m = 4, n = 1024, k = 1024   // the packed B panels alone: 4 MB a thread
        let a = [Float](repeating: 0.5, count: m * k), b = [Float](repeating: 0.25, count: n * k)
        let product = {
            var c = [Float](repeating: 0, count: m * n)
            ib_gemm(Int32(m), Int32(n), Int32(k), a, Int32(k), b, Int32(k), nil, &c, Int32(n), 0)
            precondition(c[0] == 128, "the product itself")
            var q = [Float](repeating: 0, count: m * n)   // and the int8 product's activation codes
            let packed = b.withUnsafeBufferPointer { Int8Matrix(weight: $0.baseAddress!, outputs: n, inputs: k) }
            a.withUnsafeBufferPointer { packed.multiply(rows: m, $0.baseAddress!, lda: k, bias: nil, &q, ldc: n, flags: 0) }
        }
        // One-time allocations (the exit key, the CPU check, glibc's cache of thread stacks) out of the count.
        for _ in 0..<2 { runParallel(5, product) }
        let before = bytesInUse()
        for _ in 0..<5 { runParallel(5, product) }   // 20 more threads started and ended
        let grown = bytesInUse() - before
        XCTAssertLessThan(grown, 16 << 20, "20 threads that ended kept \(grown) bytes (80 MB when they keep their buffers)")
    }
}
