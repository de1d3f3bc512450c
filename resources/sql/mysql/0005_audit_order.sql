-- The Audit log view sorts the whole log by who, action or target (issue 14) and pages it by
-- keyset: (column, id) past the last row shown. These indexes serve that order and that
-- predicate, so a page costs the same far down the log as at its start. Time order uses
-- idx_audit_at (at_ms, with the primary key after it). Plain CREATE INDEX (MySQL 8 has no IF NOT
-- EXISTS there): the migrator skips an index that exists.
CREATE INDEX idx_audit_actor ON audit_log (actor, id);
CREATE INDEX idx_audit_action ON audit_log (action, id);
CREATE INDEX idx_audit_target ON audit_log (target, id);
