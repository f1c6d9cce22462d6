// IBCapture: work in progress.
