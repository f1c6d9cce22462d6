// Parity with faster-whisper's initial_prompt (fp32, greedy, same weights):
// the prompt text is encoded as " " + text and leads the previous text in the
// <|startofprev|> prompt; the token ids and segments frozen by
// scripts/gen/whisper-prompt-reference in shared/fixtures/whisper/prompted.json.
import Foundation
import XCTest
@testable import IBWhisper

final class InitialPromptTests: XCTestCase {
    func testPromptedTokensMatchFasterWhisper() throws {
        let model = try WhisperTestModel.load()
        let data = try Data(contentsOf: URL(fileURLWithPath: ParityTests.fixtures + "/prompted.json"))
        let reference = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        var options = TranscribeOptions()
        options.initialPrompt = reference["initial_prompt"] as? String
        XCTAssertNotNil(options.initialPrompt)
        let transcriber = Transcriber(model: model, options: options)
        let files = reference["files"] as! [[String: Any]]
        XCTAssertEqual(files.count, 4)
        for f in files {
            let file = f["file"] as! String
            let segments = f["segments"] as! [[String: Any]]
            let got = try transcriber.transcribe(samples: try ParityTests.samples(file))
            XCTAssertEqual(got.map(\.tokens), segments.map { $0["tokens"] as! [Int] }, file)
            XCTAssertEqual(got.map(\.text), segments.map { $0["text"] as! String }, file)
        }
    }

    func testNoPromptAndABlankPromptAreTheSame() throws {
        let model = try WhisperTestModel.load()
        var blank = TranscribeOptions()
        blank.initialPrompt = "  \n"
        let samples = try ParityTests.samples("audio/synthetic-01.wav")
        XCTAssertEqual(try Transcriber(model: model, options: blank).transcribe(samples: samples),
                       try Transcriber(model: model).transcribe(samples: samples))
    }
}
