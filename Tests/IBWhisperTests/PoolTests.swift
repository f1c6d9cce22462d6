// CKernels' resident pool (pool.c), which the decoder's steps run on: every
// part runs exactly once per job, jobs follow each other without a part of
// one leaking into the next, nested calls and calls from two threads at once
// run serially instead of deadlocking, and Parallel.ranges covers 0..<count.
import CKernels
import Dispatch
import XCTest
@testable import IBWhisper
import IBModel

final class PoolTests: XCTestCase {
    /// Runs one job of `parts` parts; returns how many times each part ran.
    private static func run(threads: Int, parts: Int) -> [Int] {
        var counts = [Int](repeating: 0, count: parts)
        counts.withUnsafeMutableBufferPointer { buffer in
            var base = buffer.baseAddress!
            withUnsafeMutablePointer(to: &base) { pointer in
                ib_pool_run(Int32(threads), Int32(parts), { context, part in
                    context!.assumingMemoryBound(to: UnsafeMutablePointer<Int>.self).pointee[Int(part)] += 1
                }, pointer)
            }
        }
        return counts
    }

    func testEveryPartRunsOnceInManyJobsInARow() {
        for job in 0..<20_000 {
            let parts = 1 + job % 7
            let counts = Self.run(threads: 2 + job % 3, parts: parts)
            if counts != [Int](repeating: 1, count: parts) { XCTFail("job \(job): \(counts)"); return }
        }
    }

    func testJobsAfterAnIdlePauseStillRun() {
        for _ in 0..<3 {
            XCTAssertEqual(Self.run(threads: 2, parts: 4), [1, 1, 1, 1])
            usleep(300_000)          // the workers have gone to sleep on the futex
        }
    }

    func testNestedAndConcurrentCallsRunSerially() {
        // Two threads at once run jobs whose parts each run a job of their own.
        var failures = [Int](repeating: 0, count: 2 * 4)
        failures.withUnsafeMutableBufferPointer { buffer in
            let address = Int(bitPattern: buffer.baseAddress!)   // each caller and part has its own slot
            DispatchQueue.concurrentPerform(iterations: 2) { caller in
                let slots = UnsafeMutablePointer<Int>(bitPattern: address)!
                for _ in 0..<500 {
                    Parallel.ranges(4) { outer in
                        for i in outer where PoolTests.run(threads: 2, parts: 3) != [1, 1, 1] { slots[caller * 4 + i] += 1 }
                    }
                }
            }
        }
        XCTAssertEqual(failures, [Int](repeating: 0, count: 8))
    }

    func testRangesCoverEveryIndexOnce() {
        for count in [0, 1, 2, 3, 17, 1000] {
            for minimum in [1, 4, 256] {
                var seen = [Int](repeating: 0, count: count)
                seen.withUnsafeMutableBufferPointer { buffer in
                    let p = buffer.baseAddress
                    Parallel.ranges(count, minimumPerPart: minimum) { range in
                        for i in range { p![i] += 1 }
                    }
                }
                XCTAssertEqual(seen, [Int](repeating: 1, count: count), "count \(count), minimum \(minimum)")
            }
        }
    }
}
