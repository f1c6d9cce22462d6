import IBCore
runTool("ib-index") { throw IBError("not built yet") }
