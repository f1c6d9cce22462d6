// The decoder and the probe against real ffmpeg and ffprobe on files ffmpeg
// makes here (skipped when ffmpeg is not installed): 16 kHz mono samples in
// bounded blocks, chapters from an FFMETADATA file, and each bad file refused
// with its reason.
import XCTest
import Foundation
@testable import IBAudio
#if canImport(Glibc)
import Glibc
#endif

final class AudioDecoderTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        guard AudioTool.find("ffmpeg") != nil, AudioTool.find("ffprobe") != nil else {
            throw XCTSkip("ffmpeg is not installed (scripts/install-deps)")
        }
        var template = Array("/tmp/ib-audio-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw XCTSkip("no temporary folder") }
        dir = String(cString: made)
    }

    override func tearDown() {
        if !dir.isEmpty { _ = system("rm -rf '\(dir)'") }
    }

    /// Runs ffmpeg to make a test file; fails the test when it cannot.
    func ffmpeg(_ args: String) {
        XCTAssertEqual(system("ffmpeg -nostdin -v error -y \(args) </dev/null"), 0, "ffmpeg \(args)")
    }

    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let path = dir + "/" + name
        let f = fopen(path, "wb")!
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
        return path
    }

    func testDecodesStereoMP3ToMonoSixteenKilohertzInBlocks() throws {
        let path = dir + "/tone.mp3"
        ffmpeg("-f lavfi -i sine=frequency=440:sample_rate=44100:duration=3 -ac 2 '\(path)'")
        let info = try AudioProbe.probe(path: path)
        XCTAssertEqual(info.channels, 2)
        XCTAssertEqual(info.codec, "mp3")
        XCTAssertEqual(info.duration, 3, accuracy: 0.1)
        let decoder = try AudioDecoder(path: path)
        var total = 0, peak: Float = 0, blocks = 0
        while let block = try decoder.read(maxSamples: 4000) {
            XCTAssertLessThanOrEqual(block.count, 4000)
            total += block.count; blocks += 1
            peak = max(peak, block.map(abs).max() ?? 0)
        }
        XCTAssertEqual(Double(total) / 16000, 3, accuracy: 0.1)
        XCTAssertGreaterThan(blocks, 10)
        XCTAssertGreaterThan(peak, 0.1)  // lavfi's sine is 1/8 of full scale
        XCTAssertNil(try decoder.read(maxSamples: 10))
    }

    func testChaptersAndTagsOfAnM4B() throws {
        let meta = write("chapters.txt", Array("""
        ;FFMETADATA1
        title=Three Parts
        artist=A. Reader
        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=2000
        title=The Start
        [CHAPTER]
        TIMEBASE=1/1000
        START=2000
        END=4000
        title=The Middle

        """.utf8))
        let path = dir + "/book.m4b"
        ffmpeg("-f lavfi -i sine=frequency=300:duration=4 -i '\(meta)' -map_metadata 1 -map_chapters 1 -c:a aac -f mp4 '\(path)'")
        let info = try AudioProbe.probe(path: path)
        XCTAssertEqual(info.title, "Three Parts")
        XCTAssertEqual(info.artist, "A. Reader")
        XCTAssertEqual(info.chapters.map(\.title), ["The Start", "The Middle"])
        XCTAssertEqual(info.chapters[1].start, 2, accuracy: 0.05)
    }

    func testBadFilesAreRefusedWithTheirReason() throws {
        func probeError(_ path: String) -> String {
            do { _ = try AudioProbe.probe(path: path); return "accepted" } catch { return error.description }
        }
        // Not audio: bytes of nothing ffprobe knows.
        let noise = probeError(write("noise.mp3", (0..<4096).map { UInt8(truncatingIfNeeded: ($0 &* 7919) >> 3) }))
        XCTAssertTrue(noise.contains("not readable audio") || noise.contains("not audio"), noise)
        // An M4A cut after its header: no moov atom.
        let whole = dir + "/whole.m4a"
        ffmpeg("-f lavfi -i sine=duration=5 -c:a aac -movflags +faststart '\(whole)'")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: whole)).prefix(64))
        let cut = probeError(write("cut.m4a", bytes))
        XCTAssertTrue(cut.contains("not readable audio") || cut.contains("no audio stream"), cut)
        // A WAV header claiming 100 channels.
        XCTAssertTrue(probeError(write("wide.wav", wavHeader(channels: 100, dataBytes: 3200) + [UInt8](repeating: 0, count: 3200)))
                        .contains("100 channels"))
    }

    func testATruncatedM4AStopsShortOfItsClaim() throws {
        // Index first (faststart), then cut: the index claims 60 s, the data holds about 15.
        let whole = dir + "/whole.m4a"
        ffmpeg("-f lavfi -i sine=duration=60 -c:a aac -b:a 64k -movflags +faststart '\(whole)'")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let path = write("short.m4a", Array(bytes.prefix(bytes.count / 4)))
        let info = try AudioProbe.probe(path: path)
        XCTAssertEqual(info.duration, 60, accuracy: 1)
        let decoder = try AudioDecoder(path: path)
        decoder.expectedDuration = info.duration
        XCTAssertThrowsError(try { while try decoder.read(maxSamples: 16000) != nil {} }()) { error in
            XCTAssertTrue("\(error)".contains("truncated"), "\(error)")
        }
    }

    func testMissingFFmpegSaysHowToInstallIt() {
        let savedPath = String(cString: getenv("PATH"))
        setenv("PATH", dir, 1)
        unsetenv("IB_FFMPEG_DIR")
        defer { setenv("PATH", savedPath, 1) }
        XCTAssertThrowsError(try AudioDecoder(path: "/dev/null")) { error in
            XCTAssertTrue("\(error)".contains("install-deps"), "\(error)")
        }
    }

    /// A canonical 16-bit PCM WAV header at 16 kHz.
    func wavHeader(channels: Int, dataBytes: Int) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        return Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(channels)
            + le32(16000) + le32(16000 * 2 * channels) + le16(2 * channels) + le16(16) + Array("data".utf8) + le32(dataBytes)
    }
}
