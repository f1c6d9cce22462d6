// Audio is recognised by its magic bytes: RIFF/WAVE, MP3 (an ID3 tag or an
// MPEG audio frame header), MP4 audio (an `ftyp` box: M4A, M4B), Ogg (Vorbis,
// Opus), FLAC. The demuxer name is handed to ffmpeg so it never sniffs the file
// as something else.
enum AudioFormat: String, Sendable {
    case wav, mp3, mp4, ogg, flac

    /// The ffmpeg demuxer for this container.
    var demuxer: String {
        switch self {
        case .wav: return "wav"
        case .mp3: return "mp3"
        case .mp4: return "mov"
        case .ogg: return "ogg"
        case .flac: return "flac"
        }
    }

    static func detect(_ head: some Collection<UInt8>) -> AudioFormat? {
        let b = Array(head.prefix(16))
        func ascii(_ s: String, at offset: Int) -> Bool {
            let bytes = Array(s.utf8)
            return b.count >= offset + bytes.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        if ascii("RIFF", at: 0) && ascii("WAVE", at: 8) { return .wav }
        if ascii("RF64", at: 0) && ascii("WAVE", at: 8) { return .wav }
        if ascii("fLaC", at: 0) { return .flac }
        if ascii("OggS", at: 0) { return .ogg }
        if ascii("ftyp", at: 4) && isAudioBrand(b) { return .mp4 }
        if ascii("ID3", at: 0) && b.count >= 10 && b[3] < 0xFF && b[4] < 0xFF { return .mp3 }
        if isMPEGAudioFrame(b) { return .mp3 }
        return nil
    }

    /// An `ftyp` box of an audio MP4 (M4A, M4B, M4P, or a generic ISO brand; video MP4s
    /// decode their first audio stream too).
    static func isAudioBrand(_ b: [UInt8]) -> Bool {
        guard b.count >= 12 else { return false }
        let brand = String(decoding: b[8..<12], as: UTF8.self)
        return ["M4A ", "M4B ", "M4P ", "isom", "iso2", "mp41", "mp42", "dash", "3gp4", "3gp5", "qt  "].contains(brand)
    }

    /// An MPEG-1/2/2.5 layer II or III audio frame header: the 11-bit sync, a bitrate that is
    /// not "bad" and a sample rate that is not "reserved". Layer I is not taken: its header
    /// begins FF FE or FF FF, a UTF-16 little-endian byte-order mark.
    static func isMPEGAudioFrame(_ b: [UInt8]) -> Bool {
        guard b.count >= 4, b[0] == 0xFF, b[1] & 0xE0 == 0xE0 else { return false }
        let version = (b[1] >> 3) & 0x03, layer = (b[1] >> 1) & 0x03
        let bitrate = b[2] >> 4, rate = (b[2] >> 2) & 0x03
        return version != 0x01 && (layer == 0x01 || layer == 0x02) && bitrate != 0x0F && bitrate != 0 && rate != 0x03
    }
}
