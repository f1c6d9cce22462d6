// Long silences are not handed to the recogniser: Whisper spends as long on
// a minute of silence as on a minute of speech, and may hear words in it. The
// audio is read in one-second frames; a frame whose RMS is under -60 dBFS is
// silent. Ten silent seconds in a row end a stretch of speech (the recogniser
// sees its end), the silence after them is skipped, and the next stretch
// starts at the next sound, with its time offset. An hour of silence costs
// its decoding only, and is "no speech". A chapter's start also ends a
// stretch, so no transcribed segment runs from one chapter into the next.
final class SpeechStretches {
    static let frameSamples = 16_000
    /// RMS below this (-60 dBFS) is silence.
    static let silentRMS: Float = 0.001
    /// Seconds of silence that end a stretch.
    static let silentFramesToEnd = 10
    /// Frames handed out per read (30 s, one Whisper window).
    static let framesPerRead = 30

    private let source: () throws -> [Float]?
    private var buffer: [Float] = []
    private var bufferStart = 0
    private var sourceDone = false
    /// Samples consumed (handed out or skipped) so far.
    private(set) var position = 0
    private var silentRun = 0
    private var stretchEnded = true
    /// Sample positions where a stretch must end (chapter starts), ascending.
    private var boundaries: [Int]

    /// `source` gives blocks of 16 kHz samples, nil at the end; `boundaries` are times (seconds)
    /// that always end a stretch.
    init(source: @escaping () throws -> [Float]?, boundaries: [Double] = []) {
        self.source = source
        self.boundaries = boundaries.map { Int(($0 * Double(Self.frameSamples)).rounded()) }.filter { $0 > 0 }.sorted()
    }

    /// Skips silence; returns the time (seconds) where the next stretch starts, or nil at the end.
    func nextStretch() throws -> Double? {
        while let frame = try peekFrame() {
            if !Self.isSilent(frame) {
                stretchEnded = false
                silentRun = 0
                return Double(position) / Double(Self.frameSamples)
            }
            consumeFrame(frame.count)
        }
        return nil
    }

    /// The current stretch's next samples; nil when it has ended (ten silent seconds, or the audio's end).
    func read() throws -> [Float]? {
        guard !stretchEnded else { return nil }
        var out: [Float] = []
        for _ in 0..<Self.framesPerRead {
            guard let frame = try peekFrame() else { stretchEnded = true; break }
            out.append(contentsOf: frame)
            consumeFrame(frame.count)
            silentRun = Self.isSilent(frame) ? silentRun + 1 : 0
            if silentRun >= Self.silentFramesToEnd || atBoundary { stretchEnded = true; break }
        }
        return out.isEmpty ? nil : out
    }

    static func isSilent(_ frame: ArraySlice<Float>) -> Bool {
        var sum: Float = 0
        for x in frame { sum += x * x }
        return (sum / Float(max(frame.count, 1))).squareRoot() < silentRMS
    }

    private func peekFrame() throws -> ArraySlice<Float>? {
        while buffer.count - bufferStart < Self.frameSamples && !sourceDone {
            if let block = try source() {
                if bufferStart > 0 { buffer.removeFirst(bufferStart); bufferStart = 0 }
                buffer.append(contentsOf: block)
            } else {
                sourceDone = true
            }
        }
        let available = buffer.count - bufferStart
        guard available > 0 else { return nil }
        // A frame stops at the next boundary.
        while let next = boundaries.first, next <= position { boundaries.removeFirst() }
        let toBoundary = boundaries.first.map { $0 - position } ?? Int.max
        return buffer[bufferStart..<bufferStart + min(available, Self.frameSamples, toBoundary)]
    }

    /// Whether the position is a boundary (the frame just consumed ended at one).
    private var atBoundary: Bool { boundaries.first == position }

    private func consumeFrame(_ count: Int) {
        bufferStart += count
        position += count
    }
}
