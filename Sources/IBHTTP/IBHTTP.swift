// IBHTTP: work in progress.
