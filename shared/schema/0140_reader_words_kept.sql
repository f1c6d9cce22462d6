-- 0140_reader_words_kept.sql
-- The reader's own words outlive the book's text. Quotes, notes, progress
-- events, reading state and conversations used to go with their book
-- (ON DELETE CASCADE): `ib-index delete` or a replaced book took them along.
-- Now book_id may be NULL: deleting a book detaches them, and book_title /
-- book_author keep whose words they were. Only `ib-index delete --purge`
-- removes them. SQLite cannot change a foreign key in place, so each table is
-- rebuilt with every row (and index) kept; a row whose book is already gone
-- (written with foreign keys off) is kept detached.

CREATE TABLE quotes_kept (
    id          INTEGER PRIMARY KEY,
    book_id     TEXT REFERENCES books(id) ON DELETE SET NULL,   -- NULL: the book was deleted
    text        TEXT NOT NULL,
    page        INTEGER,
    page_label  TEXT,
    note        TEXT,
    tags        TEXT NOT NULL DEFAULT '[]',
    created_at  TEXT NOT NULL,
    book_title  TEXT,                                           -- set when the book is deleted
    book_author TEXT                                            -- its authors, ", "-joined
);
INSERT INTO quotes_kept (id, book_id, text, page, page_label, note, tags, created_at)
    SELECT id, CASE WHEN book_id IN (SELECT id FROM books) THEN book_id END, text, page, page_label, note, tags, created_at
    FROM quotes ORDER BY id;
DROP TABLE quotes;
ALTER TABLE quotes_kept RENAME TO quotes;
CREATE INDEX idx_quotes_book ON quotes(book_id);

CREATE TABLE notes_kept (
    id          INTEGER PRIMARY KEY,
    book_id     TEXT REFERENCES books(id) ON DELETE SET NULL,
    text        TEXT NOT NULL,
    page        INTEGER,
    chapter     TEXT,
    kind        TEXT NOT NULL DEFAULT 'note' CHECK (kind IN ('note', 'question')),
    tags        TEXT NOT NULL DEFAULT '[]',
    created_at  TEXT NOT NULL,
    book_title  TEXT,
    book_author TEXT
);
INSERT INTO notes_kept (id, book_id, text, page, chapter, kind, tags, created_at)
    SELECT id, CASE WHEN book_id IN (SELECT id FROM books) THEN book_id END, text, page, chapter, kind, tags, created_at
    FROM notes ORDER BY id;
DROP TABLE notes;
ALTER TABLE notes_kept RENAME TO notes;
CREATE INDEX idx_notes_book ON notes(book_id);

CREATE TABLE progress_events_kept (
    id          INTEGER PRIMARY KEY,
    book_id     TEXT REFERENCES books(id) ON DELETE SET NULL,
    page        INTEGER,
    pages_read  INTEGER,
    kind        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    book_title  TEXT,
    book_author TEXT
);
INSERT INTO progress_events_kept (id, book_id, page, pages_read, kind, created_at)
    SELECT id, CASE WHEN book_id IN (SELECT id FROM books) THEN book_id END, page, pages_read, kind, created_at
    FROM progress_events ORDER BY id;
DROP TABLE progress_events;
ALTER TABLE progress_events_kept RENAME TO progress_events;
CREATE INDEX idx_progress_events_book ON progress_events(book_id, created_at);
CREATE INDEX idx_progress_events_created ON progress_events(created_at);

-- book_id was the primary key; detached states are several NULLs, so the row
-- gets its own id and book_id stays unique among the books still there.
CREATE TABLE reading_state_kept (
    id          INTEGER PRIMARY KEY,
    book_id     TEXT UNIQUE REFERENCES books(id) ON DELETE SET NULL,
    state       TEXT NOT NULL CHECK (state IN ('reading', 'want', 'added', 'finished')),
    started_at  TEXT,
    finished_at TEXT,
    active_at   TEXT NOT NULL,
    book_title  TEXT,
    book_author TEXT
);
INSERT INTO reading_state_kept (book_id, state, started_at, finished_at, active_at)
    SELECT CASE WHEN book_id IN (SELECT id FROM books) THEN book_id END, state, started_at, finished_at, active_at
    FROM reading_state ORDER BY rowid;
DROP TABLE reading_state;
ALTER TABLE reading_state_kept RENAME TO reading_state;
CREATE INDEX idx_reading_state_active ON reading_state(state, active_at);

-- Conversations are the parent of chat_messages (ON DELETE CASCADE): the
-- messages wait in a plain copy while the old conversations table goes, so
-- dropping it cannot take them along.
CREATE TABLE conversations_kept (
    id          TEXT PRIMARY KEY,
    book_id     TEXT REFERENCES books(id) ON DELETE SET NULL,
    title       TEXT NOT NULL CHECK (length(trim(title)) > 0),
    created_at  TEXT NOT NULL DEFAULT (datetime('now')),
    book_title  TEXT,
    book_author TEXT
);
INSERT INTO conversations_kept (id, book_id, title, created_at)
    SELECT id, CASE WHEN book_id IN (SELECT id FROM books) THEN book_id END, title, created_at
    FROM conversations ORDER BY rowid;
CREATE TABLE chat_messages_waiting AS SELECT rowid AS old_rowid, * FROM chat_messages;
DROP TABLE chat_messages;
DROP TABLE conversations;
ALTER TABLE conversations_kept RENAME TO conversations;
CREATE INDEX idx_conversations_book_id ON conversations(book_id);
CREATE TABLE chat_messages (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role            TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool_result')),
    content         TEXT NOT NULL,
    created_at      TEXT NOT NULL DEFAULT (datetime('now'))
);
INSERT INTO chat_messages (id, conversation_id, role, content, created_at)
    SELECT id, conversation_id, role, content, created_at FROM chat_messages_waiting
    WHERE conversation_id IN (SELECT id FROM conversations) ORDER BY old_rowid;
DROP TABLE chat_messages_waiting;
CREATE INDEX idx_chat_messages_conversation_id ON chat_messages(conversation_id);

-- Deleting a book detaches its reader's words and names the book on them,
-- also when foreign keys are off (the sqlite3 shell). Runs before the
-- book_authors rows go with the book, so the authors are still there.
CREATE TRIGGER books_keep_reader_words BEFORE DELETE ON books BEGIN
    UPDATE quotes SET book_title = old.title, book_id = NULL,
        book_author = (SELECT group_concat(name, ', ') FROM (SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id WHERE ba.book_id = old.id ORDER BY ba.position))
        WHERE book_id = old.id;
    UPDATE notes SET book_title = old.title, book_id = NULL,
        book_author = (SELECT group_concat(name, ', ') FROM (SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id WHERE ba.book_id = old.id ORDER BY ba.position))
        WHERE book_id = old.id;
    UPDATE progress_events SET book_title = old.title, book_id = NULL,
        book_author = (SELECT group_concat(name, ', ') FROM (SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id WHERE ba.book_id = old.id ORDER BY ba.position))
        WHERE book_id = old.id;
    UPDATE reading_state SET book_title = old.title, book_id = NULL,
        book_author = (SELECT group_concat(name, ', ') FROM (SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id WHERE ba.book_id = old.id ORDER BY ba.position))
        WHERE book_id = old.id;
    UPDATE conversations SET book_title = old.title, book_id = NULL,
        book_author = (SELECT group_concat(name, ', ') FROM (SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id WHERE ba.book_id = old.id ORDER BY ba.position))
        WHERE book_id = old.id;
END;
