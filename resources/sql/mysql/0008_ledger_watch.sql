-- What the ledger check may keep between refreshes (issue 26). Lantern inserts envelopes at a
-- launch and never updates or deletes one; these triggers count every envelope row that is
-- updated or deleted all the same (by hand, by a script), so a view that keeps a campaign's
-- split between refreshes reads it again after any such change (CampaignFigures::keepSplits).
-- An envelope inserted later moves the campaign's first or last seq, which the view reads too.
CREATE TABLE IF NOT EXISTS ledger_watch (
    name VARCHAR(16) NOT NULL,
    changes BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT IGNORE INTO ledger_watch (name, changes) VALUES ('envelope', 0);
DROP TRIGGER IF EXISTS trg_envelope_updated;
CREATE TRIGGER trg_envelope_updated AFTER UPDATE ON envelope FOR EACH ROW UPDATE ledger_watch SET changes = changes + 1 WHERE name = 'envelope';
DROP TRIGGER IF EXISTS trg_envelope_deleted;
CREATE TRIGGER trg_envelope_deleted AFTER DELETE ON envelope FOR EACH ROW UPDATE ledger_watch SET changes = changes + 1 WHERE name = 'envelope';
