// ib-parse: books in (text, Markdown, HTML, PDF, EPUB, DOCX, images, audio, URLs),
// one `book` record and its `page` records out per input. Audio is transcribed
// by Whisper (IBWhisper), which this tool hands to the parser.
import IBCore
import IBParse

runTool("ib-parse") { try ParseCommand.run(Array(CommandLine.arguments.dropFirst()), speech: WhisperSpeech.factory) }
