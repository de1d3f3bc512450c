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
