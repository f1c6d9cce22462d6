// IBModel: work in progress.
