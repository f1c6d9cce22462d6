-- 0180_progress_by_time.sql
-- Progress by time in an audiobook (issue 31): "listened to 2:15:00 of
-- Persuasion" stores the position reached, in seconds from the start of the
-- audio, on its progress event (kind 'time'). NULL on every other event.

ALTER TABLE progress_events ADD COLUMN seconds REAL;
