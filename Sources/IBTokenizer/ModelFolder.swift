// What the tokenizer side needs to know about a sentence-transformers folder.
import IBCore

public enum ModelFolder {
    /// The longest sequence the model takes ([CLS] and [SEP] included), read one way for
    /// ib-chunk and ib-embed alike so that no chunk is cut at embedding time:
    /// max_seq_length from sentence_bert_config.json, at most the model's
    /// max_position_embeddings; that alone when the file does not say; 512 when neither does.
    /// `maxPositions` is config.json's max_position_embeddings when the caller has read it.
    public static func maxSequenceLength(directory: String, maxPositions: Int? = nil) throws(IBError) -> Int {
        let path = directory + "/sentence_bert_config.json"
        let positions = maxPositions ?? maxPositionEmbeddings(directory: directory)
        guard FileSystem.exists(path) else {
            if FileSystem.isDirectory(directory) { return positions ?? 512 }
            throw IBError("model folder \(directory) not found: run \(Installation.fetchModelCommand), or set IB_MODEL_DIR")
        }
        let json = try JSON.read(file: path, limit: 1 << 20)
        guard let length = json["max_seq_length"]?.intValue, length > 2 else {
            throw IBError("\(path): max_seq_length is missing or invalid")
        }
        return min(length, positions ?? length)
    }

    /// config.json's max_position_embeddings; nil when the file or the number is missing
    /// (the model's loader reports a bad config.json; the tokenizer side does not need one).
    static func maxPositionEmbeddings(directory: String) -> Int? {
        guard let json = try? JSON.read(file: directory + "/config.json", limit: 16 << 20),
              let n = json["max_position_embeddings"]?.intValue, n > 0 else { return nil }
        return n
    }
}
