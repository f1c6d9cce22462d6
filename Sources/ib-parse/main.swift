import IBCore
runTool("ib-parse") { throw IBError("not built yet") }
