// Audio book pages from transcribed segments: about a minute each, cut at the
// longest pause near the minute, a chapter always starting a page, clock labels;
// and audio containers recognised by their magic bytes.
import XCTest
import IBCore
import IBAudio
@testable import IBParse

final class AudioPaginationTests: XCTestCase {
    /// Segments of `length` seconds with `gap` between them, texts "s0", "s1"...
    func speech(count: Int, length: Double, gap: Double, from start: Double = 0) -> [SpeechPiece] {
        (0..<count).map { i in
            let s = start + Double(i) * (length + gap)
            return SpeechPiece(start: s, end: s + length, text: " s\(i) ")
        }
    }

    func testAboutAMinuteEachAndEverySegmentOnce() {
        let segments = speech(count: 200, length: 5, gap: 0.2)   // ~17 minutes
        let pages = AudioPagination.pages(segments, chapters: [])
        XCTAssertEqual(pages.map(\.text).joined(separator: " "), segments.map { $0.text.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))
        for page in pages.dropLast() {
            XCTAssertGreaterThanOrEqual(page.end - page.start, 40)
            XCTAssertLessThanOrEqual(page.end - page.start, 90)
        }
        XCTAssertEqual(Double(pages.count), 17 * 60 / 60, accuracy: 3)
        XCTAssertTrue(pages.allSatisfy { $0.chapter == nil && !$0.startsChapter })
        for (a, b) in zip(pages, pages.dropFirst()) { XCTAssertLessThanOrEqual(a.end, b.start) }
    }

    func testCutsAtTheLongestPauseNearTheMinute() {
        // 4 s segments with 0.1 s gaps, except one 1.5 s pause after the segment ending near 52 s.
        var segments = speech(count: 40, length: 4, gap: 0.1)
        let pauseAfter = 12   // segment 12 ends at 12*4.1+4 = 53.2 s
        for i in (pauseAfter + 1)..<segments.count { segments[i].start += 1.4; segments[i].end += 1.4 }
        let pages = AudioPagination.pages(segments, chapters: [])
        XCTAssertEqual(pages[0].end, segments[pauseAfter].end)
        XCTAssertEqual(pages[1].start, segments[pauseAfter + 1].start)
    }

    func testAChapterStartsAPageAndCarriesItsIndex() {
        let segments = speech(count: 45, length: 3, gap: 0.5)   // 0 ... 157 s
        let chapters = [AudioChapter(title: "One", start: 0, end: 20), AudioChapter(title: "Two", start: 20, end: 140),
                        AudioChapter(title: "Three", start: 140, end: 200)]
        let pages = AudioPagination.pages(segments, chapters: chapters)
        XCTAssertEqual(pages.map(\.chapter), [0, 1, 1, 2])
        XCTAssertEqual(pages.map(\.startsChapter), [true, true, false, true])
        XCTAssertEqual(pages[0].end, 20.5)      // the segment 17.5-20.5 is mostly in chapter One
        XCTAssertEqual(pages[1].start, 21)
        XCTAssertEqual(pages[3].start, 140)
    }

    func testAShortRestJoinsThePageBeforeAndEmptyTextIsDropped() {
        var segments = speech(count: 14, length: 5, gap: 0)   // 70 s: one page (< 90 s)
        XCTAssertEqual(AudioPagination.pages(segments, chapters: []).count, 1)
        segments = speech(count: 20, length: 5, gap: 0)       // 100 s: 60 + 40, not 90 + 10
        let pages = AudioPagination.pages(segments, chapters: [])
        XCTAssertEqual(pages.count, 2)
        XCTAssertGreaterThan(pages[1].end - pages[1].start, 20)
        segments[3].text = "   "
        XCTAssertFalse(AudioPagination.pages(segments, chapters: []).map(\.text).joined().contains("s3"))
        XCTAssertEqual(AudioPagination.pages([], chapters: []), [])
    }

    func testAOneSegmentLongerThanAPageIsOnePage() {
        let pages = AudioPagination.pages([SpeechPiece(start: 0, end: 300, text: "long")], chapters: [])
        XCTAssertEqual(pages, [AudioPage(start: 0, end: 300, text: "long", chapter: nil, startsChapter: false)])
    }

    func testClockLabels() {
        XCTAssertEqual(MediaTime.label(0), "0:00")
        XCTAssertEqual(MediaTime.label(65.9), "1:05")
        XCTAssertEqual(MediaTime.label(3599), "59:59")
        XCTAssertEqual(MediaTime.label(3750), "1:02:30")
        XCTAssertEqual(MediaTime.label(36000), "10:00:00")
        XCTAssertEqual(MediaTime.label(-5), "0:00")
        XCTAssertEqual(MediaTime.seconds("1:02:30"), 3750)
        XCTAssertEqual(MediaTime.seconds("4:05"), 245)
        XCTAssertNil(MediaTime.seconds("4:75"))
        XCTAssertNil(MediaTime.seconds("x"))
        XCTAssertEqual(MediaTime.interpolate(start: 60, end: 120, offset: 50, length: 100), 90)
    }

    func testAudioMagicBytes() throws {
        func bytes(_ s: String, pad: Int = 16) -> [UInt8] { Array(s.utf8) + [UInt8](repeating: 0, count: pad) }
        XCTAssertEqual(AudioFormat.detect(bytes("RIFF\u{24}\0\0\0WAVEfmt ")), .wav)
        XCTAssertEqual(AudioFormat.detect(bytes("RIFF\u{24}\0\0\0AVI LIST")), nil)
        XCTAssertEqual(AudioFormat.detect(bytes("fLaC\0\0\0\u{22}")), .flac)
        XCTAssertEqual(AudioFormat.detect(bytes("OggS\0\u{2}")), .ogg)
        XCTAssertEqual(AudioFormat.detect(bytes("\0\0\0\u{20}ftypM4B \0\0\0\0")), .mp4)
        XCTAssertEqual(AudioFormat.detect(bytes("\0\0\0\u{20}ftypM4A \0\0\0\0")), .mp4)
        XCTAssertEqual(AudioFormat.detect(bytes("\0\0\0\u{20}ftypavif\0\0\0\0")), nil)   // an image, not audio
        XCTAssertEqual(AudioFormat.detect(bytes("ID3\u{4}\0\0\0\0\0\0")), .mp3)
        XCTAssertEqual(AudioFormat.detect([0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 12)), .mp3)  // MPEG-1 layer III 128k 44.1k
        XCTAssertEqual(AudioFormat.detect([0xFF, 0xFB, 0xF0, 0x64]), nil)   // bitrate index 15 ("bad")
        XCTAssertEqual(AudioFormat.detect([0xFF, 0xD8, 0xFF, 0xE0]), nil)   // JPEG
        XCTAssertEqual(AudioFormat.detect([0xFF, 0xFE, 0x48, 0x00]), nil)   // UTF-16 LE "H" (would be MPEG layer I)
        XCTAssertEqual(AudioFormat.detect([0xFF, 0xFD, 0x90, 0x64]), .mp3)  // MPEG-1 layer II
        XCTAssertEqual(AudioFormat.detect(bytes("Call me Ishmael.")), nil)
        // Format detection hands audio to the audio path, before the binary-data refusal.
        let wav = InputBytes(bytes("RIFF\u{24}\0\0\0WAVEfmt ", pad: 64))
        XCTAssertEqual(try FormatDetection.detect(wav, extensionHint: "txt"), .audio)
        XCTAssertEqual(BookFormat(name: "m4b"), .audio)
    }
}
