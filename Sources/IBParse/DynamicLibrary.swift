// The C libraries only some inputs need (poppler, cairo, tesseract, leptonica)
// are loaded with dlopen on first use, so that no tool's start-up pays for
// them. One way to do it: open the library, look each symbol up (collecting
// the missing ones, so one message names them all), and keep the outcome of
// the first attempt for every later one.
#if canImport(Glibc)
import Glibc
#endif

struct DynamicLibrary {
    let handle: UnsafeMutableRawPointer

    /// The first of `names` that opens; otherwise a ParseError of `needed` and dlerror's reason.
    static func open(_ names: [String], needed: String) throws(ParseError) -> DynamicLibrary {
        for name in names {
            if let handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL) { return DynamicLibrary(handle: handle) }
        }
        let reason = dlerror().map { String(cString: $0) } ?? "not found"
        throw ParseError("\(needed): \(reason)")
    }

    /// The function `name`, or nil with `name` added to `missing`.
    func symbol<F>(_ name: String, _ missing: inout [String]) -> F? {
        guard let p = dlsym(handle, name) else { missing.append(name); return nil }
        return unsafeBitCast(p, to: F.self)
    }

    /// A function that newer versions have and older ones may lack.
    func optional<F>(_ name: String) -> F? { dlsym(handle, name).map { unsafeBitCast($0, to: F.self) } }
}

/// The outcome of a load that runs once: later calls throw the first failure again, or return.
struct LoadOnce {
    private var outcome: ParseError?? = nil

    mutating func run(_ load: () throws(ParseError) -> Void) throws(ParseError) {
        if case .some(let failure) = outcome {
            if let failure { throw failure }
            return
        }
        do {
            try load()
            outcome = .some(nil)
        } catch {
            outcome = .some(error)
            throw error
        }
    }

    /// Throws when `missing` names anything: "LIBRARY lacks a, b".
    static func require(_ missing: [String], in library: String) throws(ParseError) {
        if !missing.isEmpty { throw ParseError("\(library) lacks \(missing.joined(separator: ", "))") }
    }
}
