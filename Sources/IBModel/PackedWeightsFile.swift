// The model's weight matrices packed for ib_gemm_packed (PackedWeights), kept
// in a file of the cache folder: $XDG_CACHE_HOME/ib/packed/.
//
// A process that embeds one question and exits (ib-search) cannot keep packed
// weights in memory, and ib_gemm packing them panel by panel as it multiplies
// was about a third of its embedding (16.0 -> 11.4 ms with them packed, 100k
// chunks, Zen 3). Mapped from this file they are read as they are, and several
// processes share one copy in the page cache.
//
// The file is made for one model file and one layout of the kernels:
//   - its name carries the model folder's name, ib_gemm_pack_layout() (AVX-512
//     and AVX2 panels differ) and a hash of the model file's identity (real
//     path, size, modification time, inode: ModelVerification.identity), and
//     its header carries them again, with the matrices' shapes and size;
//   - a file whose header, layout or size is not what this model and CPU want
//     is not used (the product then packs per call, as before);
//   - it is written whole under a name of its own and renamed, so a reader maps
//     the old file, the new one or none; files of the same model and layout
//     left by an older model file are removed then;
//   - written pages sit in the page cache in the small folios their writes made:
//     they are dropped once written, so that the next mapping, advised
//     MADV_HUGEPAGE, reads the file in 2 MiB folios (as the model file is treated
//     after its first hash, SafeTensors.recache).
// The payload is the packing's own output, so the vectors are the same bit for
// bit with or without the file (PackedWeightsFileTests).
#if canImport(Glibc)
import Glibc
#endif
import CKernels
import IBCore

enum PackedWeightsFile {
    static let magic = Array("IBPACKW1".utf8)
    /// The header's room: the payload starts on a page.
    static let headerBytes = 4096

    /// The packed weights of the model file at `modelPath`: the identity its header
    /// repeats (key) and the file they go in (nil: the model file cannot be named).
    static func location(modelPath: String, modelID: String, config: BertConfig) -> (key: String, path: String)? {
        guard let key = key(modelPath: modelPath, config: config) else { return nil }
        return (key, folder + "/" + prefix(modelID) + String(SHA256.hex(key).prefix(24)) + ".f32")
    }

    static var folder: String { Config.cacheDirectory + "/packed" }

    /// "MODEL.LAYOUT.": every file of one model and layout starts so.
    static func prefix(_ modelID: String) -> String {
        let safe = modelID.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return String(safe) + "." + String(ib_gemm_pack_layout(), radix: 16) + "."
    }

    /// The identity the header repeats: the model file, the layout and the shapes.
    static func key(modelPath: String, config c: BertConfig) -> String? {
        guard let identity = ModelVerification.identity(of: modelPath) else { return nil }
        return "\(identity)|layout \(ib_gemm_pack_layout())|\(c.layers) x \(c.hiddenSize) x \(c.intermediateSize)"
    }

    /// The header: magic, layout, layers, hidden and intermediate sizes (UInt32 LE),
    /// the payload's size (UInt64 LE), the key's sha256 (64 hex characters), zeros.
    static func header(key: String, config c: BertConfig, payload: Int) -> [UInt8] {
        var out = magic
        func le(_ v: UInt64, _ bytes: Int) { for i in 0..<bytes { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        le(UInt64(ib_gemm_pack_layout()), 4)
        le(UInt64(c.layers), 4)
        le(UInt64(c.hiddenSize), 4)
        le(UInt64(c.intermediateSize), 4)
        le(UInt64(payload), 8)
        out += Array(SHA256.hex(key).utf8)
        out += [UInt8](repeating: 0, count: headerBytes - out.count)
        return out
    }

    /// The packed weights mapped from `path`, when it holds exactly what `key` and
    /// `config` want; nil otherwise (missing, short, another layout or model).
    static func map(path: String, key: String, config: BertConfig) -> PackedWeights? {
        let payload = PackedWeights.layout(config).bytes
        let size = headerBytes + payload
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == size else { return nil }
        guard let mapping = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), mapping != MAP_FAILED else { return nil }
        SafeTensors.adviseHugePages(mapping, size)
        let expected = header(key: key, config: config, payload: payload)
        guard memcmp(mapping, expected, expected.count) == 0 else {
            munmap(mapping, size)
            return nil
        }
        let region = UnsafeRawBufferPointer(start: mapping + headerBytes, count: payload)
        return PackedWeights(region: region, config) { region in
            _ = munmap(UnsafeMutableRawPointer(mutating: region.baseAddress! - headerBytes), region.count + headerBytes)
        }
    }

    /// Writes `packed` to `path` (under another name first, then renamed) and
    /// removes the files of the same model and layout it replaces. false when it
    /// could not (no room, a folder it may not write): nothing is left behind.
    @discardableResult
    static func write(_ packed: PackedWeights, to path: String, key: String, modelID: String, config: BertConfig) -> Bool {
        do throws(IBError) { try FileSystem.createDirectories(folder) } catch { return false }
        let temporary = path + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        let head = header(key: key, config: config, payload: packed.region.count)
        var written = head.withUnsafeBytes { writeAll(fd, $0) }
        if written { written = writeAll(fd, packed.region) }
        // On disk before the rename; then out of the cache, to come back in large folios.
        if written { written = fdatasync(fd) == 0 }
        if written { _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED)) }
        close(fd)
        guard written, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        removeOthers(keeping: path, modelID: modelID)
        return true
    }

    /// All of `bytes` to `fd`, through short writes and interruptions.
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// Removes the other finished files of this model and layout (an older model file's),
    /// and files of this model and layout left half-written over an hour ago (a process
    /// killed while writing; a younger one may be another process's, still writing).
    private static func removeOthers(keeping path: String, modelID: String) {
        guard let dir = opendir(folder) else { return }
        defer { closedir(dir) }
        let start = prefix(modelID), kept = String(path[path.index(after: path.lastIndex(of: "/")!)...])
        let now = time(nil)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != kept && name.hasPrefix(start) else { continue }
            var info = stat()
            if name.hasSuffix(".f32") || (name.hasSuffix(".tmp") && stat(folder + "/" + name, &info) == 0
                                          && now - info.st_mtim.tv_sec > 3600) {
                unlink(folder + "/" + name)
            }
        }
    }
}
