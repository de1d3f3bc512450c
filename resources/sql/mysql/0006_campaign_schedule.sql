-- Campaigns on a timetable (issue 30): a campaign's launch and close at set times, run by the
-- workers exactly once. One row per campaign and transition; the row leaves 'pending' in the
-- transaction that makes the transition and writes its audit row ('done'), or in the one that
-- gives it up ('missed': too late for its late limit, or the campaign can no longer make it).
-- Times are Redis TIME in ms; prepared_at_ms: when a worker had written the envelopes to SQL
-- ahead of the launch. Plain CREATE INDEX (MySQL 8 has no IF NOT EXISTS there): the migrator
-- skips an index that exists.
CREATE TABLE IF NOT EXISTS campaign_schedule (
    campaign_id BIGINT NOT NULL,
    action VARCHAR(8) NOT NULL,
    due_at_ms BIGINT NOT NULL,
    late_limit_s BIGINT NULL,
    scheduled_by VARCHAR(64) NOT NULL,
    scheduled_at_ms BIGINT NOT NULL,
    state VARCHAR(8) NOT NULL DEFAULT 'pending',
    prepared_at_ms BIGINT NULL,
    done_at_ms BIGINT NULL,
    late_ms BIGINT NULL,
    reason VARCHAR(255) NULL,
    PRIMARY KEY (campaign_id, action),
    CONSTRAINT chk_schedule_action CHECK (action IN ('launch', 'close')),
    CONSTRAINT chk_schedule_state CHECK (state IN ('pending', 'done', 'missed'))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE INDEX idx_schedule_due ON campaign_schedule (state, due_at_ms);
