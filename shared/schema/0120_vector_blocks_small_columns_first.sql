-- vector_blocks with its small columns before the float vectors. A row's
-- blobs live on a chain of overflow pages that SQLite walks from the start:
-- with the int8 codes, scales and sign bits after the 1.5 MB of floats of a
-- full block, every quantised or pruned scan (ibvec_knn's binary, int8 and
-- exact modes) first walked ~25 pages per block to reach them. Same columns,
-- same data; only their order in the row changes (ibvec reads them by name).
DROP TRIGGER IF EXISTS books_delete_vectors;
CREATE TABLE vector_blocks_reordered (
  id INTEGER PRIMARY KEY,
  book_id TEXT NOT NULL,
  model TEXT NOT NULL,
  dim INTEGER NOT NULL,
  count INTEGER NOT NULL,          -- vectors in this block (<= 1024)
  keys BLOB NOT NULL,              -- int64 LE x count: the chunk index within the book
  end_pages BLOB NOT NULL,         -- int32 LE x count: each chunk's end_page
  scales BLOB,                     -- optional float32 x count, per-vector scales for vectors_i8
  bits BLOB,                       -- optional sign bits, for binary search with float re-scoring
  vectors_i8 BLOB,                 -- optional int8 quantised copy, for the opt-in quantised index
  vectors BLOB NOT NULL            -- float32 LE x count x dim, row-major
);
INSERT INTO vector_blocks_reordered (id, book_id, model, dim, count, keys, end_pages, scales, bits, vectors_i8, vectors)
  SELECT id, book_id, model, dim, count, keys, end_pages, scales, bits, vectors_i8, vectors FROM vector_blocks ORDER BY id;
DROP TABLE vector_blocks;
ALTER TABLE vector_blocks_reordered RENAME TO vector_blocks;
CREATE INDEX vector_blocks_book ON vector_blocks(book_id);
CREATE TRIGGER books_delete_vectors AFTER DELETE ON books BEGIN
    DELETE FROM vector_blocks WHERE book_id = old.id;
END;
