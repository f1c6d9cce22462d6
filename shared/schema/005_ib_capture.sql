-- 005_ib_capture.sql
-- The reader's own material: quotes, notes and questions, reading progress,
-- reading plans. ib-capture may extend these in a later migration.

CREATE TABLE quotes (
    id         INTEGER PRIMARY KEY,
    book_id    TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE,
    text       TEXT NOT NULL,
    page       INTEGER,
    page_label TEXT,
    note       TEXT,
    tags       TEXT NOT NULL DEFAULT '[]',   -- JSON array of strings
    created_at TEXT NOT NULL
);
CREATE INDEX idx_quotes_book ON quotes(book_id);

CREATE TABLE notes (
    id         INTEGER PRIMARY KEY,
    book_id    TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE,
    text       TEXT NOT NULL,
    page       INTEGER,
    chapter    TEXT,
    kind       TEXT NOT NULL DEFAULT 'note' CHECK (kind IN ('note', 'question')),
    tags       TEXT NOT NULL DEFAULT '[]',   -- JSON array of strings
    created_at TEXT NOT NULL
);
CREATE INDEX idx_notes_book ON notes(book_id);

CREATE TABLE progress_events (
    id         INTEGER PRIMARY KEY,
    book_id    TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE,
    page       INTEGER,
    pages_read INTEGER,
    kind       TEXT NOT NULL,               -- e.g. 'page', 'started', 'finished'
    created_at TEXT NOT NULL
);
CREATE INDEX idx_progress_events_book ON progress_events(book_id, created_at);

CREATE TABLE reading_plans (
    id          INTEGER PRIMARY KEY,
    title       TEXT NOT NULL,
    target_date TEXT,                        -- ISO-8601 date
    book_ids    TEXT NOT NULL DEFAULT '[]',  -- JSON array of book ids
    created_at  TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'active'
);
