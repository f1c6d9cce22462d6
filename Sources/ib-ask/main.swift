import IBCore
import IBAsk

runTool("ib-ask") { try AskCommand.run(Array(CommandLine.arguments.dropFirst())) }
