-- A book's structure: every unit its pages' "structure" marks start (book,
-- part, chapter, act, scene, dated entry, letter), in book order, with its
-- parent, path of titles, dates, voice and place, where it starts, and the
-- chunks whose start lies inside it. chunks.section_ord names the innermost
-- unit holding a chunk's start. Existing books get theirs from
-- `ib-parse BOOK | ib-index --restructure`, without re-embedding.
CREATE TABLE sections (
  book_id TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  parent INTEGER,
  depth INTEGER NOT NULL,
  kind TEXT, number INTEGER, title TEXT NOT NULL,
  path TEXT NOT NULL,
  date_from TEXT, date_to TEXT, voice TEXT, place TEXT,
  start_page INTEGER NOT NULL, start_offset INTEGER NOT NULL,
  first_chunk INTEGER, last_chunk INTEGER,
  PRIMARY KEY (book_id, ord));

ALTER TABLE chunks ADD COLUMN section_ord INTEGER;
