// ib-parse: books in (text, Markdown, HTML, PDF, EPUB, DOCX, images, URLs), one
// `book` record and its `page` records out per input.
import IBCore
import IBParse

runTool("ib-parse") { try ParseCommand.run(Array(CommandLine.arguments.dropFirst())) }
