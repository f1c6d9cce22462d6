// Simon Willison's `llm` command as a chat provider: whatever models and keys
// the reader set up in llm (plugins, local models included) answer ib-ask.
// llm is run as a child process: the system prompt with -s, the model with -m
// when one is chosen, the prompt on stdin (never a terminal: no hang), its
// stdout streamed to the answer as it arrives. Its models have no tools here,
// so ib-ask retrieves first and puts the passages in the prompt. --no-log keeps
// the reader's questions out of llm's log database unless IB_LLM_LOG=1.
import IBCore

final class LLMProvider: ConfiguredProvider {
    /// Its command and whether llm may log come with the settings (llmCommand, llmKeepsLog).
    let settings: ProviderSettings
    var name: String { "llm" }

    init(_ settings: ProviderSettings) { self.settings = settings }

    /// Tools need llm's Python plugins (-T): through the command line, never.
    var supportsTools: Bool { false }

    /// The model's name for records: the one chosen, else llm's default.
    var model: String { settings.model.isEmpty ? LLMProvider.defaultModelLabel : settings.model }
    static let defaultModelLabel = "default"

    /// llm's arguments for `request` (the prompt itself goes on stdin).
    func arguments(_ request: ChatRequest) -> [String] {
        var arguments = [settings.llmCommand, "prompt", "-s", request.system, "-u"]
        if !settings.model.isEmpty { arguments += ["-m", settings.model] }
        if !settings.llmKeepsLog { arguments.append("--no-log") }
        return arguments
    }

    /// The conversation as one prompt: llm's command line takes a single
    /// message, so earlier turns become a transcript above the last one.
    static func prompt(_ messages: [ChatMessage]) -> String {
        var earlier: [String] = []
        var last = ""
        for (i, message) in messages.enumerated() {
            switch message {
            case .user(let text):
                if i == messages.count - 1 { last = text } else { earlier.append("Reader: " + text) }
            case .assistant(let text, _):
                if !text.isEmpty { earlier.append("You answered: " + text) }
            case .toolResults(let results):
                earlier += results.map { "Search results:\n" + $0.content }
            }
        }
        guard !earlier.isEmpty else { return last }
        return "Earlier in this conversation:\n\n" + earlier.joined(separator: "\n\n") + "\n\n---\n\n" + last
    }

    func complete(_ request: ChatRequest, onText: (String) throws -> Void) throws -> ChatTurn {
        let process: Subprocess
        do {
            process = try Subprocess(arguments(request), stallSeconds: settings.timeout,
                                     input: Array(LLMProvider.prompt(request.messages).utf8))
        } catch {
            throw LLMProvider.describe(error)
        }
        var turn = ChatTurn()
        var pieces = UTF8Pieces()
        var buffer: [UInt8] = []
        do {
            while true {
                buffer.removeAll(keepingCapacity: true)
                let n = try process.readStdout(into: &buffer, upTo: 1 << 16)
                let text = n == 0 ? pieces.finish() : pieces.feed(buffer)
                if !text.isEmpty {
                    turn.text += text
                    try onText(text)
                }
                if n == 0 { break }
            }
        } catch let error as SubprocessError {
            throw LLMProvider.describe(error)
        }
        let status = process.wait()
        guard status == 0 else {
            let said = process.errorLine(startingWith: "Error") ?? "no message"
            throw IBError("llm failed (exit status \(status)): \(said); nothing was saved", code: .provider)
        }
        turn.usage = LLMProvider.usage(process.errorLines)
        turn.stopReason = "stop"
        return turn
    }

    /// The counts of llm's "Token usage: 1,234 input, 56 output" line (-u), else zero.
    static func usage(_ lines: [String]) -> TokenUsage {
        guard let line = lines.last(where: { $0.hasPrefix("Token usage:") }) else { return TokenUsage() }
        func count(before word: String) -> Int {
            let words = line.replacingCommas.split(separator: " ")
            guard let i = words.firstIndex(where: { $0 == word }), i > 0 else { return 0 }
            return Int(words[i - 1]) ?? 0
        }
        return TokenUsage(input: count(before: "input"), output: count(before: "output"))
    }

    static let notInstalled = IBError("provider llm needs Simon Willison's llm command, which is not installed or not on PATH "
                                      + "(pipx install llm, or pip install llm; IB_LLM names it elsewhere)", code: .provider)

    static func describe(_ error: SubprocessError) -> IBError {
        switch error.kind {
        case .missingTool:
            return notInstalled
        case .stalled(let seconds):
            return IBError("llm wrote nothing for \(Subprocess.seconds(seconds)) (--timeout) and was stopped; nothing was saved",
                           code: .provider)
        case .tooMuchOutput, .system:
            return IBError("llm: \(error.message); nothing was saved", code: .provider)
        }
    }
}

private extension String {
    /// "1,234 input," -> "1234 input" (llm groups thousands).
    var replacingCommas: String { String(filter { $0 != "," }) }
}

/// Text from a byte stream cut anywhere: a UTF-8 sequence split between two
/// reads is held back until its last byte arrives.
struct UTF8Pieces {
    private var pending: [UInt8] = []

    mutating func feed(_ bytes: [UInt8]) -> String {
        pending += bytes
        // Back up over at most 3 continuation bytes to the start of the last sequence.
        var start = pending.count
        var back = 0
        while start > 0 && back < 4 {
            start -= 1; back += 1
            if pending[start] & 0xC0 != 0x80 { break }
        }
        var complete = pending.count
        if start < pending.count {
            let lead = pending[start]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if pending.count - start < length { complete = start }
        }
        let text = String(decoding: pending[0..<complete], as: UTF8.self)
        pending.removeFirst(complete)
        return text
    }

    /// What is left at the end (an unfinished sequence decodes as U+FFFD).
    mutating func finish() -> String {
        defer { pending = [] }
        return String(decoding: pending, as: UTF8.self)
    }
}
