import IBCore
runTool("ib-chunk") { throw IBError("not built yet") }
