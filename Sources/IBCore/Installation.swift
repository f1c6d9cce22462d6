// Where this copy of ib lives, and what --version prints.
//
// An installed tool (make install, the .deb) sits in PREFIX/bin beside
// PREFIX/lib/ib/, which holds build-info (the commit the tools were built
// from, written by the Makefile at build time), fetch-model and
// build-thesaurus. Nothing here runs at start-up: the executable's path is
// read and build-info opened only for --version or an error message about
// the missing model, so a normal run costs nothing.
#if canImport(Glibc)
import Glibc
#endif

public enum Installation {
    /// PREFIX/lib/ib of an installed tool; nil when the tool runs from a build
    /// folder (`swift build`) with no lib/ib beside it.
    public static var libDirectory: String? {
        guard let exe = executablePath else { return nil }
        let bin = parent(exe)
        let lib = parent(bin) + "/lib/ib"
        return FileSystem.isDirectory(lib) ? lib : nil
    }

    /// How to fetch the model: PREFIX/lib/ib/fetch-model when installed, else
    /// the source checkout's scripts/fetch-model.
    public static var fetchModelCommand: String { command("fetch-model") }

    /// How to build ib-search's thesaurus (as `fetchModelCommand`).
    public static var buildThesaurusCommand: String { command("build-thesaurus") }

    static func command(_ name: String) -> String {
        if let lib = libDirectory, FileSystem.exists(lib + "/" + name) { return lib + "/" + name }
        return "scripts/" + name
    }

    /// The commit the tools were built from: build-info's `commit=` line, read
    /// from PREFIX/lib/ib/build-info or, for a `make` build not yet installed,
    /// from build-info beside the executable. "unknown" otherwise (a plain
    /// `swift build`).
    public static var commit: String {
        guard let exe = executablePath else { return "unknown" }
        let bin = parent(exe)
        for path in [parent(bin) + "/lib/ib/build-info", bin + "/build-info"] {
            guard let text = try? FileSystem.readText(path) else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("commit=") {
                let value = line.dropFirst("commit=".count)
                if !value.isEmpty { return String(value) }
            }
        }
        return "unknown"
    }

    /// What every tool prints for --version: the tool and the version, the
    /// commit, and the model it would load (`model` overrides the native
    /// sentence encoder's folder, e.g. ib-embed's HTTP providers).
    public static func versionText(tool: String, modelDirectoryFlag: String? = nil, model: String? = nil) -> String {
        var lines = ["\(tool) \(ibVersion)", "commit: \(commit)"]
        if let model {
            lines.append("model: \(model)")
        } else {
            let dir = Config.modelDirectory(flag: modelDirectoryFlag)
            let present = FileSystem.exists(dir + "/model.safetensors")
            lines.append("model: \(dir)" + (present ? "" : " (not installed: run \(fetchModelCommand))"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Where to start another ib tool from: beside this executable first (a build
    /// or install folder), then by name on PATH.
    public static func toolCandidates(_ name: String) -> [String] {
        guard let own = executablePath else { return [name] }
        return [parent(own) + "/" + name, name]
    }

    /// The running executable, symlinks resolved (/proc/self/exe).
    static var executablePath: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
