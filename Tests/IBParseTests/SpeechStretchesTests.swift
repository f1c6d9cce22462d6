// Long silences split the audio into stretches handed to the recogniser one
// by one, each with its start time; silence alone is no stretch at all.
import XCTest
@testable import IBParse

final class SpeechStretchesTests: XCTestCase {
    /// Blocks of `seconds` seconds: a 440 Hz tone (loud) or zeros.
    func blocks(_ parts: [(seconds: Int, loud: Bool)], blockSamples: Int = 7_000) -> () throws -> [Float]? {
        var samples: [Float] = []
        for part in parts {
            for i in 0..<(part.seconds * 16_000) { samples.append(part.loud ? 0.3 * sin(Float(i) * 2 * .pi * 440 / 16_000) : 0) }
        }
        var at = 0
        return {
            guard at < samples.count else { return nil }
            defer { at += blockSamples }
            return Array(samples[at..<min(at + blockSamples, samples.count)])
        }
    }

    func stretches(_ s: SpeechStretches) throws -> [(start: Double, seconds: Double)] {
        var out: [(Double, Double)] = []
        while let start = try s.nextStretch() {
            var n = 0
            while let block = try s.read() { n += block.count; XCTAssertLessThanOrEqual(block.count, 30 * 16_000) }
            out.append((start, Double(n) / 16_000))
        }
        return out
    }

    func testLongSilenceSplitsAndIsSkipped() throws {
        let s = SpeechStretches(source: blocks([(5, true), (40, false), (3, true), (4, false), (2, true)]))
        let found = try stretches(s)
        XCTAssertEqual(found.map(\.start), [0, 45])
        // The first stretch ends after ten silent seconds; the second holds the short pause to the end.
        XCTAssertEqual(found[0].seconds, 15)
        XCTAssertEqual(found[1].seconds, 9)
        XCTAssertEqual(s.position, 54 * 16_000)
    }

    func testAChapterStartEndsAStretch() throws {
        let s = SpeechStretches(source: blocks([(50, true)]), boundaries: [0, 12.5, 40])
        let found = try stretches(s)
        XCTAssertEqual(found.map(\.start), [0, 12.5, 40])
        XCTAssertEqual(found.map(\.seconds), [12.5, 27.5, 10])
    }

    func testSilenceAloneIsNoStretch() throws {
        XCTAssertTrue(try stretches(SpeechStretches(source: blocks([(120, false)]))).isEmpty)
        XCTAssertTrue(try stretches(SpeechStretches(source: { nil })).isEmpty)
    }

    func testQuietButAudibleSoundIsNotSilence() {
        let quiet = (0..<16_000).map { Float(0.003) * sin(Float($0)) }
        XCTAssertFalse(SpeechStretches.isSilent(quiet[...]))
        XCTAssertTrue(SpeechStretches.isSilent([Float](repeating: 0.0005, count: 16_000)[...]))
    }
}
