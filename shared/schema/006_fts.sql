-- 006_fts.sql
-- Full-text search over chunk text for ib-search. rowid = chunks.seq.
-- text is the chunk's content segmented by IBStore.FullText.segment: runs of
-- CJK characters become overlapping bigrams ("東京都" -> "東京 京都") so that
-- unicode61 finds CJK words; other text is stored as it is. Queries must be
-- segmented the same way (FullText.matchExpression).
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text,
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER chunks_delete_fts AFTER DELETE ON chunks BEGIN
    DELETE FROM chunks_fts WHERE rowid = old.seq;
END;
