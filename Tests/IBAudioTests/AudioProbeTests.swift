// ffprobe's report read into AudioInfo: chapters ordered and clamped, tags
// from the container or the stream, and the refusals (no audio stream, 100
// channels, a week-long claim). Reports are what ffprobe 5 writes.
import XCTest
@testable import IBAudio

final class AudioProbeTests: XCTestCase {
    func report(_ body: String) -> [UInt8] { Array(body.utf8) }

    func testChaptersTagsAndDuration() throws {
        let info = try AudioProbe.parse(report("""
        {"streams":[{"index":0,"codec_name":"aac","codec_type":"audio","channels":2,"duration":"30.000000"}],
         "chapters":[{"id":1,"start_time":"10.000000","end_time":"20.000000","tags":{"title":"Two"}},
                     {"id":0,"start_time":"0.000000","end_time":"10.000000","tags":{"title":"  One  "}},
                     {"id":2,"start_time":"20.000000","end_time":"99.000000"}],
         "format":{"duration":"30.000000","tags":{"TITLE":"Persuasion","ARTIST":"Jane Austen"}}}
        """))
        XCTAssertEqual(info.duration, 30)
        XCTAssertEqual(info.channels, 2)
        XCTAssertEqual(info.codec, "aac")
        XCTAssertEqual(info.title, "Persuasion")
        XCTAssertEqual(info.artist, "Jane Austen")
        XCTAssertEqual(info.chapters, [AudioChapter(title: "One", start: 0, end: 10), AudioChapter(title: "Two", start: 10, end: 20),
                                       AudioChapter(title: "Chapter 3", start: 20, end: 30)])
    }

    func testOggTagsOnTheStreamAndOverlappingChapters() throws {
        let info = try AudioProbe.parse(report("""
        {"streams":[{"codec_type":"audio","codec_name":"opus","channels":1,"tags":{"title":"Emma","album_artist":"Austen"}}],
         "chapters":[{"start_time":0,"end_time":12},{"start_time":8,"end_time":20},{"start_time":20,"end_time":20}],
         "format":{"duration":"20.0"}}
        """))
        XCTAssertEqual(info.title, "Emma")
        XCTAssertEqual(info.artist, "Austen")
        XCTAssertEqual(info.chapters, [AudioChapter(title: "Chapter 1", start: 0, end: 12), AudioChapter(title: "Chapter 2", start: 12, end: 20)])
    }

    func testRefusals() {
        func message(_ body: String) -> String {
            do { _ = try AudioProbe.parse(report(body)); return "accepted" } catch { return error.description }
        }
        XCTAssertTrue(message(#"{"streams":[{"codec_type":"video"}],"format":{}}"#).contains("no audio stream"))
        XCTAssertTrue(message(#"{"streams":[{"codec_type":"audio","channels":100}],"format":{"duration":"5"}}"#).contains("100 channels"))
        XCTAssertTrue(message(#"{"streams":[{"codec_type":"audio","channels":1}],"format":{"duration":"9e9"}}"#).contains("hours"))
        XCTAssertTrue(message(#"{"streams":[{"codec_type":"audio","channels":0}],"format":{}}"#).contains("no channels"))
        XCTAssertTrue(message("not json").contains("not JSON"))
    }
}
