-- 001_initial.sql
-- The core tables of the interactive-books shared schema, kept with the same
-- names, columns and meaning so that tools written for that schema can read an
-- ib library. ib's own additions live in 004 and later.

CREATE TABLE books (
    id                  TEXT PRIMARY KEY,
    title               TEXT NOT NULL CHECK (length(trim(title)) > 0),
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'ingesting', 'ready', 'failed')),
    current_page        INTEGER NOT NULL DEFAULT 0,
    embedding_provider  TEXT,
    embedding_dimension INTEGER,
    created_at          TEXT NOT NULL DEFAULT (datetime('now')),
    updated_at          TEXT NOT NULL DEFAULT (datetime('now'))
);

CREATE TABLE chunks (
    id          TEXT PRIMARY KEY,
    book_id     TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE,
    content     TEXT NOT NULL,
    start_page  INTEGER NOT NULL CHECK (start_page >= 1),
    end_page    INTEGER NOT NULL CHECK (end_page >= start_page),
    chunk_index INTEGER NOT NULL,
    created_at  TEXT NOT NULL DEFAULT (datetime('now'))
);

CREATE INDEX idx_chunks_book_id ON chunks(book_id);
CREATE INDEX idx_chunks_book_page_range ON chunks(book_id, start_page, end_page);

CREATE TABLE conversations (
    id         TEXT PRIMARY KEY,
    book_id    TEXT NOT NULL REFERENCES books(id) ON DELETE CASCADE,
    title      TEXT NOT NULL CHECK (length(trim(title)) > 0),
    created_at TEXT NOT NULL DEFAULT (datetime('now'))
);

CREATE INDEX idx_conversations_book_id ON conversations(book_id);

CREATE TABLE chat_messages (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role            TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool_result')),
    content         TEXT NOT NULL,
    created_at      TEXT NOT NULL DEFAULT (datetime('now'))
);

CREATE INDEX idx_chat_messages_conversation_id ON chat_messages(conversation_id);
