// Whisper's log-mel front end, computed the way the reference (faster-whisper's
// FeatureExtractor) computes it: 160 zero samples appended, frames of 400
// samples every 160 (centred, the signal reflected at both ends), a periodic
// Hann window, |rfft|^2 (the last frame dropped), a Slaney mel filterbank of
// 80 bins, log10 clamped at 1e-10, then max(x, max - 8) and (x + 4) / 4.
//
// The transform is a DFT done as one GEMM against a cos/sin basis (n = 400 is
// not a power of two, and 3000 frames x 402 outputs is a small GEMM).
import CKernels
import Foundation

public struct LogMel: Sendable {
    public static let sampleRate = 16000
    public static let hop = 160
    public static let fftSize = 400
    public static let framesPerWindow = 3000            // 30 s
    static let bins = fftSize / 2 + 1                   // 201

    public let melBins: Int
    let filters: [Float]                                // [melBins, 201]
    let basis: [Float]                                  // [402, 400]: cos rows, then sin rows
    let window: [Float]

    public init(melBins: Int = 80) {
        self.melBins = melBins
        filters = Self.melFilters(melBins: melBins)
        var basis = [Float](repeating: 0, count: 2 * Self.bins * Self.fftSize)
        for k in 0..<Self.bins {
            for n in 0..<Self.fftSize {
                let angle = 2 * Double.pi * Double((k * n) % Self.fftSize) / Double(Self.fftSize)
                basis[k * Self.fftSize + n] = Float(cos(angle))
                basis[(Self.bins + k) * Self.fftSize + n] = Float(-sin(angle))
            }
        }
        self.basis = basis
        // numpy.hanning(401)[:-1]: 0.5 - 0.5 cos(2 pi n / 400)
        window = (0..<Self.fftSize).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(Self.fftSize))) }
    }

    /// How many feature frames the reference makes of `samples` samples (the last
    /// of which it never decodes: content frames are one fewer).
    public static func frameCount(samples: Int) -> Int { samples / hop + 1 }

    /// log10 of the mel energies of frames first..<first+count, time-major
    /// [count, melBins], before the max - 8 clamp and scaling. `signal(i)` is sample
    /// i of the audio with its 160 trailing zeros (total `paddedLength`).
    func logFrames(first: Int, count: Int, paddedLength: Int, signal: (Int) -> Float) -> [Float] {
        let n = Self.fftSize, half = n / 2
        var frames = [Float](repeating: 0, count: count * n)
        for f in 0..<count {
            let center = (first + f) * Self.hop
            for j in 0..<n {
                var i = center - half + j
                if i < 0 { i = -i }                                        // reflect at the start
                if i >= paddedLength { i = 2 * (paddedLength - 1) - i }    // and at the end
                frames[f * n + j] = (i >= 0 && i < paddedLength ? signal(i) : 0) * window[j]
            }
        }
        var spectrum = [Float](repeating: 0, count: count * 2 * Self.bins)
        ib_gemm(Int32(count), Int32(2 * Self.bins), Int32(n), frames, Int32(n), basis, Int32(n), nil,
                &spectrum, Int32(2 * Self.bins), 0)
        var power = [Float](repeating: 0, count: count * Self.bins)
        for f in 0..<count {
            for k in 0..<Self.bins {
                let re = spectrum[f * 2 * Self.bins + k], im = spectrum[f * 2 * Self.bins + Self.bins + k]
                power[f * Self.bins + k] = re * re + im * im
            }
        }
        var mel = [Float](repeating: 0, count: count * melBins)
        ib_gemm(Int32(count), Int32(melBins), Int32(Self.bins), power, Int32(Self.bins), filters, Int32(Self.bins), nil,
                &mel, Int32(melBins), 0)
        for i in 0..<mel.count { mel[i] = log10(max(mel[i], 1e-10)) }
        return mel
    }

    /// The reference's whole front end on short audio: [frames, melBins] time-major.
    public func features(samples: [Float]) -> [Float] {
        let padded = samples.count + Self.hop
        let frames = Self.frameCount(samples: samples.count)
        var mel = samples.withUnsafeBufferPointer { s in
            logFrames(first: 0, count: frames, paddedLength: padded) { $0 < s.count ? s[$0] : 0 }
        }
        Self.normalize(&mel, ceiling: mel.max() ?? 0)
        return mel
    }

    /// max(x, ceiling - 8), then (x + 4) / 4, in place.
    static func normalize(_ mel: inout [Float], ceiling: Float) {
        let floor = ceiling - 8
        for i in 0..<mel.count { mel[i] = (max(mel[i], floor) + 4) / 4 }
    }

    /// Slaney-style mel filters (librosa's, htk = false, norm = slaney) as the reference builds them.
    static func melFilters(melBins: Int) -> [Float] {
        let sr = Double(sampleRate), bins = Self.bins
        let fftFreqs = (0..<bins).map { Double($0) * sr / Double(fftSize) }
        let maxMel = 45.245640471924965
        let fSp = 200.0 / 3, minLogHz = 1000.0, minLogMel = minLogHz / fSp, logStep = log(6.4) / 27.0
        let freqs: [Double] = (0..<(melBins + 2)).map { i in
            let mel = maxMel * Double(i) / Double(melBins + 1)
            return mel >= minLogMel ? minLogHz * exp(logStep * (mel - minLogMel)) : fSp * mel
        }
        var weights = [Float](repeating: 0, count: melBins * bins)
        for m in 0..<melBins {
            let lowerWidth = freqs[m + 1] - freqs[m], upperWidth = freqs[m + 2] - freqs[m + 1]
            let enorm = 2.0 / (freqs[m + 2] - freqs[m])
            for k in 0..<bins {
                let lower = (fftFreqs[k] - freqs[m]) / lowerWidth
                let upper = (freqs[m + 2] - fftFreqs[k]) / upperWidth
                weights[m * bins + k] = Float(max(0, min(lower, upper)) * enorm)
            }
        }
        return weights
    }
}
