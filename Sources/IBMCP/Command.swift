// ib-mcp's command line and the stdio loop. See man/man1/ib-mcp.1.
import IBCapture
import IBCore
import IBSearch
#if canImport(Glibc)
import Glibc
#endif

public enum MCPCommand {
    public static let usage = """
        Usage: ib-mcp [OPTIONS]

        Serves the library to assistants (Claude Desktop, Claude Code, editors,
        agents) over the Model Context Protocol: newline-delimited JSON-RPC 2.0 on
        stdin and stdout. The client starts it; it runs until stdin closes.
        Protocol 2026-07-28 (stateless: server/discover, each request's _meta),
        and 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 by the initialize handshake.

        Tools: search_library, get_passage, list_books, book_status, continue_reading,
        summarize, capture, add_quote, add_note, log_progress, set_plan. Resources:
        ib://status (ib-capture status --json) and ib://book/ID (a book and its contents).
        Search, passages and summaries stop at each book's reading position unless a
        call sets all_pages. Each write is one transaction.

        Options:
          --db PATH          the library (default $IB_DB, else $XDG_DATA_HOME/ib/library.db)
                             never created; read-only libraries are read; not a regular file: exit 2
          --model-dir DIR    the model folder (default $IB_MODEL_DIR, else
                             $XDG_DATA_HOME/ib/models/all-MiniLM-L6-v2); loaded on
                             the first search and kept
          -h, --help         this help
          --version          the version, the commit and the model folder

        Stdout carries only protocol messages; diagnostics go to stderr. A bad
        message (one over 64 MiB included), an unknown tool or method, bad arguments
        or a missing library is an error response; the server carries on.
        On a terminal: JSON-RPC messages (MCP over stdio)
        In a pipe: JSON-RPC messages
        Output options: none (a protocol)
        Exit codes: 0 stdin closed, 1 stdin unreadable, 2 usage.

        """

    static var options: [Arguments.Option] { [
        .init("db", takesValue: true), .init("model-dir", takesValue: true), .init("help", short: "h"), .init("version"),
    ] }

    public static func run(_ arguments: [String]) throws {
        let args = try Arguments(arguments, options: options)
        if args.has("help") { OutputStream.standardOutput.write(usage); return }
        if args.has("version") { OutputStream.standardOutput.write(Installation.versionText(tool: "ib-mcp", modelDirectoryFlag: try args.path("model-dir"))); return }
        guard args.positionals.isEmpty else { throw IBError.usage("ib-mcp takes no arguments (got '\(args.positionals[0])')") }
        _ = try Suggestions.nowFromEnvironment()  // a bad $IB_NOW is a usage error now, not a silent clock later
        let server = MCPServer(databasePath: try args.path("db"), modelDirectory: try args.path("model-dir"),
                               settings: try SearchSettings.fromEnvironment(), today: try Day.fromEnvironment())

        // The protocol gets its own descriptor; fd 1 becomes stderr, so that a stray
        // print anywhere below can never corrupt the stream.
        OutputStream.standardOutput.flush()
        let protocolFD = dup(1)
        guard protocolFD >= 0 else { throw IBError("cannot duplicate stdout: \(String(cString: strerror(errno)))") }
        _ = fcntl(protocolFD, F_SETFD, FD_CLOEXEC)
        dup2(2, 1)
        let out = OutputStream(fd: protocolFD)

        let lines = try LineReader(path: "-")
        // A message past the line cap (64 MiB) is read through, never held, and answered.
        lines.onOverlongLine = { _ in
            out.writeJSON(RPCMessage.error(id: .null, RPCError(.parseError, "message longer than \(lines.maxLineBytes >> 20) MiB: skipped")))
            out.flush()
        }
        try lines.forEachLine { line in
            guard let response = server.handle(line: line) else { return }
            out.writeJSON(response)
            out.flush()
        }
    }
}
