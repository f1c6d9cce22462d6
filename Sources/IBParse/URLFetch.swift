// URL input (http and https only): libcurl, loaded with dlopen on the first
// URL so that ib-parse starts fast (Foundation's networking would load ~40
// libraries into every start). A timeout, a size cap, at most 5 redirects,
// http/https only (redirects included). The format comes from the
// Content-Type (HTML, plain text, Markdown, PDF, EPUB; others are detected
// from the content). The title falls back to the URL's last path segment,
// then its host, so it is never empty.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

public enum URLFetch {
    public static func isURL(_ s: String) -> Bool {
        let lower = s.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// The body being received and its cap; a write past the cap, or one the
    /// spool refuses, aborts the transfer.
    final class Sink {
        let body = Spool()
        let cap: Int
        var overflow = false
        var refused: ParseError?
        init(cap: Int) { self.cap = cap }
    }

    public static func fetch(_ url: String, options: ParseOptions) throws(ParseError) -> InputSource {
        let curl = try Curl.load()
        guard let handle = curl.easyInit() else { throw ParseError("libcurl could not start", kind: "network") }
        defer { curl.easyCleanup(handle) }
        let sink = Sink(cap: options.maxDownloadBytes)
        let sinkPointer = Unmanaged.passUnretained(sink).toOpaque()
        let write: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, user in
            guard let user else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
            let n = size * count
            if sink.body.count + n > sink.cap { sink.overflow = true; return 0 }
            guard let data else { return n }
            do {
                try data.withMemoryRebound(to: UInt8.self, capacity: n) { (p) throws(ParseError) in try sink.body.append(UnsafeBufferPointer(start: p, count: n)) }
            } catch { sink.refused = error as? ParseError ?? ParseError("\(error)"); return 0 }
            return n
        }
        // At least 1 ms (0 is "no timeout" to libcurl); options come capped at a day.
        let timeoutMS = Int(max(1, min((options.timeoutSeconds * 1000).rounded(.up), 86_400_000)))
        url.withCString { curl.setString(handle, Curl.optURL, $0) }
        "http,https".withCString {
            curl.setString(handle, Curl.optProtocolsString, $0)
            curl.setString(handle, Curl.optRedirectProtocolsString, $0)
        }
        "ib-parse/0.1".withCString { curl.setString(handle, Curl.optUserAgent, $0) }
        "".withCString { curl.setString(handle, Curl.optAcceptEncoding, $0) }
        curl.setLong(handle, Curl.optFollowLocation, 1)
        curl.setLong(handle, Curl.optMaxRedirects, 5)
        curl.setLong(handle, Curl.optTimeoutMS, timeoutMS)
        curl.setLong(handle, Curl.optConnectTimeoutMS, min(timeoutMS, 30_000))
        curl.setLong(handle, Curl.optNoSignal, 1)
        curl.setPointer(handle, Curl.optWriteFunction, unsafeBitCast(write, to: UnsafeMutableRawPointer.self))
        curl.setPointer(handle, Curl.optWriteData, sinkPointer)
        let code = curl.perform(handle)
        if code != 0 {
            let reason = curl.strerror(code).map { String(cString: $0) } ?? "error \(code)"
            if sink.overflow { throw ParseError("the response is larger than the \(options.maxDownloadBytes)-byte cap", kind: "network") }
            if let refused = sink.refused { throw refused }
            switch code {
            case 28: throw ParseError("timed out after \(options.timeoutSeconds) s", kind: "network")
            case 47: throw ParseError("more than 5 redirects", kind: "network")
            case 1: throw ParseError("only http and https are supported (also for redirects)", kind: "network")
            default: throw ParseError("\(reason)", kind: "network")
            }
        }
        var status = 0
        curl.infoLong(handle, Curl.infoResponseCode, &status)
        if status >= 400 || status < 200 {
            throw ParseError("HTTP \(status)\(reason(status).isEmpty ? "" : " " + reason(status))", kind: "network")
        }
        var finalURL = url
        var typePointer: UnsafePointer<CChar>? = nil
        curl.infoPointer(handle, Curl.infoEffectiveURL, &typePointer)
        if let p = typePointer { finalURL = String(cString: p) }
        typePointer = nil
        curl.infoPointer(handle, Curl.infoContentType, &typePointer)
        var contentType = typePointer.map { String(cString: $0).lowercased() }
        if let type = contentType, let semicolon = type.firstIndex(of: ";") {
            contentType = TextClasses.trim(type[..<semicolon], where: TextClasses.isBlank)
        }
        let (segment, ext) = lastSegment(finalURL)
        var fallback = segment
        if fallback.isEmpty { fallback = host(finalURL) }
        if fallback.isEmpty { fallback = url }
        var hint = ext
        switch contentType ?? "" {
        case "text/html", "application/xhtml+xml": hint = "html"
        case "text/markdown", "text/x-markdown": hint = "md"
        case "text/plain": hint = ext == "md" || ext == "markdown" ? "md" : "txt"
        default: break
        }
        return InputSource(name: url, source: finalURL, bytes: try sink.body.finish(), extensionHint: hint,
                           fallbackTitle: fallback, contentType: contentType)
    }

    /// Host and path, never the query (it may hold keys).
    static func describe(_ url: String) -> String {
        let h = host(url)
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...].prefix { $0 != "?" && $0 != "#" }
        return h.isEmpty ? String(rest) : String(rest)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }

    static func host(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return "" }
        let rest = url[scheme.upperBound...]
        return String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }

    /// The last non-empty path segment, percent-decoded and without its extension, and the extension.
    static func lastSegment(_ url: String) -> (String, String?) {
        guard let scheme = url.firstRange(of: "://") else { return ("", nil) }
        var rest = url[scheme.upperBound...]
        rest = rest.prefix { $0 != "?" && $0 != "#" }
        guard let slash = rest.firstIndex(of: "/") else { return ("", nil) }
        let path = rest[slash...]
        guard let last = path.split(separator: "/").last else { return ("", nil) }
        var name = EPUBParser.percentDecoded(String(last))
        var ext: String? = nil
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            ext = String(name[name.index(after: dot)...]).lowercased()
            name = String(name[..<dot])
        }
        return (name.collapsedWhitespace, ext)
    }
}

/// The few libcurl calls ib-parse needs, through dlopen. curl_easy_setopt and
/// curl_easy_getinfo are variadic; on x86-64 and arm64 Linux a call with one
/// pointer-sized argument after the fixed ones passes it exactly as a
/// non-variadic call does, so typed function pointers are used.
struct Curl {
    static let optWriteData: Int32 = 10001, optURL: Int32 = 10002, optUserAgent: Int32 = 10018
    static let optWriteFunction: Int32 = 20011, optFollowLocation: Int32 = 52, optMaxRedirects: Int32 = 68
    static let optNoSignal: Int32 = 99, optAcceptEncoding: Int32 = 10102, optTimeoutMS: Int32 = 155
    static let optConnectTimeoutMS: Int32 = 156, optProtocolsString: Int32 = 10318, optRedirectProtocolsString: Int32 = 10319
    static let infoEffectiveURL: Int32 = 0x100000 + 1, infoContentType: Int32 = 0x100000 + 18, infoResponseCode: Int32 = 0x200000 + 2

    let easyInit: @convention(c) () -> UnsafeMutableRawPointer?
    let easyCleanup: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let perform: @convention(c) (UnsafeMutableRawPointer?) -> Int32
    let strerror: @convention(c) (Int32) -> UnsafePointer<CChar>?
    private let setoptLong: @convention(c) (UnsafeMutableRawPointer?, Int32, Int) -> Int32
    private let setoptPointer: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?) -> Int32
    private let getinfoPointer: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Int32

    func setLong(_ h: UnsafeMutableRawPointer, _ option: Int32, _ value: Int) { _ = setoptLong(h, option, value) }
    func setString(_ h: UnsafeMutableRawPointer, _ option: Int32, _ value: UnsafePointer<CChar>) { _ = setoptPointer(h, option, value) }
    func setPointer(_ h: UnsafeMutableRawPointer, _ option: Int32, _ value: UnsafeMutableRawPointer) { _ = setoptPointer(h, option, value) }
    func infoLong(_ h: UnsafeMutableRawPointer, _ info: Int32, _ value: inout Int) {
        withUnsafeMutablePointer(to: &value) { _ = getinfoPointer(h, info, $0) }
    }
    func infoPointer(_ h: UnsafeMutableRawPointer, _ info: Int32, _ value: inout UnsafePointer<CChar>?) {
        withUnsafeMutablePointer(to: &value) { _ = getinfoPointer(h, info, $0) }
    }

    static func load() throws(ParseError) -> Curl {
        var handle: UnsafeMutableRawPointer? = nil
        for name in ["libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"] {
            handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)
            if handle != nil { break }
        }
        guard let handle else { throw ParseError("URL input needs libcurl (apt-get install libcurl4)", kind: "network") }
        func symbol<T>(_ name: String) throws(ParseError) -> T {
            guard let p = dlsym(handle, name) else { throw ParseError("libcurl lacks \(name)", kind: "network") }
            return unsafeBitCast(p, to: T.self)
        }
        let global: @convention(c) (Int) -> Int32 = try symbol("curl_global_init")
        _ = global(3)
        return Curl(easyInit: try symbol("curl_easy_init"), easyCleanup: try symbol("curl_easy_cleanup"),
                    perform: try symbol("curl_easy_perform"), strerror: try symbol("curl_easy_strerror"),
                    setoptLong: try symbol("curl_easy_setopt"), setoptPointer: try symbol("curl_easy_setopt"),
                    getinfoPointer: try symbol("curl_easy_getinfo"))
    }
}
