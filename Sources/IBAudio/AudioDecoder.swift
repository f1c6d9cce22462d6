// Any audio file as 16 kHz mono Float samples, decoded by a spawned `ffmpeg`
// (`-map a:0 -ac 1 -ar 16000 -f f32le -`) and read from its pipe in bounded
// blocks: memory stays one block however long the file is (10-hour books).
// ffmpeg failing, or stopping far short of the duration the container claims
// (a truncated file), is an error naming what ffmpeg said.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

public final class AudioDecoder {
    public static let sampleRate = 16_000
    /// ffmpeg writing nothing for this long is killed (a file that makes it hang).
    static let stallSeconds = 60.0

    private let process: Subprocess
    private var pending: [UInt8] = []
    private var finished = false
    /// Samples handed out so far.
    public private(set) var samplesRead = 0
    /// The duration the container claims, when known: ending far short of it is a truncated file.
    public var expectedDuration: Double?

    /// Starts ffmpeg on `path`; `demuxer` as for AudioProbe.probe.
    public init(path: String, demuxer: String? = nil) throws(AudioError) {
        let forced = demuxer.map { ["-f", $0] } ?? []
        process = try AudioTool.start(["ffmpeg", "-nostdin", "-hide_banner", "-v", "error"] + forced
                                      + ["-i", "file:" + path, "-map", "a:0", "-ac", "1", "-ar", String(AudioDecoder.sampleRate),
                                         "-f", "f32le", "-"],
                                      stallSeconds: AudioDecoder.stallSeconds)
    }

    /// Seconds decoded so far.
    public var secondsRead: Double { Double(samplesRead) / Double(AudioDecoder.sampleRate) }

    /// Up to `maxSamples` samples (fewer only at the end); nil at the end.
    public func read(maxSamples: Int) throws(AudioError) -> [Float]? {
        precondition(maxSamples > 0)
        if finished { return nil }
        let wanted = maxSamples * 4
        while pending.count < wanted {
            let n: Int
            do { n = try process.readStdout(into: &pending, upTo: wanted - pending.count) } catch { throw AudioError(error) }
            if n == 0 { break }
        }
        let usable = min(pending.count, wanted) & ~3
        if usable == 0 {
            try finish()
            return nil
        }
        var samples = [Float](repeating: 0, count: usable / 4)
        samples.withUnsafeMutableBytes { dst in pending.withUnsafeBytes { src in dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<usable])) } }
        pending.removeFirst(usable)
        for i in samples.indices where !samples[i].isFinite { samples[i] = 0 }
        samplesRead += samples.count
        return samples
    }

    /// Stops ffmpeg early (the caller gave up); safe to call more than once.
    public func cancel() { process.terminate(); finished = true }

    private func finish() throws(AudioError) {
        finished = true
        let status = process.wait()
        if status != 0 {
            throw AudioError("cannot decode the audio (ffmpeg: \(process.lastErrorLine ?? "exit status \(status)"))")
        }
        if samplesRead == 0 { throw AudioError("no audio in the file (it decodes to nothing)") }
        if let expected = expectedDuration, expected > 10, secondsRead < expected * 0.5 {
            throw AudioError("truncated: the file claims \(Self.clock(expected)) of audio but only \(Self.clock(secondsRead)) decodes"
                             + (process.lastErrorLine.map { " (ffmpeg: \($0))" } ?? ""))
        }
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600)h\(String(format2(s / 60 % 60)))m" : "\(s / 60)m\(String(format2(s % 60)))s"
    }
    static func format2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
