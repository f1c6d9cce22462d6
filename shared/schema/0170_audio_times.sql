-- Audio books: each page and chunk record of an audio book carries
-- start_time and end_time (seconds from the start of the audio). They are
-- kept in the rows' extra JSON as every record field is (so export writes
-- them back unchanged), and read through these columns: search results, ask
-- citations and MCP show and cite times ("1:02:30") instead of pages. NULL
-- for every other book.
ALTER TABLE pages ADD COLUMN start_time REAL GENERATED ALWAYS AS (json_extract(extra, '$.start_time')) VIRTUAL;
ALTER TABLE pages ADD COLUMN end_time REAL GENERATED ALWAYS AS (json_extract(extra, '$.end_time')) VIRTUAL;
ALTER TABLE chunks ADD COLUMN start_time REAL GENERATED ALWAYS AS (json_extract(extra, '$.start_time')) VIRTUAL;
ALTER TABLE chunks ADD COLUMN end_time REAL GENERATED ALWAYS AS (json_extract(extra, '$.end_time')) VIRTUAL;
