// What the tokenizer side needs to know about a sentence-transformers folder.
import IBCore

public enum ModelFolder {
    /// max_seq_length from sentence_bert_config.json ([CLS] and [SEP] included);
    /// 512 when the file does not say.
    public static func maxSequenceLength(directory: String) throws(IBError) -> Int {
        let path = directory + "/sentence_bert_config.json"
        guard FileSystem.exists(path) else {
            if FileSystem.isDirectory(directory) { return 512 }
            throw IBError("model folder \(directory) not found: run scripts/fetch-model, or set IB_MODEL_DIR")
        }
        let json: JSON
        do { json = try JSON.parse(FileSystem.read(path, limit: 1 << 20)) } catch { throw IBError("\(path): \(error)") }
        guard let length = json["max_seq_length"]?.intValue, length > 2 else {
            throw IBError("\(path): max_seq_length is missing or invalid")
        }
        return length
    }
}
