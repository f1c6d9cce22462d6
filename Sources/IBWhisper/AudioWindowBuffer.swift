// The samples of a stream that the current window still needs, and the
// log-mel features of any frames among them. Samples before the window are
// dropped as the window moves on, so memory stays that of about a minute.
import Foundation

struct AudioWindowBuffer {
    let frontEnd: LogMel
    let next: () throws -> [Float]?
    private var samples: [Float] = []
    private var firstSample = 0            // absolute index of samples[0]
    private var ended = false
    private var totalSamples = 0           // known once ended
    private var wholeAudioMax: Float?      // set when the whole audio was in the buffer at the start
    private var runningMax: Float = -.infinity
    private var checkedWhole = false

    init(frontEnd: LogMel, next: @escaping () throws -> [Float]?) {
        self.frontEnd = frontEnd
        self.next = next
    }

    /// The reference's content frames (samples / 160) once the stream has ended.
    var contentFramesIfKnown: Int? { ended ? totalSamples / LogMel.hop : nil }

    mutating func fill(untilSample end: Int) throws {
        while !ended && firstSample + samples.count < end {
            guard let block = try next() else {
                ended = true
                totalSamples = firstSample + samples.count
                break
            }
            samples += block
        }
        if !checkedWhole {
            checkedWhole = true
            if ended && firstSample == 0 {
                let all = logFrames(first: 0, count: LogMel.frameCount(samples: totalSamples))
                wholeAudioMax = all.max() ?? 0
            }
        }
    }

    /// Drops samples no frame at or after `frame` reads (each frame reads 200 samples either side).
    mutating func discard(beforeFrame frame: Int) {
        let keepFrom = max(0, frame * LogMel.hop - LogMel.fftSize)
        let drop = keepFrom - firstSample
        if drop > 0 && drop <= samples.count {
            samples.removeFirst(drop)
            firstSample = keepFrom
        }
    }

    /// Whether the samples of frames firstFrame..<firstFrame+frames are below -70 dBFS RMS.
    func isDigitalSilence(firstFrame: Int, frames: Int) -> Bool {
        let start = max(0, firstFrame * LogMel.hop - firstSample)
        let end = min(samples.count, (firstFrame + frames) * LogMel.hop - firstSample)
        guard end > start else { return true }
        var energy = 0.0
        for i in start..<end { energy += Double(samples[i] * samples[i]) }
        return (energy / Double(end - start)).squareRoot() < 3.2e-4
    }

    /// Normalised features of frames first..<first+count, time-major, zero-padded to `padTo` frames.
    mutating func features(first: Int, count: Int, padTo: Int) -> [Float] {
        var mel = logFrames(first: first, count: count)
        runningMax = max(runningMax, mel.max() ?? runningMax)
        LogMel.normalize(&mel, ceiling: wholeAudioMax ?? runningMax)
        if count < padTo { mel += [Float](repeating: 0, count: (padTo - count) * frontEnd.melBins) }
        return mel
    }

    private func logFrames(first: Int, count: Int) -> [Float] {
        // The padded signal: the audio and 160 zeros; its length is known only at the end.
        let padded = ended ? totalSamples + LogMel.hop : Int.max / 2
        let base = firstSample, available = samples.count
        return samples.withUnsafeBufferPointer { s in
            frontEnd.logFrames(first: first, count: count, paddedLength: padded) { i in
                let j = i - base
                return j >= 0 && j < available ? s[j] : 0
            }
        }
    }
}
