// IBAsk: work in progress.
