import IBCore
runTool("ib-search") { throw IBError("not built yet") }
