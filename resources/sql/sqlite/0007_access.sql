-- Who may do what (issue 25). SQLite has no accounts: the columns exist so that the code and the
-- views read one schema, and stay '' / 0 / NULL (no separation; docs/security.md).
ALTER TABLE audit_log ADD COLUMN account VARCHAR(128) NOT NULL DEFAULT '';
ALTER TABLE campaign ADD COLUMN created_by VARCHAR(128) NOT NULL DEFAULT '';
ALTER TABLE campaign ADD COLUMN needs_approval INT NOT NULL DEFAULT 0;
ALTER TABLE campaign ADD COLUMN approved_by VARCHAR(128) NULL;
ALTER TABLE campaign ADD COLUMN approved_at_ms BIGINT NULL;
CREATE TABLE IF NOT EXISTS access_policy (
    name VARCHAR(32) NOT NULL,
    value BIGINT NOT NULL,
    PRIMARY KEY (name)
);
-- A grab of a campaign SQL does not hold as launched is refused with a reason of its own
-- ('not_launched'). SQLite cannot change a CHECK: the table is rebuilt. The migration is one
-- transaction here, and each statement is still harmless to repeat after any before it (the
-- first one gives the copy a source again when a run stopped after the DROP).
CREATE TABLE IF NOT EXISTS grab_refused (
    campaign_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    uid INTEGER NOT NULL,
    amount_cents INTEGER NOT NULL,
    reason TEXT NOT NULL CHECK (reason IN ('user_holds', 'taken')),
    refused_at_ms INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, seq, uid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS grab_refused_new (
    campaign_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    uid INTEGER NOT NULL,
    amount_cents INTEGER NOT NULL,
    reason TEXT NOT NULL CHECK (reason IN ('user_holds', 'taken', 'not_launched')),
    refused_at_ms INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, seq, uid)
) WITHOUT ROWID;
INSERT OR IGNORE INTO grab_refused_new SELECT campaign_id, seq, uid, amount_cents, reason, refused_at_ms FROM grab_refused;
DROP TABLE grab_refused;
ALTER TABLE grab_refused_new RENAME TO grab_refused;
