// IBTokenizer: work in progress.
