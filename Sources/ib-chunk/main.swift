import IBChunk
import IBCore
import IBTokenizer

let help = """
Usage: ib-chunk [OPTIONS] [FILE...]
       ib-chunk --tokenize [FILE...]

Reads book and page records (from ib-parse) and writes them back out, each
book followed by its chunk records: paragraph-aware pieces sized in the
embedding model's tokens, with exact page ranges. Other record types pass
through unchanged. FILE defaults to standard input; "-" is standard input.

Options:
  --size N           chunk size in tokens, [CLS] and [SEP] included
                     (default: the model's max_seq_length, 256 for MiniLM;
                     8 to 1000000, words: 1 to 1000000)
  --overlap N[%]     tokens shared with the previous chunk (0 to half of
                     --size), or a percentage of --size (0% to 50%;
                     default: 15%)
  --tokenizer KIND   "model" (default) sizes in model tokens; "words" sizes
                     in whitespace-separated words (default size 400), for
                     providers with long contexts, and needs no model
  --no-pages         drop page records from the output
  --model-dir DIR    the model folder (default: $IB_MODEL_DIR, else
                     $XDG_DATA_HOME/ib/models/all-MiniLM-L6-v2)
  --tokenize         read text (one per line, or {"text": ...} records) and
                     write {"text", "input_ids", "tokens"} per line
  -h, --help         show this help
      --version      show the version, the commit and the model folder

On a terminal: JSON Lines (book, page and chunk records)
In a pipe: JSON Lines
Output options: none (a record stream)
Exit status: 0 ok, 1 input or runtime error (FILE:LINE: message on stderr),
2 usage error. See ib-chunk(1) and ib(7).
"""

runTool("ib-chunk") {
    let args = try Arguments(Array(CommandLine.arguments.dropFirst()), options: [
        .init("size", takesValue: true), .init("overlap", takesValue: true), .init("tokenizer", takesValue: true),
        .init("model-dir", takesValue: true), .init("no-pages"), .init("tokenize"),
        .init("help", short: "h"), .init("version"),
    ])
    if args.has("help") { print(help); return }
    if args.has("version") { print(Installation.versionText(tool: "ib-chunk", modelDirectoryFlag: try args.path("model-dir")), terminator: ""); return }
    let modelDirectory = Config.modelDirectory(flag: try args.path("model-dir"))

    if args.has("tokenize") {
        let tokenizer = try WordPieceTokenizer(modelDirectory: modelDirectory)
        try TokenizeCommand(tokenizer: tokenizer).run(paths: args.positionals)
        return
    }

    let unit: ChunkerOptions.Unit = try args.choice("tokenizer", ["model", "words"]) == "words" ? .words : .tokens
    let sizeFlag = try args.int("size", min: unit == .tokens ? 8 : 1, max: 1_000_000)
    let tokenizer = unit == .tokens ? try WordPieceTokenizer(modelDirectory: modelDirectory) : nil
    let size = try sizeFlag ?? (unit == .tokens ? ModelFolder.maxSequenceLength(directory: modelDirectory) : 400)
    var overlap = ChunkerOptions.defaultOverlap(size: size)
    if let text = args.value("overlap") {
        let refused = IBError.usage("--overlap must be a number of tokens from 0 to \(size / 2) or a percentage from 0% to 50%, not '\(Arguments.shown(text))'")
        if text.hasSuffix("%") {
            guard let percent = try? Arguments.parseDouble(String(text.dropLast()), name: "--overlap", min: 0, max: 50) else { throw refused }
            overlap = min(size / 2, Int((Double(size) * percent / 100).rounded()))
        } else {
            guard let tokens = try? Arguments.parseInt(text, name: "--overlap", min: 0, max: size / 2) else { throw refused }
            overlap = tokens
        }
    }
    let chunker = try Chunker(tokenizer: tokenizer, options: ChunkerOptions(size: size, overlap: overlap, unit: unit))
    try ChunkStream(chunker: chunker, keepPages: !args.has("no-pages")).run(paths: args.positionals)
}
