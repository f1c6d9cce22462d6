-- 002_add_embeddings.sql
-- A version marker, as in the interactive-books shared schema (which keeps its
-- vectors in sqlite-vec tables created at run time). ib keeps its vectors in
-- vector_blocks (004), searched by the ibvec extension.
SELECT 1;
