// IBTestSupport: work in progress.
