// IBStore: work in progress.
