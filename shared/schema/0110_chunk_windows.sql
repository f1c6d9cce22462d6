-- Window vectors of a chunk (from ib-embed's "windows" field): int8 codes,
-- `embedding_dimension` per window, windows in text order; NULL when the
-- chunk has none (short chunks, HTTP providers, --no-windows). ib-search reads
-- them only for its candidates, by primary key, to re-score them by their
-- best window; they are never scanned.
ALTER TABLE chunks ADD COLUMN windows BLOB;
