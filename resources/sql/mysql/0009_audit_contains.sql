-- The Audit log view's "who contains" and "target contains" filters (issue 26) cannot use an
-- index to find their rows (LIKE '%text%'): a page in time order walks the log from its newest
-- row until it has found a page. This index holds what those filters test after the time order
-- (at_ms, id: the page's order, which an index on (at_ms, actor, target) would not give), so the
-- walk reads index entries only and the page's rows are fetched by id after it (AuditQuery: a
-- deferred join). Plain CREATE INDEX (MySQL 8 has no IF NOT EXISTS there): the
-- migrator skips an index that exists.
CREATE INDEX idx_audit_at_who ON audit_log (at_ms, id, actor, target);
