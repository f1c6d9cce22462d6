// ib-mcp: the library as a Model Context Protocol server over stdio, for
// assistants. See man/man1/ib-mcp.1 and Sources/IBMCP.
import IBCore
import IBMCP

runTool("ib-mcp") { try MCPCommand.run(Array(CommandLine.arguments.dropFirst())) }
