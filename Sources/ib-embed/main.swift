import IBCore
runTool("ib-embed") { throw IBError("not built yet") }
