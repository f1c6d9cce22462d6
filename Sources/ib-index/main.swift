// ib-index: stores record streams in the library and manages it.
import IBCore
import IBIndex
#if canImport(Glibc)
import Glibc
#endif

runTool("ib-index") {
    // SIGXFSZ would kill us at a file-size limit; get EFBIG and a clear error instead.
    signal(SIGXFSZ, SIG_IGN)
    try IndexCommand.run(Array(CommandLine.arguments.dropFirst()))
}
