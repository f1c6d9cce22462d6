// IBSearch: work in progress.
