// ib-search: hybrid (vector + BM25) search over the library, without spoilers.
// See man/man1/ib-search.1, Sources/IBSearch/SearchCommand.swift and SearchEngine.swift.
import IBCore
import IBSearch
#if canImport(Glibc)
import Glibc
#endif

/// --expand and --rerank need a provider, whose code lives in ib-ask: the same
/// search runs there (`ib-ask --search ARGS`), so a plain search never loads it.
/// ib-ask is looked for beside this executable, then on PATH; when it cannot
/// start, the plain search runs with a warning.
func handOffToAsk(_ arguments: [String]) {
    OutputStream.standardOutput.flush()
    for path in Installation.toolCandidates("ib-ask") where path == "ib-ask" || access(path, X_OK) == 0 {
        var argv: [UnsafeMutablePointer<CChar>?] = ([path, "--search"] + arguments).map { strdup($0) }
        argv.append(nil)
        execvp(path, &argv)
    }
    printError("ib-search: --expand/--rerank: cannot start ib-ask (\(String(cString: strerror(errno)))): plain search")
}

runTool("ib-search") {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if try SearchCommand.wantsAssistant(arguments) { handOffToAsk(arguments) }
    try SearchCommand.run(arguments)
}
