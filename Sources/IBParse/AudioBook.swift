// An audio book: probed by ffprobe (duration, chapters, tags), decoded by
// ffmpeg in bounded blocks, transcribed by the speech recogniser, and cut into
// pages of about a minute (AudioPagination). Each page carries start_time,
// end_time and a clock label; chapters become sections and structure marks
// as EPUB chapters do. The file is never held in memory: it is hashed and
// decoded as a stream, so a 10-hour book takes the memory of a minute.
import IBAudio
import IBCore
#if canImport(Glibc)
import Glibc
#endif

enum AudioBookParser {
    /// Seconds of samples handed to the recogniser at a time.
    static let blockSeconds = 30

    static func parse(path: String, name: String, format: AudioFormat?, options: ParseOptions) throws(ParseError) -> (ParsedBook, duration: Double) {
        let info: AudioInfo
        do { info = try AudioProbe.probe(path: path, demuxer: format?.demuxer) } catch { throw ParseError(error.message) }
        guard let factory = options.speech else {
            throw ParseError("audio needs speech recognition, which this build of ib-parse does not have")
        }
        let recognizer: any SpeechRecognizer
        do { recognizer = try factory(options.speechModel) } catch { throw ParseError("\(error)") }
        let decoder: AudioDecoder
        do { decoder = try AudioDecoder(path: path, demuxer: format?.demuxer) } catch { throw ParseError(error.message) }
        decoder.expectedDuration = info.duration
        let progress = Progress(name: name, total: info.duration)
        var segments: [SpeechPiece] = []
        let stretches = SpeechStretches(source: {
            let block = try decoder.read(maxSamples: blockSeconds * AudioDecoder.sampleRate)
            progress.update(decoder.secondsRead)
            return block
        }, boundaries: info.chapters.map(\.start))
        do {
            // Each stretch of sound between long silences is transcribed on its own, its times shifted.
            while let offset = try stretches.nextStretch() {
                try recognizer.transcribe(next: { try stretches.read() }, emit: { piece in
                    guard !piece.text.collapsedWhitespace.isEmpty else { return }
                    segments.append(SpeechPiece(start: piece.start + offset, end: piece.end + offset, text: piece.text))
                })
            }
        } catch let e as AudioError {
            decoder.cancel(); progress.end()
            throw ParseError(e.message)
        } catch {
            decoder.cancel(); progress.end()
            throw ParseError("speech recognition failed: \(error)")
        }
        progress.end()
        let heard = decoder.secondsRead
        guard !segments.isEmpty else {
            throw ParseError("no speech found in \(MediaTime.label(heard)) of audio")
        }
        var book = ParsedBook(format: .audio)
        book.title = info.title
        if let artist = info.artist { book.authors = [artist] }
        book.language = "en"
        for page in AudioPagination.pages(segments, chapters: info.chapters) {
            var parsed = ParsedPage(label: MediaTime.label(page.start), sectionIndex: page.chapter,
                                    sectionTitle: page.chapter.map { info.chapters[$0].title }, text: page.text)
            parsed.startTime = page.start
            parsed.endTime = page.end
            if page.startsChapter, let c = page.chapter {
                parsed.structure = [StructureMark(at: 0, depth: 0, kind: "chapter", number: c + 1, title: info.chapters[c].title)]
            }
            book.pages.append(parsed)
        }
        return (book, heard)
    }

    /// The SHA-256 of a file, read in blocks.
    static func sha256(path: String) throws(ParseError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw ParseError(String(cString: strerror(errno)).lowercased()) }
        defer { close(fd) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; throw ParseError(String(cString: strerror(errno)).lowercased()) }
            if n == 0 { break }
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return SHA256.hexString(hash.finalize())
    }

    /// "ib-parse: FILE: 0:12:30 / 10:00:00" rewritten in place on a terminal, at most twice a second.
    final class Progress {
        let name: String, total: Double
        let enabled = Terminal.stderrIsTerminal
        var last = 0.0, shown = false
        init(name: String, total: Double) { self.name = name; self.total = total }
        func update(_ done: Double) {
            guard enabled else { return }
            let now = Timestamp.monotonic()
            guard now - last >= 0.5 else { return }
            last = now; shown = true
            let line = "\rib-parse: \(name): transcribed \(MediaTime.label(done)) / \(MediaTime.label(total))\u{1B}[K"
            line.withCString { _ = write(2, $0, strlen($0)) }
        }
        func end() { if shown { printError("") }; shown = false }
    }
}
