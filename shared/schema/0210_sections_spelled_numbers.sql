-- 0210_sections_spelled_numbers.sql
-- A section title that begins with a number spelled out ("First Epilogue",
-- "One Art", "Twenty-One") or with a roman numeral before a word ("I
-- Wandered Lonely as a Cloud") was read as a chapter with that number, so "in
-- the first chapter" found War and Peace's First Epilogue. ib-parse now reads
-- a bare numeral only (figures; a roman numeral alone or before punctuation);
-- this takes the kind and number from such sections already in a library, and
-- keeps their titles. (`ib-index --restructure` reads the book again in full:
-- "Second Book" is then book 2.)
UPDATE sections SET kind = NULL, number = NULL
WHERE kind = 'chapter' AND number IS NOT NULL AND (
    lower(substr(title, 1, instr(title || ' ', ' ') - 1)) IN (
    'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine',
    'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen',
    'seventeen', 'eighteen', 'nineteen', 'twenty', 'thirty', 'forty', 'fifty',
    'sixty', 'seventy', 'eighty', 'ninety', 'hundred', 'first', 'second',
    'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth',
    'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth',
    'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth', 'twentieth',
    'thirtieth', 'fortieth', 'fiftieth')
    OR lower(substr(title, 1, instr(title || ' ', ' ') - 1)) GLOB '[a-z]*-[a-z]*'
    OR (instr(title, ' ') > 1 AND rtrim(upper(substr(title, 1, instr(title, ' ') - 1)), 'IVXLCDM') = ''
        AND substr(title, instr(title, ' ') + 1, 1) GLOB '[A-Za-z]'));
