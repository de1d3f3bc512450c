-- Campaigns on a timetable (issue 30): a campaign's launch and close at set times, run by the
-- workers exactly once. One row per campaign and transition; the row leaves 'pending' in the
-- transaction that makes the transition and writes its audit row ('done'), or in the one that
-- gives it up ('missed': too late for its late limit, or the campaign can no longer make it).
-- Times are Redis TIME in ms; prepared_at_ms: when a worker had written the envelopes to SQL
-- ahead of the launch.
CREATE TABLE IF NOT EXISTS campaign_schedule (
    campaign_id INTEGER NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('launch', 'close')),
    due_at_ms INTEGER NOT NULL,
    late_limit_s INTEGER NULL,
    scheduled_by TEXT NOT NULL,
    scheduled_at_ms INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'missed')),
    prepared_at_ms INTEGER NULL,
    done_at_ms INTEGER NULL,
    late_ms INTEGER NULL,
    reason TEXT NULL,
    PRIMARY KEY (campaign_id, action)
);

CREATE INDEX IF NOT EXISTS idx_schedule_due ON campaign_schedule (state, due_at_ms);
