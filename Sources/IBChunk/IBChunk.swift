// IBChunk: work in progress.
