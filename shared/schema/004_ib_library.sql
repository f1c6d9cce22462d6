-- 004_ib_library.sql
-- ib's additions beside the shared core tables: the book record's fields,
-- authors, pages with labels and sections, vectors in blocks, library-wide
-- settings. Dates are ISO-8601 UTC text ("2026-11-22T04:05:06Z").

-- The rest of the book record. extra holds unknown record fields (JSON object).
ALTER TABLE books ADD COLUMN language TEXT;
ALTER TABLE books ADD COLUMN format TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE books ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE books ADD COLUMN sha256 TEXT NOT NULL DEFAULT '';
ALTER TABLE books ADD COLUMN page_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE books ADD COLUMN extra TEXT NOT NULL DEFAULT '{}';
CREATE INDEX idx_books_source ON books(source);

-- The rest of the chunk record. seq is a stable integer id of the chunk (the
-- rowid of its chunks_fts row; VACUUM may renumber implicit rowids, seq never changes).
ALTER TABLE chunks ADD COLUMN start_offset INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN end_offset INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN token_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN extra TEXT NOT NULL DEFAULT '{}';
ALTER TABLE chunks ADD COLUMN seq INTEGER;
CREATE UNIQUE INDEX idx_chunks_book_index ON chunks(book_id, chunk_index);
CREATE UNIQUE INDEX idx_chunks_seq ON chunks(seq);

CREATE TABLE authors (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

CREATE TABLE book_authors (
    book_id   TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    position  INTEGER NOT NULL,
    PRIMARY KEY (book_id, position)
);
CREATE INDEX idx_book_authors_author ON book_authors(author_id);

-- Pages: physical number from 1, the printed label ("iv", "23") where known.
CREATE TABLE pages (
    book_id       TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE,
    page          INTEGER NOT NULL CHECK (page >= 1),
    label         TEXT,
    section_index INTEGER,
    section_title TEXT,
    text          TEXT NOT NULL,
    extra         TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (book_id, page)
);

-- Vectors, stored contiguously in blocks of up to 1024 per row, one book's
-- chunks per block; searched by the ibvec extension (ibvec_knn).
CREATE TABLE vector_blocks (
  id INTEGER PRIMARY KEY,
  book_id TEXT NOT NULL,
  model TEXT NOT NULL,
  dim INTEGER NOT NULL,
  count INTEGER NOT NULL,          -- vectors in this block (<= 1024)
  keys BLOB NOT NULL,              -- int64 LE x count: the chunk index within the book
  end_pages BLOB NOT NULL,         -- int32 LE x count: each chunk's end_page
  vectors BLOB NOT NULL,           -- float32 LE x count x dim, row-major
  vectors_i8 BLOB,                 -- optional int8 quantised copy, for the opt-in quantised index
  scales BLOB,                     -- optional float32 x count, per-vector scales for vectors_i8
  bits BLOB                        -- optional sign bits, for binary search with float re-scoring
);
CREATE INDEX vector_blocks_book ON vector_blocks(book_id);

-- Library-wide settings: embedding_model, embedding_dim (recorded with the
-- first vectors), quantize ('off', 'i8', 'bits').
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Whatever hangs off a book goes with it, also when foreign keys are off
-- (the sqlite3 shell): vectors have no foreign key of their own.
CREATE TRIGGER books_delete_vectors AFTER DELETE ON books BEGIN
    DELETE FROM vector_blocks WHERE book_id = old.id;
END;
