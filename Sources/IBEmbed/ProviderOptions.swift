// Choosing the embedding provider from flags and the environment, and putting
// the content cache in front of it. ib-embed's main declares
// `ProviderOptions.arguments`, then
//
//     let choice = try ProviderOptions(args)
//     let provider = try choice.makeProvider { try NativeProvider(...) }
//
// Flags win over the environment:
//   --provider native|openai|ollama   $IB_EMBED_PROVIDER   (default native)
//   --model NAME                      $IB_EMBED_MODEL      (openai: text-embedding-3-small,
//                                                           ollama: nomic-embed-text)
//   --base-url URL    openai: $OPENAI_BASE_URL or https://api.openai.com/v1
//                     ollama: $OLLAMA_HOST or http://127.0.0.1:11434
//                     (both read by ProviderEndpoint in IBCore, as ib-ask reads them)
//   --dim N           the expected dimension (openai is asked for it)
//   --timeout S       HTTP idle timeout (default 60)
//   --retries N, --jobs N   retries on 429/5xx (5); requests in flight (openai 2, ollama 1)
//   --no-cache, --cache PATH   ($XDG_CACHE_HOME/ib/embeddings.db)
// OpenAI needs $OPENAI_API_KEY.
import IBCore
#if canImport(Glibc)
import Glibc
#endif

public struct ProviderOptions {
    public static let names = ["native", "openai", "ollama"]
    /// The most texts in one forward pass or one request (--batch).
    public static let maxBatch = 2048

    /// The options this file reads; ib-embed adds them to its own.
    public static var arguments: [Arguments.Option] { [
        .init("provider", takesValue: true), .init("model", takesValue: true),
        .init("base-url", takesValue: true), .init("dim", takesValue: true),
        .init("timeout", takesValue: true), .init("retries", takesValue: true), .init("jobs", takesValue: true),
        .init("no-cache"), .init("cache", takesValue: true),
    ] }

    /// The help lines for these options.
    public static let help = """
      --provider NAME     native (default), openai or ollama ($IB_EMBED_PROVIDER)
      --model NAME        the provider's model ($IB_EMBED_MODEL; openai:
                          text-embedding-3-small, ollama: nomic-embed-text;
                          native: a folder name under $XDG_DATA_HOME/ib/models)
      --base-url URL      openai: default $OPENAI_BASE_URL, else
                          https://api.openai.com/v1 (/v1 is added when the
                          URL has no version); ollama: default $OLLAMA_HOST,
                          else http://127.0.0.1:11434 (HOST or HOST:PORT; port
                          11434 unless a scheme says 80/443); 0.0.0.0 is
                          127.0.0.1; ib-ask reads them the same way
      --dim N             the dimension to expect (openai is asked for N);
                          any other length is an error (1 to 65536)
      --timeout SECONDS   HTTP idle timeout (default 60; 0.001 to 86400)
      --retries N         HTTP retries on 429 and 5xx (default 5; 0 to 100)
      --jobs N            HTTP requests in flight at once (default: openai 2,
                          ollama 1; 1 to 64)
      --cache PATH        the embedding cache (default
                          $XDG_CACHE_HOME/ib/embeddings.db)
      --no-cache          neither read nor write the cache
    """

    public var provider = "native"
    public var model: String?
    /// --model as given on the command line (the native provider reads only the flag).
    public var modelFlag: String?
    public var baseURL: String?
    public var dimension: Int?
    /// Texts per HTTP request (--batch); nil: the provider's default.
    public var batchSize: Int?
    public var timeout: Double = 60
    public var maxRetries = 5
    /// HTTP requests in flight (--jobs); nil: the provider's default.
    public var jobs: Int?
    public var useCache = true
    public var cachePath: String?
    /// Where environment variables come from (tests replace it). A variable
    /// set but empty is "" here: an empty OLLAMA_HOST or OPENAI_BASE_URL is
    /// refused; for every other variable it counts as unset (`variable`).
    public var environment: (String) -> String? = Config.rawEnvironment

    public init() {}

    /// Reads the flags above; --batch sets texts per HTTP request for openai and ollama.
    public init(_ args: Arguments, environment: @escaping (String) -> String? = Config.rawEnvironment) throws(IBError) {
        self.environment = environment
        let variable = ProviderOptions.nonEmpty(environment)
        let name = args.value("provider") ?? variable("IB_EMBED_PROVIDER") ?? "native"
        guard ProviderOptions.names.contains(name.lowercased()) else {
            let source = args.value("provider") != nil ? "--provider" : "IB_EMBED_PROVIDER"
            throw IBError.usage("\(source): unknown provider '\(name)' (choose one of \(ProviderOptions.names.joined(separator: ", ")))")
        }
        provider = name.lowercased()
        modelFlag = args.value("model")
        model = modelFlag ?? variable("IB_EMBED_MODEL")
        baseURL = args.value("base-url")
        dimension = try args.int("dim", min: 1, max: 65_536)
        batchSize = try args.int("batch", min: 1, max: ProviderOptions.maxBatch)
        timeout = try args.seconds("timeout") ?? timeout
        maxRetries = try args.int("retries", min: 0, max: 100) ?? maxRetries
        jobs = try args.int("jobs", min: 1, max: 64)
        if let path = try args.path("cache") {
            // SQLite would open a device and write its journal beside it (/dev/full-journal).
            var info = stat()
            if stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
                throw IBError.usage("--cache \(path): not a regular file (the cache is one SQLite file)")
            }
            cachePath = path
        }
        useCache = !args.has("no-cache")
        if !useCache && cachePath != nil { throw IBError.usage("--cache and --no-cache cannot be combined") }
        if provider == "native" && baseURL != nil { throw IBError.usage("--base-url needs --provider openai or ollama") }
        // A bad --base-url is a usage error before anything is read.
        if let api = endpointAPI, let baseURL { _ = try ProviderEndpoint.parse(baseURL, api: api, source: "--base-url") }
    }

    /// The endpoint the chosen provider reads (nil: native).
    var endpointAPI: ProviderEndpoint.API? {
        provider == "openai" ? .openai : provider == "ollama" ? .ollama : nil
    }

    /// The environment with empty values as unset.
    static func nonEmpty(_ environment: @escaping (String) -> String?) -> (String) -> String? {
        { name in environment(name).flatMap { $0.isEmpty ? nil : $0 } }
    }

    /// The options that give vectors comparable to a stored model id:
    /// "openai/NAME" and "ollama/NAME" pick that provider and model, anything
    /// else the native model (e.g. for ib-search to embed a query).
    public init(modelID: String, environment: @escaping (String) -> String? = Config.rawEnvironment) {
        self.environment = environment
        for name in ["openai", "ollama"] where modelID.hasPrefix(name + "/") {
            provider = name
            model = String(modelID.dropFirst(name.count + 1))
        }
    }

    /// The model folder for the native provider: --model-dir, else --model NAME
    /// under $XDG_DATA_HOME/ib/models, else the default (Config.modelDirectory).
    public func nativeModelDirectory(flag: String?) -> String {
        if let flag { return flag }
        if let model = modelFlag {
            return model.contains("/") ? model : Config.dataDirectory + "/models/" + model
        }
        return Config.modelDirectory()
    }

    /// The HTTP provider chosen, or nil for native.
    public func makeHTTPProvider() throws(IBError) -> HTTPEmbeddingProvider? {
        let variable = ProviderOptions.nonEmpty(environment)
        switch provider {
        case "openai":
            guard let key = variable(OpenAIEmbeddingProvider.keyVariable) else {
                throw IBError("the openai provider needs an API key in \(OpenAIEmbeddingProvider.keyVariable) (export OPENAI_API_KEY=...)", code: .provider)
            }
            var settings = HTTPEmbeddingSettings(
                model: model ?? OpenAIEmbeddingProvider.defaultModel,
                baseURL: try ProviderEndpoint.baseURL(.openai, flag: baseURL, environment: environment),
                apiKey: key, dimension: dimension, batchSize: batchSize ?? OpenAIEmbeddingProvider.defaultBatchSize)
            configure(&settings)
            settings.concurrency = jobs ?? OpenAIEmbeddingProvider.defaultConcurrency
            return OpenAIEmbeddingProvider(settings: settings)
        case "ollama":
            var settings = HTTPEmbeddingSettings(
                model: model ?? OllamaEmbeddingProvider.defaultModel,
                baseURL: try ProviderEndpoint.baseURL(.ollama, flag: baseURL, environment: environment),
                dimension: dimension, batchSize: batchSize ?? OllamaEmbeddingProvider.defaultBatchSize)
            configure(&settings)
            settings.concurrency = jobs ?? 1
            return OllamaEmbeddingProvider(settings: settings)
        default:
            return nil
        }
    }

    private func configure(_ settings: inout HTTPEmbeddingSettings) {
        settings.timeout = timeout
        settings.maxRetries = maxRetries
        settings.onRetry = { retry in
            printError("ib-embed: \(retry.reason), retrying in \(String(format1: retry.delay)) s (attempt \(retry.attempt + 1))")
        }
    }

    /// The provider chosen (`native` builds the native one), behind the cache unless --no-cache.
    /// A cache that cannot be opened is a warning; the run goes on without it.
    public func makeProvider(native: () throws -> any EmbeddingProvider) throws -> any EmbeddingProvider {
        let base: any EmbeddingProvider
        if let http = try makeHTTPProvider() {
            base = http
        } else {
            base = try native()
            if let dimension, dimension != base.dimension {
                throw IBError.usage("--dim \(dimension): the native model \(base.modelID) has \(base.dimension) dimensions")
            }
        }
        guard useCache else { return base }
        do {
            return CachedProvider(base: base, cache: try EmbeddingCache(path: cachePath ?? EmbeddingCache.defaultPath))
        } catch {
            printError("ib-embed: warning: \(error.message); going on without the cache")
            return base
        }
    }
}

extension String {
    /// One decimal place, without Foundation.
    init(format1 x: Double) {
        let tenths = Int((x * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
