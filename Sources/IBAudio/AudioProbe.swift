// What an audio file holds, from `ffprobe -print_format json -show_format
// -show_streams -show_chapters`: duration, channels, chapters (M4B chapters,
// ID3 CHAP frames) and title/artist tags. The file is refused here, before any
// decoding, when it has no audio stream, claims an absurd channel count or
// duration, or makes ffprobe fail or hang.
import IBCore

public struct AudioInfo: Sendable {
    public var duration: Double
    public var channels: Int
    public var title: String?
    public var artist: String?
    public var chapters: [AudioChapter]
    /// The codec of the first audio stream ("mp3", "aac", "opus", "flac", "pcm_s16le").
    public var codec: String?
    public init(duration: Double, channels: Int, title: String? = nil, artist: String? = nil,
                chapters: [AudioChapter] = [], codec: String? = nil) {
        self.duration = duration; self.channels = channels; self.title = title; self.artist = artist
        self.chapters = chapters; self.codec = codec
    }
}

public struct AudioChapter: Sendable, Equatable {
    public var title: String
    public var start: Double
    public var end: Double
    public init(title: String, start: Double, end: Double) { self.title = title; self.start = start; self.end = end }
}

public enum AudioProbe {
    /// More channels than this is refused (7.1 is 8; a header claiming 100 is hostile or broken).
    public static let maxChannels = 8
    /// Longer than this (a week) is refused: a header's claim, not audio anyone recorded.
    public static let maxDuration = 7 * 24 * 3600.0
    /// ffprobe's JSON above this is refused (a container listing millions of chapters).
    static let maxReportBytes = 16 << 20
    /// At most this many chapters are kept.
    public static let maxChapters = 10_000
    /// ffprobe writing nothing for this long is killed.
    static let stallSeconds = 30.0

    /// Probes `path`; `demuxer` (an ffmpeg format name: mp3, mov, ogg, flac, wav) stops ffprobe
    /// from sniffing the file as another format.
    public static func probe(path: String, demuxer: String? = nil) throws(AudioError) -> AudioInfo {
        let forced = demuxer.map { ["-f", $0] } ?? []
        let process = try AudioTool.start(["ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams",
                                           "-show_chapters"] + forced + ["-i", "file:" + path], stallSeconds: stallSeconds)
        let report: [UInt8]
        do { report = try process.readAllStdout(limit: maxReportBytes) } catch { throw AudioError(error) }
        let status = process.wait()
        if status != 0 {
            throw AudioError("not readable audio (ffprobe: \(process.lastErrorLine ?? "exit status \(status)"))")
        }
        return try parse(report)
    }

    /// Reads ffprobe's JSON report into what ib needs, refusing what cannot be decoded sensibly.
    public static func parse(_ report: [UInt8]) throws(AudioError) -> AudioInfo {
        let json: JSON
        do { json = try JSON.parse(report) } catch { throw AudioError("ffprobe's report is not JSON (\(error))") }
        guard let root = json.objectValue else { throw AudioError("ffprobe's report is not a JSON object") }
        let streams = root["streams"]?.arrayValue ?? []
        guard let audio = streams.first(where: { $0.objectValue?["codec_type"]?.stringValue == "audio" })?.objectValue else {
            throw AudioError("not audio (no audio stream)")
        }
        let channels = number(audio["channels"]).map { Int($0) } ?? 0
        if channels < 1 { throw AudioError("the audio stream has no channels") }
        if channels > maxChannels {
            throw AudioError("the audio claims \(channels) channels (at most \(maxChannels)): a broken or hostile file")
        }
        let format = root["format"]?.objectValue
        let duration = number(format?["duration"]) ?? number(audio["duration"]) ?? 0
        if !duration.isFinite || duration < 0 { throw AudioError("the audio claims an impossible duration") }
        if duration > maxDuration {
            throw AudioError("the audio claims to last \(Int(duration / 3600)) hours (at most \(Int(maxDuration / 3600))): a broken or hostile file")
        }
        let tags = mergedTags(format?["tags"]?.objectValue, audio["tags"]?.objectValue)
        let title = tags["title"] ?? tags["album"]
        let artist = tags["artist"] ?? tags["album_artist"] ?? tags["author"] ?? tags["composer"]
        return AudioInfo(duration: duration, channels: channels, title: title, artist: artist,
                         chapters: chapters(root["chapters"]?.arrayValue ?? [], duration: duration),
                         codec: audio["codec_name"]?.stringValue)
    }

    /// Chapters in time order, clamped to the audio, without empty or overlapping ones;
    /// an untitled chapter is "Chapter N".
    static func chapters(_ items: [JSON], duration: Double) -> [AudioChapter] {
        var out: [AudioChapter] = []
        for item in items.prefix(maxChapters) {
            guard let o = item.objectValue, let start = number(o["start_time"]), let end = number(o["end_time"]),
                  start.isFinite, end.isFinite else { continue }
            let title = lowercasedKeys(o["tags"]?.objectValue)["title"]?.collapsingSpaces ?? ""
            out.append(AudioChapter(title: title, start: max(0, start), end: end))
        }
        out.sort { $0.start < $1.start }
        var kept: [AudioChapter] = []
        for var c in out {
            if duration > 0 { c.end = min(c.end, duration) }
            if let last = kept.last, c.start < last.end { c.start = last.end }
            guard c.end > c.start else { continue }
            kept.append(c)
        }
        for i in kept.indices where kept[i].title.isEmpty { kept[i].title = "Chapter \(i + 1)" }
        return kept
    }

    /// ffprobe writes numbers as strings ("12.345000") or numbers.
    static func number(_ value: JSON?) -> Double? {
        if let d = value?.doubleValue { return d }
        if let s = value?.stringValue { return Double(s) }
        return nil
    }

    static func lowercasedKeys(_ tags: JSONObject?) -> [String: String] {
        var out: [String: String] = [:]
        guard let tags else { return out }
        for (key, value) in tags.entries {
            if let s = value.stringValue?.collapsingSpaces, !s.isEmpty, out[key.lowercased()] == nil { out[key.lowercased()] = s }
        }
        return out
    }

    /// The container's tags first, then the stream's (Ogg keeps them on the stream).
    static func mergedTags(_ format: JSONObject?, _ stream: JSONObject?) -> [String: String] {
        lowercasedKeys(format).merging(lowercasedKeys(stream)) { first, _ in first }
    }
}

extension String {
    var collapsingSpaces: String {
        split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
