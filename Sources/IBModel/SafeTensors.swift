// A safetensors file, mapped into memory read-only. Nothing is copied: a
// tensor is a pointer into the mapping. The format is an 8-byte little-endian
// header length, a JSON header {name: {dtype, shape, data_offsets}}, then the
// tensor bytes (offsets are relative to the end of the header).
#if canImport(Glibc)
import Glibc
#endif
import IBCore

public struct TensorInfo: Sendable {
    public let name: String
    public let dtype: String
    public let shape: [Int]
    /// Byte range in the data section.
    public let start: Int
    public let end: Int
}

public final class SafeTensors: @unchecked Sendable {
    public let path: String
    public let fileSize: Int
    public let tensors: [String: TensorInfo]
    private let base: UnsafeRawPointer
    private let dataStart: Int

    public init(path: String) throws(IBError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw IBError("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw IBError("\(path): \(String(cString: strerror(errno)))") }
        fileSize = Int(info.st_size)
        guard fileSize >= 8 else { throw IBError("\(path): truncated safetensors file (\(fileSize) bytes)") }
        guard let mapping = mmap(nil, fileSize, PROT_READ, MAP_PRIVATE, fd, 0), mapping != MAP_FAILED else {
            throw IBError("\(path): cannot map: \(String(cString: strerror(errno)))")
        }
        base = UnsafeRawPointer(mapping)
        SafeTensors.adviseHugePages(mapping, fileSize)
        var headerLength = 0
        for i in 0..<8 { headerLength |= Int(base.load(fromByteOffset: i, as: UInt8.self)) << (8 * i) }
        guard headerLength > 1, headerLength <= 100 << 20, 8 + headerLength <= fileSize else {
            munmap(mapping, fileSize)
            throw IBError("\(path): truncated or not a safetensors file (header length \(headerLength), file \(fileSize) bytes)")
        }
        dataStart = 8 + headerLength
        let header: JSON
        do {
            header = try JSON.parse(UnsafeBufferPointer(start: base.advanced(by: 8).assumingMemoryBound(to: UInt8.self),
                                                        count: headerLength))
        } catch {
            munmap(mapping, fileSize)
            throw IBError("\(path): safetensors header is not valid JSON: \(error)")
        }
        guard let object = header.objectValue else {
            munmap(mapping, fileSize)
            throw IBError("\(path): safetensors header is not a JSON object")
        }
        var tensors: [String: TensorInfo] = [:]
        let dataSize = fileSize - dataStart
        for (name, value) in object.entries where name != "__metadata__" {
            guard let dtype = value["dtype"]?.stringValue,
                  let shape = value["shape"]?.arrayValue?.compactMap(\.intValue),
                  let offsets = value["data_offsets"]?.arrayValue?.compactMap(\.intValue), offsets.count == 2
            else {
                munmap(mapping, fileSize)
                throw IBError("\(path): tensor '\(name)' has a malformed header entry")
            }
            guard offsets[0] >= 0, offsets[0] <= offsets[1] else {
                munmap(mapping, fileSize)
                throw IBError("\(path): tensor '\(name)' has bad data offsets")
            }
            guard offsets[1] <= dataSize else {
                munmap(mapping, fileSize)
                throw IBError("\(path): truncated safetensors file: tensor '\(name)' ends at byte \(dataStart + offsets[1]) but the file has \(fileSize) bytes")
            }
            tensors[name] = TensorInfo(name: name, dtype: dtype, shape: shape, start: offsets[0], end: offsets[1])
        }
        self.tensors = tensors
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), fileSize) }

    /// Lets the kernel take back the whole pages of a tensor returned by float32(_:shape:) (the
    /// mapping is read-only and file-backed: a later read pages them in again from the file).
    /// For weights used once at load, such as the ones --precision int8 quantises, so that they
    /// stop counting in the resident set.
    public static func dropPages(of tensor: UnsafePointer<Float>, count: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: tensor) + page - 1) / page * page
        let end = (Int(bitPattern: tensor) + count * 4) / page * page
        guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(address, end - start, MADV_DONTNEED)
    }

    /// Clears this process's page-table entries for the mapping (MADV_DONTNEED): the
    /// map stays, the file's pages stay in the page cache, and a later read faults
    /// them back from there. For a process that is done with the weights.
    func releasePages() {
        _ = madvise(UnsafeMutableRawPointer(mutating: base), fileSize, MADV_DONTNEED)
    }

    /// Where the mapping starts (for tests).
    var mappedAddress: Int { Int(bitPattern: base) }

    /// Asks for the mapping to be backed by 2 MiB pages where the kernel can. Every tensor of a
    /// layer is read by every forward pass, and a one-off process (ib-search) maps the weights
    /// anew each time: in 4 KiB pages that is ~22k page-table entries set by faults and cleared
    /// at exit, about 20 ms of kernel time per process (Zen 3, Linux 6.18); in 2 MiB pages, 44.
    /// Linux maps a file with 2 MiB entries when the page cache holds it in 2 MiB folios (ext4
    /// and XFS from 6.16 keep large folios), and MADV_HUGEPAGE makes a read that misses the
    /// cache bring the file in as such folios. Elsewhere the advice is refused or does nothing,
    /// and the mapping works as before.
    static func adviseHugePages(_ mapping: UnsafeMutableRawPointer, _ size: Int) {
        _ = madvise(mapping, size, MADV_HUGEPAGE)
    }

    /// Drops this file's pages from the page cache (after unmapping them from this process), so
    /// that the next read brings it back through the advised mapping, in 2 MiB folios. Called once
    /// per file, after its first full hash: a file just downloaded sits in the cache in the small
    /// folios its writes made, and would stay so until memory pressure or a reboot evicts it.
    /// Costs one more read of the file. Pages other processes have mapped stay, as they are.
    func recache() {
        _ = madvise(UnsafeMutableRawPointer(mutating: base), fileSize, MADV_DONTNEED)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fdatasync(fd)   // dirty pages (a download not yet written back) are not dropped
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
        close(fd)
    }

    /// The whole file, for hashing.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: fileSize) }

    /// An F32 tensor of exactly `shape`, as a pointer into the mapping.
    public func float32(_ name: String, shape: [Int]) throws(IBError) -> UnsafePointer<Float> {
        guard let info = tensors[name] else { throw IBError("\(path): tensor '\(name)' is missing") }
        guard info.dtype == "F32" else { throw IBError("\(path): tensor '\(name)' is \(info.dtype), expected F32") }
        guard info.shape == shape else {
            throw IBError("\(path): tensor '\(name)' has shape \(info.shape), expected \(shape) from config.json")
        }
        let count = shape.reduce(1, *)
        guard info.end - info.start == count * 4 else {
            throw IBError("\(path): tensor '\(name)' has \(info.end - info.start) bytes, expected \(count * 4)")
        }
        let address = base.advanced(by: dataStart + info.start)
        guard Int(bitPattern: address) % 4 == 0 else { throw IBError("\(path): tensor '\(name)' is not 4-byte aligned") }
        return address.assumingMemoryBound(to: Float.self)
    }
}
