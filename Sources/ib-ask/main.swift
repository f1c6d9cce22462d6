import IBCore
runTool("ib-ask") { throw IBError("not built yet") }
