-- 0190_summary_cache.sql
-- ib-ask --summarize and --recap (issue 26) keep what a provider wrote in the
-- shared schema's section_summaries, so a second call sends nothing and a later
-- reading position reuses every section already summarised. A row is found by
-- its id, a digest of (book, kind, model, prompt, the text summarised); the
-- columns below say what it is: 'section' (one section's summary, the map
-- step), 'book' (the combined summary) or 'recap', by which model, the digest
-- of the prompt, and the chunks it covers. key_statements holds the checked
-- citations as JSON.
ALTER TABLE section_summaries ADD COLUMN kind TEXT NOT NULL DEFAULT 'section';
ALTER TABLE section_summaries ADD COLUMN model TEXT;
ALTER TABLE section_summaries ADD COLUMN prompt TEXT;
ALTER TABLE section_summaries ADD COLUMN first_chunk INTEGER;
ALTER TABLE section_summaries ADD COLUMN last_chunk INTEGER;
