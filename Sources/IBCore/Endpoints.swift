// One reading of every provider endpoint setting: OPENAI_BASE_URL,
// ANTHROPIC_BASE_URL, OLLAMA_HOST and --base-url become a base URL here and
// nowhere else, so ib-embed and ib-ask reach the same host, port and path.
//
//   OpenAI, Anthropic   a URL (http:// or https://). The base ends in a
//                       version segment: /v1 is added unless the path already
//                       ends in one (/v1, /v1beta, /v2...), so
//                       http://h:8080 and http://h:8080/v1/ both give
//                       http://h:8080/v1 (then /embeddings, /chat/completions,
//                       /messages).
//   Ollama              read as Ollama's own clients read it: "host",
//                       "host:port", ":port", "[::1]:port", a bare IPv6
//                       address, or a URL. Without a scheme the port defaults
//                       to 11434; with http:// or https:// to 80 or 443. A path
//                       is kept (http://proxy/ollama -> .../ollama/api/chat).
//   All                 0.0.0.0 (and [::]) mean this machine: 127.0.0.1 ([::1]).
//                       Surrounding spaces and trailing slashes are dropped.
//
// A value that is empty, has another scheme, a bad host or port, a query,
// credentials, spaces or non-ASCII characters is refused with one IBError
// (exit 2) that names where it came from: the variable or --base-url.

public enum ProviderEndpoint {
    public enum API: String, Sendable, CaseIterable {
        case openai, anthropic, ollama
    }

    /// The environment variable each API reads.
    public static func variable(_ api: API) -> String {
        switch api {
        case .openai: return "OPENAI_BASE_URL"
        case .anthropic: return "ANTHROPIC_BASE_URL"
        case .ollama: return "OLLAMA_HOST"
        }
    }

    /// The base when neither --base-url nor the variable is set.
    public static func defaultBase(_ api: API) -> String {
        switch api {
        case .openai: return "https://api.openai.com/v1"
        case .anthropic: return "https://api.anthropic.com/v1"
        case .ollama: return "http://127.0.0.1:\(ollamaPort)"
        }
    }

    public static let ollamaPort = 11434

    /// Whether the base came from --base-url, the variable or the default.
    public static func source(_ api: API, flag: String?, environment: (String) -> String?) -> String? {
        if flag != nil { return "--base-url" }
        return environment(variable(api)) != nil ? variable(api) : nil
    }

    /// The base URL for `api`: `flag` (--base-url) when given, else its
    /// variable, else the default. `environment` should keep a variable that
    /// is set but empty as "" (the default does), so that it is refused
    /// rather than read as unset.
    public static func baseURL(_ api: API, flag: String? = nil,
                               environment: (String) -> String? = Config.rawEnvironment) throws(IBError) -> String {
        if let flag { return try parse(flag, api: api, source: "--base-url") }
        if let value = environment(variable(api)) { return try parse(value, api: api, source: variable(api)) }
        return defaultBase(api)
    }

    /// `base` + "/" + `path`: the one way request URLs are built from a base.
    public static func url(_ base: String, _ path: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + path
    }

    /// A base that ends in a version segment as it is; otherwise with /v1 added.
    /// Trailing slashes are dropped first. (Also used for bases that did not
    /// come through `parse`, e.g. settings filled in by tests.)
    public static func versioned(_ base: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        let afterScheme = schemeEnd(base[...]).map { base[$0...] } ?? base[...]
        guard let slash = afterScheme.firstIndex(of: "/") else { return base + "/v1" }
        let last = afterScheme[slash...].split(separator: "/").last.map(String.init) ?? ""
        return isVersion(last) ? base : base + "/v1"
    }

    /// v1, v2, v1beta, v1alpha2: a path segment that names an API version.
    static func isVersion(_ segment: String) -> Bool {
        let chars = Array(segment.lowercased())
        guard chars.count >= 2, chars[0] == "v", chars[1].isASCII, chars[1].isNumber else { return false }
        return chars.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// Paths that name an endpoint rather than a base.
    static let endpointSuffixes = ["/chat/completions", "/completions", "/embeddings", "/messages", "/api/chat",
                                   "/api/embed", "/api/embeddings", "/api/generate"]

    /// Reads one value (see the top of the file). `source` names it in errors.
    public static func parse(_ value: String, api: API, source: String) throws(IBError) -> String {
        func bad(_ why: String) -> IBError {
            IBError.usage("\(source): \(why)" + example(api))
        }
        let shown = clip(value)
        let s = Substring(TextClasses.trim(value, where: TextClasses.isASCIISpace))
        if s.isEmpty {
            let hint = source == "--base-url" ? "" : "; unset it for the default, \(defaultBase(api)), or set one"
            throw IBError.usage("\(source) is empty" + hint + example(api))
        }
        guard s.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value != 0x7F }) else {
            throw bad("'\(printable(shown))' has spaces, control or non-ASCII characters")
        }

        // The scheme.
        var scheme: String
        var explicitScheme = true
        var rest: Substring
        if let end = schemeEnd(s) {
            scheme = s[..<s.index(end, offsetBy: -3)].lowercased()
            rest = s[end...]
            guard scheme == "http" || scheme == "https" else {
                if scheme.isEmpty || !scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
                    throw bad("'\(shown)' is not a URL")
                }
                throw bad("scheme '\(scheme)://' is not supported (use http:// or https://)")
            }
        } else if api == .ollama {
            scheme = "http"
            explicitScheme = false
            rest = s
        } else {
            throw bad("'\(shown)' has no scheme (write http://\(clip(s)) or https://\(clip(s)))")
        }
        if rest.contains("?") || rest.contains("#") { throw bad("'\(shown)' has a query or fragment; give the base URL only") }
        if rest.contains("@") { throw bad("'\(shown)' holds credentials (user@host); keys come from the environment, not the URL") }

        // The authority: host and port.
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        var host: String
        var port: Int? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad("'\(shown)': the IPv6 address has no closing ]") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            guard isIPv6(host) else { throw bad("'\(clip(host))' is not an IPv6 address") }
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("'\(shown)': unexpected '\(clip(after))' after the IPv6 address") }
                port = try parsePort(after.dropFirst(), shown: shown, bad: bad)
            }
            host = "[" + host.lowercased() + "]"
        } else if authority.filter({ $0 == ":" }).count > 1 {
            // A bare IPv6 address, as Ollama accepts it ("::1"); no port possible.
            guard !explicitScheme, isIPv6(String(authority)) else {
                throw bad("'\(shown)': put an IPv6 address in brackets, e.g. [::1]:\(ollamaPort)")
            }
            host = "[" + authority.lowercased() + "]"
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = String(parts[0])
            if parts.count == 2 { port = try parsePort(parts[1], shown: shown, bad: bad) }
            if host.isEmpty {
                // ":11434" is this machine, as Ollama reads it; a URL needs a host.
                guard api == .ollama, port != nil else { throw bad("'\(shown)' has no host") }
                host = "127.0.0.1"
            }
            guard isHostName(host) else { throw bad("'\(clip(host))' is not a host name or address") }
        }
        if host == "0.0.0.0" { host = "127.0.0.1" }
        if host == "[::]" || host == "[0:0:0:0:0:0:0:0]" { host = "[::1]" }

        // The path: repeated and trailing slashes dropped.
        path = "/" + path.split(separator: "/").joined(separator: "/")
        if path == "/" { path = "" }
        for suffix in endpointSuffixes where path.lowercased().hasSuffix(suffix) {
            throw bad("'\(shown)' names an endpoint (\(suffix)); give the base URL")
        }

        if api == .ollama && port == nil {
            port = explicitScheme ? (scheme == "https" ? 443 : 80) : ollamaPort
        }
        let base = scheme + "://" + host + (port.map { ":\($0)" } ?? "") + path
        return api == .ollama ? base : versioned(base)
    }

    /// The index just after the first "://", or nil.
    static func schemeEnd(_ s: Substring) -> String.Index? {
        var i = s.startIndex
        while i < s.endIndex {
            if s[i...].hasPrefix("://") { return s.index(i, offsetBy: 3) }
            i = s.index(after: i)
        }
        return nil
    }

    static func example(_ api: API) -> String {
        switch api {
        case .ollama: return " (e.g. 127.0.0.1:11434 or http://gpu-box:11434)"
        case .openai: return " (e.g. https://api.openai.com/v1 or http://127.0.0.1:8080/v1)"
        case .anthropic: return " (e.g. https://api.anthropic.com)"
        }
    }

    static func parsePort(_ text: Substring, shown: String, bad: (String) -> IBError) throws(IBError) -> Int {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }),
              let n = Int(text), n >= 1, n <= 65535 else {
            throw bad("port '\(clip(text))' in '\(shown)' is not a number from 1 to 65535")
        }
        return n
    }

    /// Letters, digits, '-', '.', '_'; not starting or ending with '.' or '-'.
    static func isHostName(_ host: String) -> Bool {
        guard !host.isEmpty, host.count <= 253,
              host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") }),
              let first = host.first, let last = host.last,
              first != "." && first != "-" && last != "-", !host.contains("..") else { return false }
        return true
    }

    /// Hex digits and colons (at least two), with an optional dotted IPv4 tail.
    static func isIPv6(_ text: String) -> Bool {
        guard text.filter({ $0 == ":" }).count >= 2, text.count <= 45 else { return false }
        return text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } && !text.contains(":::")
    }

    /// A value as shown in a message: at most 80 characters.
    static func clip(_ s: some StringProtocol) -> String {
        s.count > 80 ? String(s.prefix(80)) + "..." : String(s)
    }

    static func printable(_ s: String) -> String {
        String(s.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F ? Character($0) : "?" })
    }
}
