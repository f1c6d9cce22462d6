// The bytes of one input, held so that their size does not decide ib-parse's
// memory. A file up to 64 MiB (and whatever comes from stdin or a URL up to
// that size) is read into memory, as the text parsers need it whole anyway.
// A larger file, which can only be a PDF or a ZIP container (EPUB, DOCX), is
// mapped read-only instead: a parser then costs only the pages it touches (a
// ZIP's central directory and the entries it inflates; poppler reads a PDF
// from the file itself), and the SHA-256 is computed in windows whose pages
// are dropped as it goes. Larger stdin is spilled to an unlinked temporary
// file and mapped the same way.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

public final class InputBytes: RandomAccessCollection, @unchecked Sendable {
    // @unchecked: read-only after init (the mapping is PROT_READ, the array a let).
    private enum Storage { case memory([UInt8]), mapped(UnsafeBufferPointer<UInt8>) }
    private let storage: Storage
    /// The mapped file, open for reading (a copy of the caller's descriptor), so that
    /// poppler can read a PDF through it in small buffers; nil for bytes in memory.
    public let fileDescriptor: Int32?

    public init(_ bytes: [UInt8]) { storage = .memory(bytes); fileDescriptor = nil }

    /// Maps `size` bytes of the open file `fd` read-only. `name` is how a message names it.
    init(mapping fd: Int32, size: Int, name: String) throws(ParseError) {
        TruncatedMapping.watch(name)
        guard size > 0, let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw ParseError("cannot map the file into memory (\(String(cString: strerror(errno)).lowercased()))")
        }
        storage = .mapped(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: size))
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        fileDescriptor = copy >= 0 ? copy : nil
    }

    deinit {
        if case .mapped(let buffer) = storage { munmap(UnsafeMutableRawPointer(mutating: buffer.baseAddress), buffer.count) }
        if let fileDescriptor { close(fileDescriptor) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int {
        switch storage {
        case .memory(let bytes): return bytes.count
        case .mapped(let buffer): return buffer.count
        }
    }
    public subscript(position: Int) -> UInt8 {
        switch storage {
        case .memory(let bytes): return bytes[position]
        case .mapped(let buffer): return buffer[position]
        }
    }

    public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        switch storage {
        case .memory(let bytes):
            var result: Result<R, E>!
            bytes.withUnsafeBufferPointer { buffer in result = Result { () throws(E) -> R in try body(buffer) } }
            return try result.get()
        case .mapped(let buffer): return try body(buffer)
        }
    }

    /// The bytes as an array: the same storage when in memory, a copy when mapped.
    public var array: [UInt8] {
        switch storage {
        case .memory(let bytes): return bytes
        case .mapped(let buffer): return Array(buffer)
        }
    }

    /// The SHA-256 in hex. A mapping is hashed 8 MiB at a time, each window's pages
    /// released once hashed, so hashing a 2 GiB file keeps ~8 MiB resident.
    public func sha256Hex() -> String {
        switch storage {
        case .memory(let bytes): return SHA256.hex(bytes)
        case .mapped(let buffer):
            var hash = SHA256()
            let window = 8 << 20
            var offset = 0
            while offset < buffer.count {
                let length = Swift.min(window, buffer.count - offset)
                let start = UnsafeMutableRawPointer(mutating: buffer.baseAddress! + offset)
                hash.update(UnsafeRawBufferPointer(start: start, count: length))
                _ = madvise(start, length, MADV_DONTNEED)  // page-aligned: windows are multiples of 4 KiB
                offset += length
            }
            return SHA256.hexString(hash.finalize())
        }
    }
}

/// A mapped file cut short while it is read (truncated or rewritten by another
/// process) makes the next touch of a page past its new end raise SIGBUS. That
/// cannot be turned back into an error of one input, so ib-parse stops with one
/// line naming the file and exit 1, rather than die of the signal.
enum TruncatedMapping {
    nonisolated(unsafe) private static var message: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var length = 0
    nonisolated(unsafe) private static var installed = false

    static func watch(_ name: String) {
        let text = "ib-parse: \(name): the file was truncated or rewritten while it was read\n"
        let old = message
        message = strdup(text)
        length = text.utf8.count
        free(old)
        if installed { return }
        installed = true
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            if let text = TruncatedMapping.message { _ = write(2, text, TruncatedMapping.length) }
            _exit(1)
        }
        sigemptyset(&action.sa_mask)
        sigaction(SIGBUS, &action, nil)
    }
}
