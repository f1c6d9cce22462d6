-- 0220_sections_numbered_poems.sql
-- A numbered poem's title ("Sonnet XVIII", "Psalm 23", "Elegy IX. Of His
-- Mistress") was read as no kind of part, so "in Sonnet 18" named nothing.
-- ib-parse now reads it as a chapter with that number, as a bare numeral is;
-- this gives sections already in a library that kind and number, where the
-- word after "Sonnet" (or Poem, Psalm, Ode, Elegy, Hymn, Epigram, Song) is
-- figures or a roman numeral ("Song of Myself" stays a title). Titles are kept.
WITH RECURSIVE
  numbered(book_id, ord, word) AS (
    SELECT book_id, ord, upper(rtrim(substr(rest, 1, instr(rest || ' ', ' ') - 1), '.,:;'))
    FROM (SELECT book_id, ord, ltrim(substr(title, instr(title, ' ') + 1)) AS rest FROM sections
          WHERE kind IS NULL AND instr(title, ' ') > 1
            AND lower(substr(title, 1, instr(title, ' ') - 1))
                IN ('sonnet', 'poem', 'psalm', 'ode', 'elegy', 'hymn', 'epigram', 'song'))),
  -- A roman numeral's value, a letter at a time: a letter before a larger one subtracts.
  roman(book_id, ord, word, i, total) AS (
    SELECT book_id, ord, word, 1, 0 FROM numbered WHERE word <> '' AND rtrim(word, 'IVXLCDM') = ''
    UNION ALL
    SELECT book_id, ord, word, i + 1, total +
      CASE WHEN (CASE substr(word, i, 1) WHEN 'I' THEN 1 WHEN 'V' THEN 5 WHEN 'X' THEN 10 WHEN 'L' THEN 50
                   WHEN 'C' THEN 100 WHEN 'D' THEN 500 ELSE 1000 END)
              < (CASE substr(word, i + 1, 1) WHEN 'I' THEN 1 WHEN 'V' THEN 5 WHEN 'X' THEN 10 WHEN 'L' THEN 50
                   WHEN 'C' THEN 100 WHEN 'D' THEN 500 WHEN 'M' THEN 1000 ELSE 0 END)
           THEN -(CASE substr(word, i, 1) WHEN 'I' THEN 1 WHEN 'V' THEN 5 WHEN 'X' THEN 10 WHEN 'L' THEN 50
                   WHEN 'C' THEN 100 WHEN 'D' THEN 500 ELSE 1000 END)
           ELSE (CASE substr(word, i, 1) WHEN 'I' THEN 1 WHEN 'V' THEN 5 WHEN 'X' THEN 10 WHEN 'L' THEN 50
                   WHEN 'C' THEN 100 WHEN 'D' THEN 500 ELSE 1000 END) END
    FROM roman WHERE i <= length(word)),
  parsed(book_id, ord, n) AS (
    SELECT book_id, ord, CAST(word AS INTEGER) FROM numbered WHERE word <> '' AND rtrim(word, '0123456789') = ''
    UNION ALL
    SELECT book_id, ord, total FROM roman WHERE i > length(word))
UPDATE sections SET kind = 'chapter',
  number = (SELECT n FROM parsed p WHERE p.book_id = sections.book_id AND p.ord = sections.ord)
WHERE kind IS NULL AND EXISTS (
  SELECT 1 FROM parsed p WHERE p.book_id = sections.book_id AND p.ord = sections.ord AND p.n > 0 AND p.n < 100000);
