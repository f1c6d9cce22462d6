// The packed weights kept in the cache folder (PackedWeightsFile): written once,
// mapped by the next encoder of the same model file and kernels, the vectors the
// same bit for bit; a damaged, short or foreign file is never used, and is
// replaced by the next write.
#if canImport(Glibc)
import Glibc
#endif
import CKernels
import IBCore
@testable import IBModel
import XCTest

final class PackedWeightsFileTests: XCTestCase {
    private var cache = ""
    private var savedCache: String?

    override func setUpWithError() throws {
        savedCache = Config.rawEnvironment("XDG_CACHE_HOME")
        var template = Array("/tmp/ib-packed-test-XXXXXX".utf8CString)
        cache = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        setenv("XDG_CACHE_HOME", cache, 1)
    }

    override func tearDown() {
        if let savedCache { setenv("XDG_CACHE_HOME", savedCache, 1) } else { unsetenv("XDG_CACHE_HOME") }
        _ = system("rm -rf '\(cache)'")
    }

    private func model() throws -> SentenceEncoder {
        do {
            let m = try ParityTests.model()
            m.threads = 1
            return m
        } catch { throw XCTSkip("no model here: \(error)") }
    }

    /// The one file the folder holds for this model and layout.
    private func packedFiles() -> [String] {
        guard let dir = opendir(cache + "/ib/packed") else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    func testTheKeptCopyIsMappedAndGivesTheSameVectors() throws {
        let first = try model()
        let texts = ["why does he go to sea", "the sister's dying words about the speckled band",
                     String(repeating: "a long passage of many words ", count: 40)]
        let before = texts.map { first.embed([$0])[0] }, batched = first.embed(texts)
        XCTAssertFalse(first.mapPackedWeights(), "nothing in an empty cache folder")
        XCTAssertFalse(first.weightsPacked)
        XCTAssertTrue(first.keepPackedWeights())
        XCTAssertFalse(first.weightsPacked, "keeping a copy does not change this encoder")
        let files = packedFiles()
        XCTAssertEqual(files.count, 1, "\(files)")
        let layout = String(ib_gemm_pack_layout(), radix: 16)
        XCTAssertTrue(files[0].hasPrefix("all-MiniLM-L6-v2.\(layout).") && files[0].hasSuffix(".f32"), files[0])
        let bytes = FileSystem.size(cache + "/ib/packed/" + files[0])
        XCTAssertEqual(bytes, PackedWeightsFile.headerBytes + PackedWeights.layout(first.config).bytes)

        let second = try model()
        XCTAssertTrue(second.mapPackedWeights())
        XCTAssertTrue(second.weightsPacked)
        XCTAssertTrue(second.mapPackedWeights(), "mapping again is a no-op")
        XCTAssertTrue(try mapsFile(files[0]), "the encoder reads the cache folder's file")
        XCTAssertEqual(texts.map { second.embed([$0])[0].map(\.bitPattern) }, before.map { $0.map(\.bitPattern) })
        XCTAssertEqual(second.embed(texts).map { $0.map(\.bitPattern) }, batched.map { $0.map(\.bitPattern) })
        XCTAssertTrue(second.keepPackedWeights(), "already there: nothing written")
        XCTAssertEqual(packedFiles(), files)
        // A server's packWeights() takes the file too.
        let third = try model()
        third.packWeights()
        XCTAssertTrue(third.weightsPacked)
        XCTAssertEqual(third.embed([texts[0]])[0].map(\.bitPattern), before[0].map(\.bitPattern))
    }

    /// A process done with the model clears its maps' page-table entries (the packed
    /// copy's and the weights file's): nothing of them stays resident in the process,
    /// another encoder's maps are left as they are, and an embed after that faults
    /// them back and gives the same vectors.
    func testReleasedMapsAreClearedAndReadBackTheSame() throws {
        let first = try model()
        XCTAssertTrue(first.keepPackedWeights())
        let second = try model()
        XCTAssertTrue(second.mapPackedWeights())
        let text = "the sister's dying words about the speckled band"
        let before = second.embed([text])[0]
        XCTAssertEqual(before.map(\.bitPattern), first.embed([text])[0].map(\.bitPattern))
        let maps = second.mappedAddresses
        XCTAssertEqual(maps.count, 2, "the weights file and the packed copy")
        XCTAssertGreaterThan(try residentKB(containing: maps[0]), 0, "the embeddings are read from the weights file")
        XCTAssertGreaterThan(try residentKB(containing: maps[1]), 1_000, "the products read the packed copy")
        let others = first.mappedAddresses
        XCTAssertEqual(others.count, 1, "an encoder that packs nothing maps only the weights file")
        let othersResident = try residentKB(containing: others[0])
        XCTAssertGreaterThan(othersResident, 1_000, "it multiplied from the weights file")
        second.releaseMappedPages().wait()
        XCTAssertEqual(try residentKB(containing: maps[0]), 0)
        XCTAssertEqual(try residentKB(containing: maps[1]), 0)
        XCTAssertEqual(try residentKB(containing: others[0]), othersResident, "another encoder's map is not touched")
        XCTAssertEqual(second.embed([text])[0].map(\.bitPattern), before.map(\.bitPattern))
        XCTAssertGreaterThan(try residentKB(containing: maps[1]), 1_000, "read back")
        // An encoder whose packed weights are its own memory keeps them: only file maps are
        // cleared (cleared, they would read back as zeros). With the folder's copy gone,
        // packWeights() packs in memory instead of mapping it.
        for name in packedFiles() { XCTAssertEqual(unlink(cache + "/ib/packed/" + name), 0) }
        let third = try model()
        third.packWeights()
        XCTAssertTrue(third.weightsPacked)
        XCTAssertEqual(third.mappedAddresses.count, 1, "packed in memory, not mapped")
        third.releaseMappedPages().wait()
        XCTAssertEqual(third.embed([text])[0].map(\.bitPattern), before.map(\.bitPattern))
    }

    /// The resident size, in KiB, of this process's mapping that holds `address` (/proc/self/smaps).
    private func residentKB(containing address: Int) throws -> Int {
        let smaps = String(decoding: try FileSystem.read("/proc/self/smaps"), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let first = line.first, first.isHexDigit, !line.hasSuffix(":"), fields.count >= 5 {
                let bounds = fields[0].split(separator: "-").compactMap { Int($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside && line.hasPrefix("Rss:") {
                return Int(fields.count > 1 ? fields[1] : "") ?? -1
            }
        }
        XCTFail("no mapping holds \(String(address, radix: 16)) in /proc/self/smaps")
        return -1
    }

    func testADamagedShortOrForeignCopyIsNotUsedAndIsReplaced() throws {
        let encoder = try model()
        XCTAssertTrue(encoder.keepPackedWeights())
        let name = packedFiles()[0], path = cache + "/ib/packed/" + name
        let good = try FileSystem.read(path)
        let reference = encoder.embed(["the speckled band"])[0].map(\.bitPattern)
        func rewrite(_ bytes: [UInt8]) throws {
            unlink(path)
            write(path, bytes)
        }
        var foreignLayout = good
        foreignLayout[9] ^= 0x01           // the layout number: another CPU's panels
        var foreignModel = good
        foreignModel[40] ^= 0x01           // the model file's identity
        var shortened = good
        shortened.removeLast(4096)
        var longer = good
        longer += [UInt8](repeating: 0, count: 64)
        var notOurs = good
        notOurs[0] = UInt8(ascii: "X")
        for (what, bytes) in [("layout", foreignLayout), ("model", foreignModel), ("short", shortened),
                              ("long", longer), ("magic", notOurs), ("empty", [])] {
            try rewrite(bytes)
            let fresh = try model()
            XCTAssertFalse(fresh.mapPackedWeights(), what)
            XCTAssertFalse(fresh.weightsPacked, what)
            XCTAssertEqual(fresh.embed(["the speckled band"])[0].map(\.bitPattern), reference, what)
            // The next keep replaces it with a good copy.
            XCTAssertTrue(fresh.keepPackedWeights(), what)
            XCTAssertEqual(try FileSystem.read(path), good, what)
        }
        // A copy left by an older model file (same model and layout, another identity) is removed
        // by the next write; another layout's stays.
        let layout = String(ib_gemm_pack_layout(), radix: 16)
        let stale = cache + "/ib/packed/all-MiniLM-L6-v2.\(layout).0123456789abcdef01234567.f32"
        let otherLayout = cache + "/ib/packed/all-MiniLM-L6-v2.9999.0123456789abcdef01234567.f32"
        write(stale, [1, 2, 3])
        write(otherLayout, [1, 2, 3])
        // Half-written copies: one from a process killed two hours ago goes, a fresh one
        // (another process may be writing it) stays.
        let abandoned = path + ".123.456.tmp", writing = path + ".789.1011.tmp"
        write(abandoned, [1])
        write(writing, [1])
        var twoHoursAgo = [timeval(tv_sec: time(nil) - 7200, tv_usec: 0), timeval(tv_sec: time(nil) - 7200, tv_usec: 0)]
        XCTAssertEqual(utimes(abandoned, &twoHoursAgo), 0)
        unlink(path)
        XCTAssertTrue(try model().keepPackedWeights())
        XCTAssertFalse(FileSystem.exists(stale))
        XCTAssertTrue(FileSystem.exists(otherLayout))
        XCTAssertTrue(FileSystem.exists(path))
        XCTAssertFalse(FileSystem.exists(abandoned))
        XCTAssertTrue(FileSystem.exists(writing))
        XCTAssertEqual(packedFiles().filter { $0.hasSuffix(".tmp") }, [String(writing.split(separator: "/").last!)])
    }

    /// AVX-512 and AVX2 pack in panels of different widths: each has its own file, and
    /// neither maps the other's (on a CPU without AVX-512, the AVX2 layout only).
    func testEachKernelLayoutHasItsOwnCopy() throws {
        let wide = ib_kernels_select(1) != 0
        defer { _ = ib_kernels_select(1) }
        var layouts: [UInt32] = []
        for avx512 in wide ? [1, 0] : [0] {
            _ = ib_kernels_select(Int32(avx512))
            layouts.append(ib_gemm_pack_layout())
            let encoder = try model()
            XCTAssertFalse(encoder.mapPackedWeights(), "avx512 \(avx512): no copy of this layout yet")
            XCTAssertTrue(encoder.keepPackedWeights())
            XCTAssertTrue(try model().mapPackedWeights())
        }
        XCTAssertEqual(Set(layouts).count, layouts.count, "layouts \(layouts)")
        XCTAssertEqual(packedFiles().count, layouts.count, "\(packedFiles())")
        XCTAssertEqual((layouts.last! >> 16) & 0xFF, 16, "AVX2 panels are 16 wide")
    }

    private func write(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0, path)
        bytes.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Whether this process maps a file called `name`.
    private func mapsFile(_ name: String) throws -> Bool {
        String(decoding: try FileSystem.read("/proc/self/maps"), as: UTF8.self).contains(name)
    }
}
