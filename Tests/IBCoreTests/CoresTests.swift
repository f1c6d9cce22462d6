// Cores.available: the affinity mask (what nproc counts), capped by a control
// group's CPU quota, read from cgroup v2's cpu.max or v1's CFS files at every
// level from the process's group up.
import Foundation
import XCTest
@testable import IBCore

final class CoresTests: XCTestCase {
    func testQuotaFilesParse() {
        XCTAssertEqual(Cores.cpuMax("150000 100000\n"), 2)
        XCTAssertEqual(Cores.cpuMax("100000 100000"), 1)
        XCTAssertEqual(Cores.cpuMax("20000 100000"), 1, "a fraction of a CPU is still one thread")
        XCTAssertNil(Cores.cpuMax("max 100000\n"))
        XCTAssertNil(Cores.cpuMax(""))
        XCTAssertEqual(Cores.cfsQuota("300000\n", "100000\n"), 3)
        XCTAssertNil(Cores.cfsQuota("-1\n", "100000\n"))
        XCTAssertNil(Cores.cfsQuota("junk", "100000"))
        XCTAssertEqual(Cores.cpuListCount("\t0-1\n"), 2)
        XCTAssertEqual(Cores.cpuListCount("0-3,8,10-11"), 7)
        XCTAssertNil(Cores.cpuListCount("3-1"))
        XCTAssertNil(Cores.cpuListCount(""))
    }

    func testTheTightestQuotaOnTheWayToTheRoot() throws {
        let dir = NSTemporaryDirectory() + "ib-cores-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // cgroup v2: the group itself unlimited, its parent at 1.5 CPUs, the root unlimited.
        try FileSystem.createDirectories(dir + "/v2/ci/job")
        try write(dir + "/v2/ci/job/cpu.max", "max 100000\n")
        try write(dir + "/v2/ci/cpu.max", "150000 100000\n")
        try write(dir + "/proc-v2", "0::/ci/job\n")
        XCTAssertEqual(Cores.quotaCPUs(proc: dir + "/proc-v2", root: dir + "/v2"), 2)
        // cgroup v1: the quota in the cpu controller's hierarchy.
        try FileSystem.createDirectories(dir + "/v1/cpu,cpuacct/docker/abc")
        try write(dir + "/v1/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "100000\n")
        try write(dir + "/v1/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n")
        try write(dir + "/proc-v1", "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n")
        XCTAssertEqual(Cores.quotaCPUs(proc: dir + "/proc-v1", root: dir + "/v1"), 1)
        // No limit anywhere, and no such files.
        try write(dir + "/proc-none", "0::/elsewhere\n")
        XCTAssertNil(Cores.quotaCPUs(proc: dir + "/proc-none", root: dir + "/v2"))
        XCTAssertNil(Cores.quotaCPUs(proc: dir + "/missing", root: dir + "/v2"))
    }

    /// The affinity mask is what nproc counts (coreutils reads it too).
    func testAffinityIsWhatNprocCounts() throws {
        for cpus in ["", "0"] {
            let process = Process(), out = Pipe()
            process.executableURL = URL(fileURLWithPath: cpus.isEmpty ? "/usr/bin/nproc" : "/usr/bin/taskset")
            process.arguments = cpus.isEmpty ? [] : ["-c", cpus, "/usr/bin/nproc"]
            process.standardOutput = out
            process.environment = ["PATH": "/usr/bin:/bin"]   // nproc also obeys OMP_NUM_THREADS
            try process.run()
            process.waitUntilExit()
            let counted = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            if cpus.isEmpty {
                XCTAssertEqual(Cores.affinityCount(), Int(counted.trimmingCharacters(in: .whitespacesAndNewlines)))
            } else {
                XCTAssertEqual(counted.trimmingCharacters(in: .whitespacesAndNewlines), "1", "taskset -c 0 leaves one CPU")
            }
        }
        XCTAssertGreaterThanOrEqual(Cores.available, 1)
        XCTAssertLessThanOrEqual(Cores.available, Cores.affinityCount() ?? Int.max)
    }

    private func write(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0, path)
        defer { close(fd) }
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
    }
}
