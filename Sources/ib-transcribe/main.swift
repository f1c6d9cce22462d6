// ib-transcribe: speech to text with Whisper run natively (IBWhisper); one
// JSON line per spoken segment. A thin main: options, the audio reader, the
// records.
import Foundation
import IBCore
import IBWhisper

let help = """
Usage: ib-transcribe [OPTIONS] FILE

Transcribes the speech in FILE with Whisper, run natively (no Python), and
writes one JSON line per segment on standard output:
  {"start":1.2,"end":4.6,"text":" ...","avg_logprob":-0.21,"no_speech_prob":0.01}
start and end are seconds from the start of the audio. Long audio is read in
30 s windows (memory stays flat); silent windows give no segment.

FILE is 16 kHz mono WAV, PCM16 or float32 (other audio: convert it first,
e.g. ffmpeg -i IN -ar 16000 -ac 1 OUT.wav).

Options:
  --model DIR         a CTranslate2 Whisper folder (config.json, model.bin,
                      tokenizer.json, vocabulary.txt); default: $IB_WHISPER_DIR,
                      else $XDG_DATA_HOME/ib/models/whisper-tiny.en
                      (scripts/fetch-model whisper installs it). A multilingual
                      folder of the same format transcribes other languages.
  --beam N            beam search with N hypotheses (default: 1, greedy; 1 to 16)
  --compute TYPE      float32 (default: the reference's fp32 tokens) or int8
                      (each matrix product on int8 codes, as faster-whisper's
                      compute_type=int8: faster, and words may differ slightly)
  --language CODE     the spoken language on a multilingual model, e.g. zh
                      (default: en; English-only models take only en)
  -h, --help          show this help
      --version       show the version, the commit and the model

Environment: IB_WHISPER_DIR, XDG_DATA_HOME, IB_THREADS (threads, default the
cores it may use, at most 8), IB_KERNELS=avx2 (force the AVX2 kernels), IB_WHISPER_TRACE (CPU
seconds per window, then for the run and its calling thread, on stderr).
On a terminal: JSON Lines (one per segment)
In a pipe: JSON Lines
Output options: none (a record stream)
Exit status: 0 ok, 1 input or runtime error (one line naming the file),
2 usage error. See ib-transcribe(1).
"""

runTool("ib-transcribe") {
    let args = try Arguments(Array(CommandLine.arguments.dropFirst()), options: [
        .init("model", takesValue: true), .init("beam", takesValue: true), .init("language", takesValue: true),
        .init("compute", takesValue: true), .init("help", short: "h"), .init("version"),
    ])
    if args.has("help") { print(help); return }
    let modelFlag = try args.path("model")
    let directory = WhisperModel.locate(explicit: modelFlag) ?? ""
    if args.has("version") {
        let installed = FileManager.default.fileExists(atPath: directory + "/model.bin")
        let model = installed ? ((try? WhisperModel(directory: directory))?.name ?? directory) + " in " + directory
                              : directory + " (not installed: run scripts/fetch-model whisper)"
        print(Installation.versionText(tool: "ib-transcribe", model: model), terminator: "")
        return
    }
    var options = TranscribeOptions()
    options.beamSize = try args.int("beam", min: 1, max: 16) ?? 1
    if let compute = args.value("compute") {
        guard let chosen = Compute(rawValue: compute) else {
            throw IBError.usage("--compute: \(Arguments.shown(compute)) is not float32 or int8")
        }
        options.compute = chosen
    }
    if let language = args.value("language") {
        guard !language.isEmpty, language.count <= 8, language.allSatisfy({ $0.isLetter || $0 == "-" }) else {
            throw IBError.usage("--language: \(Arguments.shown(language)) is not a language code such as en or zh")
        }
        options.language = language.lowercased()
    }
    guard args.positionals.count == 1 else { throw IBError.usage("one audio FILE expected") }
    let path = args.positionals[0]
    let model: WhisperModel
    do { model = try WhisperModel(directory: directory) } catch { throw IBError("\(error)") }
    do { try Transcriber.validate(options, model: model) } catch { throw IBError.usage("\(error)") }
    let audio: WaveFile
    do { audio = try WaveFile(path: path) } catch { throw IBError("\(error)") }
    let transcriber = Transcriber(model: model, options: options)
    let out = OutputStream.standardOutput
    do {
        try transcriber.transcribe(next: { try audio.read(maxSamples: 16000 * 10) }) { segment in
            out.writeJSON(JSON.object(JSONObject([
                ("start", .number(rounded(segment.start))), ("end", .number(rounded(segment.end))),
                ("text", .string(segment.text)),
                ("avg_logprob", .number(rounded(segment.averageLogProbability, places: 4))),
                ("no_speech_prob", .number(rounded(segment.noSpeechProbability, places: 4))),
            ])))
            out.flush()
        }
    } catch let error as WhisperError { throw IBError("\(error)") }
}

func rounded(_ x: Double, places: Int = 3) -> Double {
    let scale = pow(10.0, Double(places))
    return (x * scale).rounded() / scale
}
