import IBCore
import IBAsk
import IBSearch

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--search" {
    // ib-search --expand/--rerank: the search, with this binary's providers.
    runTool("ib-search") { try SearchCommand.run(Array(arguments.dropFirst()), makeAssistant: ProviderAssistant.make) }
}
runTool("ib-ask") { try AskCommand.run(arguments) }
