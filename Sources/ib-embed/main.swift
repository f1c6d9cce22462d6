import IBCore
import IBEmbed
import IBModel

let help = """
Usage: ib-embed [OPTIONS] [FILE...]
       ib-embed --query TEXT
       ib-embed --text [FILE...]

Reads chunk records (from ib-chunk) and writes them back out with "model",
"dim" and "embedding" added, and "precision" ("bf16", "int8") when the native
model ran in one (fp32 and HTTP providers write none; none reads as fp32).
Other record types pass through unchanged, in their place. FILE defaults to
standard input; "-" is standard input.

The default provider runs all-MiniLM-L6-v2 natively (384 dimensions, unit
length, texts over 256 tokens truncated with one warning per run). It also
adds "windows": the chunk's tokens in runs of about 32, then its paragraphs
(at most 64 tokens), each mean-pooled from the same forward pass (no extra
model cost) and quantised to int8, base64. ib-search scores chunks by their
best window.

Options:
  --query TEXT        embed TEXT and write one {"type":"embedding"} record
  --text              read one text per line and write an embedding record each
  --encoding ENC      "floats" (default, a JSON array) or "base64"
                      (little-endian float32, base64)
  --batch N           texts per forward pass (default: 8; 1 to 2048)
  --threads N         worker threads (default: the cores this process may use, by its CPU affinity and quota; 1 to 256)
  --model-dir DIR     the model folder (default: $IB_MODEL_DIR, else
                      $XDG_DATA_HOME/ib/models/all-MiniLM-L6-v2)
  --precision P       fp32 (default, same vectors as sentence-transformers),
                      bf16 (native model on AVX-512 BF16 CPUs: faster,
                      cosine to fp32 above 0.999) or int8 (native model,
                      int8 weight products, cosine to fp32 above 0.999;
                      faster where the CPU has AMX, see ib-embed(1));
                      default $IB_PRECISION, else fp32. ib-index keeps a
                      library to one precision; ib-search embeds queries in it
  --verify-model      check the sha256 of model.safetensors now (it is
                      otherwise checked once per file and remembered)
  --progress          print progress (chunks/s, ETA) on stderr even when
                      stderr is not a terminal; --no-progress never prints it.
                      The ETA comes from a file's size or, in a pipe, from the
                      pages the chunks reached of the book's page count; under
                      make -j each ib-embed prints whole lines named by its book
  --no-windows        leave out the "windows" field (smaller records and
                      library; search then ranks by whole-chunk vectors only)
\(ProviderOptions.help)
  -h, --help          show this help
      --version       show the version, the commit and the model folder

Providers and cache: --provider openai or ollama sends the texts to that API
(--batch is then texts per request). Every provider's vectors are cached by
(model, sha256 of the text) in $XDG_CACHE_HOME/ib/embeddings.db, so unchanged
text is never embedded twice, in any book.

Environment: IB_MODEL_DIR, XDG_DATA_HOME, XDG_CACHE_HOME (sha256 stamps and
the embedding cache), IB_EMBED_PROVIDER, IB_EMBED_MODEL, OPENAI_API_KEY,
OPENAI_BASE_URL, OLLAMA_HOST (read as ib-ask reads them; an empty or bad
value is a usage error naming the variable).
On a terminal: JSON Lines (the records, chunks with embeddings)
In a pipe: JSON Lines
Output options: none (a record stream)
Exit status: 0 ok, 1 input or runtime error (FILE:LINE: message on stderr),
2 usage error (also a bad OPENAI_BASE_URL, OLLAMA_HOST or --base-url),
4 provider failure. See ib-embed(1) and ib(7).
"""

runTool("ib-embed") {
    let args = try Arguments(Array(CommandLine.arguments.dropFirst()), options: [
        .init("query", takesValue: true), .init("text"), .init("encoding", takesValue: true),
        .init("batch", takesValue: true), .init("threads", takesValue: true),
        .init("model-dir", takesValue: true), .init("verify-model"), .init("precision", takesValue: true),
        .init("progress"), .init("no-progress"), .init("no-windows"),
        .init("help", short: "h"), .init("version"),
    ] + ProviderOptions.arguments)
    if args.has("help") { print(help); return }
    let encoding: EmbeddingEncoding = try args.choice("encoding", ["floats", "base64"]) == "base64" ? .base64 : .floats
    let batch = try args.int("batch", min: 1, max: ProviderOptions.maxBatch) ?? SentenceEncoder.defaultBatchSize
    let threads = try args.int("threads", min: 1, max: 256)
    let modelDirFlag = try args.path("model-dir")
    if args.value("query") != nil && args.has("text") { throw IBError.usage("--query and --text cannot be combined") }
    if args.value("query") != nil && !args.positionals.isEmpty { throw IBError.usage("--query takes no FILE arguments") }

    let choice = try ProviderOptions(args)
    if args.has("version") {
        let model = choice.provider == "native" ? nil : choice.provider + "/" + (choice.model ?? (choice.provider == "openai" ? OpenAIEmbeddingProvider.defaultModel : OllamaEmbeddingProvider.defaultModel))
        print(Installation.versionText(tool: "ib-embed", modelDirectoryFlag: choice.nativeModelDirectory(flag: modelDirFlag), model: model),
              terminator: "")
        return
    }
    let precision = try Precision.chosen(flag: args.value("precision"))
    let provider = try choice.makeProvider {
        let native = try NativeProvider(modelDirectory: choice.nativeModelDirectory(flag: modelDirFlag),
                                        batchSize: batch, threads: threads,
                                        verify: args.has("verify-model") ? .always : .onFirstUse,
                                        precision: precision)
        // A measurement hook (scripts/bench/int8-layers): which linears int8 keeps in floating point.
        if precision == .int8, let plan = Config.environment("IB_INT8_PLAN") {
            native.encoder.int8Plan = try Int8Plan.parse(plan, layers: native.encoder.config.layers)
        }
        return native
    }
    defer {
        if provider.truncatedCount > 0, let max = provider.maxSequenceLength {
            let n = provider.truncatedCount
            printError("ib-embed: warning: \(n) text\(n == 1 ? " was" : "s were") longer than \(max) tokens and truncated")
        }
    }
    if let query = args.value("query") {
        try TextEmbedding.write(texts: [query], provider: provider, encoding: encoding)
    } else if args.has("text") {
        try TextEmbedding.run(paths: args.positionals, provider: provider, encoding: encoding)
    } else {
        var options = EmbedOptions()
        options.encoding = encoding
        options.windows = !args.has("no-windows")
        options.progress = args.has("progress") ? true : args.has("no-progress") ? false : nil
        // Larger buffers keep both cores busy to the end of each buffer; with a
        // progress line, smaller ones let it move every few seconds.
        let showProgress = options.progress ?? Terminal.stderrIsTerminal
        options.bufferSize = max(showProgress ? 256 : 1024, batch * (threads ?? Cores.available) * 4)
        try EmbedStream(provider: provider, options: options).run(paths: args.positionals)
    }
}
