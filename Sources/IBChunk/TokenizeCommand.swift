// `ib-chunk --tokenize`: text in, ids and pieces out, for counting and
// debugging, like ttok. A line that is a JSON object with "text" is read as
// that text; any other line is the text itself.
import IBCore
import IBTokenizer

public struct TokenizeCommand {
    let tokenizer: WordPieceTokenizer
    let output: OutputStream

    public init(tokenizer: WordPieceTokenizer, output: OutputStream = .standardOutput) {
        self.tokenizer = tokenizer
        self.output = output
    }

    public func run(paths: [String]) throws {
        for path in paths.isEmpty ? ["-"] : paths {
            let reader = try LineReader(path: path)
            try reader.forEachLine { line in
                guard let raw = String(validating: line, as: UTF8.self) else {
                    throw IBError("\(reader.name):\(reader.lineNumber): not valid UTF-8")
                }
                var text = raw
                if line.first == UInt8(ascii: "{") {
                    guard let json = try? JSON.parse(line), let value = json["text"]?.stringValue else {
                        throw IBError("\(reader.name):\(reader.lineNumber): a JSON line needs a string field 'text'")
                    }
                    text = value
                }
                let ids = tokenizer.encode(text)
                let record: JSON = [
                    "text": .string(text),
                    "input_ids": .array(ids.map { .number(Double($0)) }),
                    "tokens": JSON(tokenizer.tokens(ids)),
                ]
                output.writeJSON(record)
            }
        }
    }
}
