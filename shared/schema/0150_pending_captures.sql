-- 0150_pending_captures.sql
-- A capture line whose book was ambiguous waits here for the line that
-- settles it (a candidate's number, title or author). Each ambiguous line is
-- its own row; an answer claims one row and deletes it in the same write
-- transaction that stores the capture, so one answer applies one pending line
-- exactly once, however many ib-capture processes run at the same time.
CREATE TABLE pending_captures (
    id          INTEGER PRIMARY KEY,
    line        TEXT NOT NULL,
    candidates  TEXT NOT NULL,               -- JSON array of book ids, in the order listed
    created_at  REAL NOT NULL                -- seconds since 1970 (ib-capture --now)
);
CREATE INDEX idx_pending_captures_created ON pending_captures(created_at);
