-- 0200_sections_chunkless.sql
-- A unit of a book's structure that no chunk starts in (a short diary entry,
-- a short poem, a scene opening late in a chunk) had no chunks (first_chunk
-- NULL), so a question naming its day or title found nothing to look in. It
-- now holds the chunk its start lies in: the last chunk starting at or before
-- it. Books indexed from now on get this from ib-index; this fills it in for
-- the books already in a library.
-- (start_page <= ? lets the search walk the page index back from the unit.)
UPDATE sections SET first_chunk = (
    SELECT c.chunk_index FROM chunks c
    WHERE c.book_id = sections.book_id AND c.start_page <= sections.start_page
      AND NOT (c.start_page = sections.start_page AND c.start_offset > sections.start_offset)
    ORDER BY c.start_page DESC, c.start_offset DESC, c.chunk_index DESC LIMIT 1)
WHERE first_chunk IS NULL;
UPDATE sections SET last_chunk = first_chunk WHERE last_chunk IS NULL AND first_chunk IS NOT NULL;
