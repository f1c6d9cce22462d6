// ib-capture: capture quotes, notes, questions, progress and plans in plain
// English or Chinese, typed or spoken (--audio: Whisper, run natively); show
// the reading status; export and import highlights.
import IBCore
import IBCapture

runTool("ib-capture") { try CaptureTool.main(Array(CommandLine.arguments.dropFirst()), listen: WhisperListener.listen) }
