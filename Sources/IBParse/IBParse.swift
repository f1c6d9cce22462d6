// IBParse: work in progress.
