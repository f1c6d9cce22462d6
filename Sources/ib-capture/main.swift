import IBCore
runTool("ib-capture") { throw IBError("not built yet") }
