-- 0100_capture.sql
-- ib-capture's additions: where each book stands for the reader (reading,
-- want, added, finished) and when it was last active, which picks the
-- current book; plan pacing; a date index for streaks and pages per day.

CREATE TABLE reading_state (
    book_id     TEXT PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
    state       TEXT NOT NULL CHECK (state IN ('reading', 'want', 'added', 'finished')),
    started_at  TEXT,
    finished_at TEXT,
    active_at   TEXT NOT NULL                -- last capture for this book (ISO-8601 UTC)
);
CREATE INDEX idx_reading_state_active ON reading_state(state, active_at);

CREATE INDEX idx_progress_events_created ON progress_events(created_at);

-- pages_at_start: pages left in the plan's books when it was made;
-- daily_pages: the pace it asked for then (or the reader's daily goal).
ALTER TABLE reading_plans ADD COLUMN start_date TEXT;
ALTER TABLE reading_plans ADD COLUMN pages_at_start INTEGER;
ALTER TABLE reading_plans ADD COLUMN daily_pages INTEGER;
