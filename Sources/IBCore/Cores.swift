// How many CPUs this process may use, for the tools that split work over
// threads (the embedding, a search's question, PDF pages, pictures).
//
// The machine's online count says how many CPUs exist, not how many this
// process gets: `taskset`, a container's cpuset (docker --cpuset-cpus) or a
// systemd slice narrow its affinity mask, and a container's CPU quota
// (docker --cpus, a CI runner's limit) caps its time without touching the
// mask. Threads beyond either only wait for each other, and a pool that spins
// while waiting (CKernels' pool.c) burns the quota the work needed.
//
// So: the CPUs of the affinity mask, at most the quota rounded up (cgroup v2's
// cpu.max, or v1's cpu.cfs_quota_us over cpu.cfs_period_us, the tightest on
// the way from this process's group to the root), at least 1.
#if canImport(Glibc)
import Glibc
#endif

public enum Cores {
    /// The CPUs this process may use (read once).
    public static let available: Int = {
        var count = affinityCount() ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        if let quota = quotaCPUs() { count = min(count, quota) }
        return max(1, count)
    }()

    /// CPUs in this process's affinity mask (/proc/self/status's Cpus_allowed_list,
    /// as sched_getaffinity gives it); nil when it cannot be read.
    static func affinityCount(status: String = "/proc/self/status") -> Int? {
        guard let text = read(status),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else { return nil }
        return cpuListCount(String(line.dropFirst("Cpus_allowed_list:".count)))
    }

    /// How many CPUs a list such as "0-3,8,10-11" names; nil when it is not one.
    static func cpuListCount(_ list: String) -> Int? {
        var count = 0
        for part in list.split(separator: ",") {
            let bounds = part.split(separator: "-").map { Int(String($0.filter { !$0.isWhitespace })) }
            guard (1...2).contains(bounds.count), let low = bounds[0], let high = bounds.last ?? nil, low >= 0, high >= low else { return nil }
            count += high - low + 1
        }
        return count > 0 ? count : nil
    }

    /// The tightest CPU quota over this process's control groups, in whole CPUs
    /// rounded up; nil when none is set (or none can be read).
    static func quotaCPUs(proc: String = "/proc/self/cgroup", root: String = "/sys/fs/cgroup") -> Int? {
        guard let groups = try? FileSystem.readText(proc) else { return nil }
        var tightest: Int? = nil
        func consider(_ cpus: Int?) { if let cpus { tightest = min(tightest ?? cpus, cpus) } }
        for line in groups.split(separator: "\n") {
            // "0::/path" (v2), "4:cpu,cpuacct:/path" (v1)
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = String(fields[2])
            if fields[0] == "0" && fields[1].isEmpty {
                for dir in ancestors(root, path) { consider(read(dir + "/cpu.max").flatMap(cpuMax)) }
            } else if fields[1].split(separator: ",").contains("cpu") {
                for base in [root + "/cpu", root + "/cpu,cpuacct", root + "/cpuacct,cpu"] {
                    for dir in ancestors(base, path) {
                        if let quota = read(dir + "/cpu.cfs_quota_us"), let period = read(dir + "/cpu.cfs_period_us") {
                            consider(cfsQuota(quota, period))
                        }
                    }
                }
            }
        }
        return tightest
    }

    /// cgroup v2's cpu.max ("QUOTA PERIOD" or "max PERIOD") in whole CPUs rounded up; nil: no limit.
    static func cpuMax(_ text: String) -> Int? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard parts.count >= 2, let quota = Int(parts[0]), let period = Int(parts[1]) else { return nil }
        return roundedUp(quota, period)
    }

    /// cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us (-1: no limit) in whole CPUs rounded up.
    static func cfsQuota(_ quota: String, _ period: String) -> Int? {
        guard let q = Int(quota.split(separator: "\n").first ?? ""), let p = Int(period.split(separator: "\n").first ?? "") else { return nil }
        return roundedUp(q, p)
    }

    private static func roundedUp(_ quota: Int, _ period: Int) -> Int? {
        guard quota > 0, period > 0 else { return nil }
        return max(1, (quota + period - 1) / period)
    }

    /// `base` + `path` and each of its parents up to `base`.
    private static func ancestors(_ base: String, _ path: String) -> [String] {
        var parts = path.split(separator: "/").map(String.init)
        var out: [String] = []
        while true {
            out.append(base + (parts.isEmpty ? "" : "/" + parts.joined(separator: "/")))
            if parts.isEmpty { return out }
            parts.removeLast()
        }
    }

    private static func read(_ path: String) -> String? {
        guard access(path, R_OK) == 0 else { return nil }
        return try? FileSystem.readText(path)
    }
}
