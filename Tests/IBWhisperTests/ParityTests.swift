// Parity with faster-whisper (fp32, greedy, same weights): the token ids and
// segments frozen by scripts/gen/whisper-reference in
// shared/fixtures/whisper/reference.json, on five LibriVox clips and 20 lines
// spoken by espeak-ng; the word error rate on the LibriVox clips; the same
// tokens on the AVX2 kernels; the same tokens when audio arrives in blocks.
import CKernels
import Foundation
import XCTest
@testable import IBWhisper

final class ParityTests: XCTestCase {
    struct ReferenceSegment { let start: Double; let end: Double; let text: String; let tokens: [Int] }
    struct ReferenceFile { let file: String; let transcript: String; let segments: [ReferenceSegment] }

    static let fixtures: String = {
        var path = #filePath
        for _ in 0..<3 { path = (path as NSString).deletingLastPathComponent }
        return path + "/shared/fixtures/whisper"
    }()

    static func reference() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/reference.json"))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    static func referenceFiles() throws -> [ReferenceFile] {
        (try reference()["files"] as! [[String: Any]]).map { f in
            ReferenceFile(file: f["file"] as! String, transcript: f["transcript"] as! String,
                          segments: (f["segments"] as! [[String: Any]]).map {
                              ReferenceSegment(start: ($0["start"] as! NSNumber).doubleValue, end: ($0["end"] as! NSNumber).doubleValue,
                                               text: $0["text"] as! String, tokens: $0["tokens"] as! [Int])
                          })
        }
    }

    static func samples(_ file: String) throws -> [Float] { try WaveFile(path: fixtures + "/" + file).readAll() }

    func testGreedyTokensAndSegmentsMatchFasterWhisper() throws {
        let model = try WhisperTestModel.load()
        let transcriber = Transcriber(model: model)
        let files = try Self.referenceFiles()
        XCTAssertEqual(files.count, 25)
        var identical = 0
        for file in files {
            let got = try transcriber.transcribe(samples: try Self.samples(file.file))
            let same = got.map(\.tokens) == file.segments.map(\.tokens) && got.map(\.text) == file.segments.map(\.text)
                && zip(got, file.segments).allSatisfy { abs($0.start - $1.start) < 1e-6 && abs($0.end - $1.end) < 1e-6 }
            XCTAssertTrue(same, "\(file.file): got \(got.map(\.text)) \(got.map(\.tokens)), reference \(file.segments.map(\.text)) \(file.segments.map(\.tokens))")
            if same { identical += 1 }
        }
        print("whisper parity: \(identical)/\(files.count) files with identical greedy tokens")
    }

    func testWordErrorRateOnLibriVoxIsAtMostEightPercent() throws {
        let model = try WhisperTestModel.load()
        let transcriber = Transcriber(model: model)
        var errors = 0, words = 0
        for file in try Self.referenceFiles() where file.file.contains("librivox") {
            let text = try transcriber.transcribe(samples: try Self.samples(file.file)).map(\.text).joined(separator: " ")
            let reference = WordErrorRate.normalize(file.transcript)
            errors += WordErrorRate.editDistance(reference, WordErrorRate.normalize(text))
            words += reference.count
        }
        let wer = Double(errors) / Double(words)
        print("whisper LibriVox WER: \(errors)/\(words) = \(wer)")
        XCTAssertGreaterThan(words, 60)
        XCTAssertLessThanOrEqual(wer, 0.08)
    }

    func testAVX2KernelsGiveTheSameTokens() throws {
        let model = try WhisperTestModel.load()
        defer { ib_kernels_select(1) }
        XCTAssertEqual(ib_kernels_select(0), 0)
        XCTAssertEqual(String(cString: ib_kernels_isa()), "avx2")
        let transcriber = Transcriber(model: model)
        for file in try Self.referenceFiles().filter({ $0.file.hasSuffix("0870.wav") || $0.file.hasSuffix("synthetic-04.wav") }) {
            let got = try transcriber.transcribe(samples: try Self.samples(file.file))
            XCTAssertEqual(got.map(\.tokens), file.segments.map(\.tokens), file.file)
        }
    }

    /// --compute int8 gives up exact parity for speed: the words must stay as good (LibriVox WER <= 0.08,
    /// every file within a few words of the reference or no further than it from what was said), and
    /// the AVX2 path must give the VNNI path's words.
    func testInt8ComputeStaysCloseToTheReference() throws {
        let model = try WhisperTestModel.load()
        var options = TranscribeOptions()
        options.compute = .int8
        let transcriber = Transcriber(model: model, options: options)
        var errors = 0, words = 0, identical = 0
        let files = try Self.referenceFiles()
        var tokens: [String: [[Int]]] = [:]
        for file in files {
            let got = try transcriber.transcribe(samples: try Self.samples(file.file))
            tokens[file.file] = got.map(\.tokens)
            if got.map(\.tokens) == file.segments.map(\.tokens) { identical += 1 }
            let reference = WordErrorRate.normalize(file.segments.map(\.text).joined(separator: " "))
            let heard = WordErrorRate.normalize(got.map(\.text).joined(separator: " "))
            let distance = WordErrorRate.editDistance(reference, heard)
            // Within a few words of the fp32 reference, or no further from what was said than the
            // reference itself is: where whisper-tiny mishears even in fp32 (synthetic-02's "the way
            // they mess in will look very knowable"), sums taken in another order (AVX2 alone, as on
            // a Zen 3) may send greedy decoding down another wrong path, no worse.
            let said = WordErrorRate.normalize(file.transcript)
            let asGood = WordErrorRate.editDistance(said, heard) <= WordErrorRate.editDistance(said, reference)
            XCTAssertTrue(Double(distance) <= max(2, 0.1 * Double(reference.count)) || asGood,
                          "\(file.file): int8 text \(got.map(\.text)), \(distance) words from the reference")
            if file.file.contains("librivox") {
                errors += WordErrorRate.editDistance(said, heard)
                words += said.count
            }
        }
        print("whisper int8: \(identical)/\(files.count) files with the fp32 reference's tokens; LibriVox WER \(errors)/\(words)")
        options.beamSize = 5                      // a beam's rows go through the int8 output projection
        let beam = Transcriber(model: model, options: options)
        for file in files.filter({ $0.file.contains("librivox") }) {
            let text = try beam.transcribe(samples: try Self.samples(file.file)).map(\.text).joined(separator: " ")
            let transcript = WordErrorRate.normalize(file.transcript)
            XCTAssertLessThanOrEqual(WordErrorRate.editDistance(transcript, WordErrorRate.normalize(text)), 3, "int8 beam 5, \(file.file): \(text)")
        }
        XCTAssertLessThanOrEqual(Double(errors) / Double(max(words, 1)), 0.08)
        defer { ib_kernels_select(1) }
        XCTAssertEqual(ib_kernels_select(0), 0)
        let narrow = Transcriber(model: model, options: options)
        for file in files.filter({ $0.file.hasSuffix("0870.wav") || $0.file.hasSuffix("synthetic-04.wav") }) {
            // The int8 products are the same integers on both paths (KernelTests); attention and the
            // norms sum in another order, which may move a timestamp, not the words.
            let got = try narrow.transcribe(samples: try Self.samples(file.file))
            let wide = WordErrorRate.normalize(tokens[file.file]!.map { model.tokenizer.decode($0) }.joined(separator: " "))
            XCTAssertLessThanOrEqual(WordErrorRate.editDistance(wide, WordErrorRate.normalize(got.map(\.text).joined(separator: " "))), 1,
                                     "AVX2 int8: \(file.file)")
        }
    }

    func testAudioInSmallBlocksGivesTheSameSegments() throws {
        let model = try WhisperTestModel.load()
        let transcriber = Transcriber(model: model)
        let file = try Self.referenceFiles().first { $0.file.hasSuffix("0920.wav") }!
        let audio = try WaveFile(path: Self.fixtures + "/" + file.file)
        var got: [SpokenSegment] = []
        try transcriber.transcribe(next: { try audio.read(maxSamples: 1234) }, emit: { got.append($0) })
        XCTAssertEqual(got.map(\.tokens), file.segments.map(\.tokens))
    }

    func testLogMelMatchesTheReferenceFrontEnd() throws {
        let mel = try Self.reference()["mel"] as! [String: Any]
        let expected = (mel["values"] as! [NSNumber]).map(\.floatValue)
        let frames = mel["frames"] as! Int, bins = mel["bins"] as! Int
        let got = LogMel(melBins: bins).features(samples: try Self.samples(mel["file"] as! String))
        XCTAssertEqual(got.count, frames * bins)
        XCTAssertEqual(expected.count, frames * bins)
        var worst: Float = 0
        for (a, b) in zip(got, expected) { worst = max(worst, abs(a - b)) }
        print("whisper log-mel: largest difference \(worst) over \(frames) frames")
        XCTAssertLessThan(worst, 2e-3)
    }
}

/// Word error rate: words lower-cased without punctuation ("mr" read as "mister",
/// hyphens as spaces), then the Levenshtein distance over words.
enum WordErrorRate {
    static func normalize(_ text: String) -> [String] {
        let spaced = text.lowercased().map { $0.isLetter || $0.isNumber || $0 == "'" ? $0 : " " }
        return String(spaced).split(separator: " ").map { $0 == "mr" ? "mister" : String($0) }
    }

    static func editDistance(_ a: [String], _ b: [String]) -> Int {
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
