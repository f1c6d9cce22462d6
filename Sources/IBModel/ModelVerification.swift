// Checking the weights against their published sha256 without paying for it
// at every start. Hashing 90 MB takes about 0.3 s, while ib-search loads the
// model for every query; so:
//
// - every load checks what is cheap: the file size, the safetensors header,
//   and every tensor's name, dtype, shape and byte range (SafeTensors, BertWeights);
// - the full sha256 is computed on the first load of a given file (path, size,
//   modification time, inode) and, when it matches, remembered with an empty
//   stamp file in $XDG_CACHE_HOME/ib/verified/; later loads of the same file skip it;
// - `ib-embed --verify-model` hashes again regardless of the stamp.
//
// The expected digest is known for the published model files (keyed by size);
// a folder with other weights is checked structurally only.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

public enum ModelVerification {
    public enum Mode: Sendable {
        /// Structure only, never the full hash.
        case structureOnly
        /// Full hash once per file, remembered in a stamp file.
        case onFirstUse
        /// Full hash now.
        case always
    }

    /// Published weights: file size -> sha256 of model.safetensors.
    public static let knownDigests: [Int: (model: String, sha256: String)] = [
        90_868_376: ("all-MiniLM-L6-v2", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
    ]

    static func check(_ file: SafeTensors, mode: Mode) throws(IBError) {
        guard mode != .structureOnly, let known = knownDigests[file.fileSize] else { return }
        let stamp = stampPath(file, expected: known.sha256)
        if mode == .onFirstUse, let stamp, FileSystem.exists(stamp) { return }
        var hasher = SHA256()
        hasher.update(file.bytes)
        let digest = SHA256.hexString(hasher.finalize())
        guard digest == known.sha256 else {
            throw IBError("\(file.path): sha256 is \(digest), expected \(known.sha256) for \(known.model): the file is damaged; run \(Installation.fetchModelCommand) to download it again")
        }
        if let stamp {
            let dir = String(stamp[..<stamp.lastIndex(of: "/")!])
            try? FileSystem.createDirectories(dir)
            let fd = open(stamp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd >= 0 {
                close(fd)
                // Once per file: where no stamp can be written the hash runs at every load,
                // and dropping the file from the cache each time would read it from disk too.
                if mode == .onFirstUse { file.recache() }
            }
        }
    }

    /// The stamp that records a successful hash of this exact file.
    static func stampPath(_ file: SafeTensors, expected: String) -> String? {
        guard let identity = identity(of: file.path) else { return nil }
        return Config.cacheDirectory + "/verified/" + SHA256.hex(identity + "|" + expected)
    }

    /// What names this exact file: its real path, size, modification time and inode
    /// (a file downloaded again, or changed in place, is another file).
    static func identity(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        var real = path
        if let resolved = realpath(path, nil) { real = String(cString: resolved); free(resolved) }
        return "\(real)|\(info.st_size)|\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)|\(info.st_ino)"
    }
}
