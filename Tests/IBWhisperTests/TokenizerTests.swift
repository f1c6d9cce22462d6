// The byte-level BPE of the Whisper model: text -> ids -> the same text.
import XCTest
@testable import IBWhisper

final class TokenizerTests: XCTestCase {
    func testRoundTripOfEnglishAndChinese() throws {
        let model = try WhisperTestModel.load()
        let t = model.tokenizer
        for text in [" And Mr. John Dashwood had then leisure to consider.", " It's 3:45, isn't it?  Yes!", " 你好，世界。", " naïve café — “quoted”"] {
            let ids = t.encode(text)
            XCTAssertFalse(ids.isEmpty)
            XCTAssertTrue(ids.allSatisfy { $0 < t.endOfText })
            XCTAssertEqual(t.decode(ids), text)
        }
        XCTAssertEqual(t.encode(" Hello world"), [18435, 995])
        XCTAssertEqual(t.decode([t.startOfTranscript, 18435, t.timestampBegin, 995, t.endOfText]), " Hello world")
    }
}

enum WhisperTestModel {
    /// The installed model, or a skip that says how to install it.
    static func load() throws -> WhisperModel {
        guard let dir = WhisperModel.locate(explicit: nil), FileManager.default.fileExists(atPath: dir + "/model.bin") else {
            throw XCTSkip("Whisper model not installed: run scripts/fetch-model whisper")
        }
        return try shared(dir)
    }
    nonisolated(unsafe) private static var cache: [String: WhisperModel] = [:]
    private static func shared(_ dir: String) throws -> WhisperModel {
        if let model = cache[dir] { return model }
        let model = try WhisperModel(directory: dir)
        cache[dir] = model
        return model
    }
}
