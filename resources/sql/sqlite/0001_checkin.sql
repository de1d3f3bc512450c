-- Check-in log and points ledger. Idempotency comes from business keys (DESIGN §3).
CREATE TABLE IF NOT EXISTS checkin_log (
    uid INTEGER NOT NULL,
    day TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('normal', 'makeup')),
    points INTEGER NOT NULL DEFAULT 0,
    operator TEXT NULL,
    reason TEXT NULL,
    signed_at INTEGER NOT NULL,
    persisted_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (uid, day)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS idx_checkin_day ON checkin_log (day);

CREATE TABLE IF NOT EXISTS points_ledger (
    ref TEXT NOT NULL PRIMARY KEY,
    uid INTEGER NOT NULL,
    delta INTEGER NOT NULL,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS idx_ledger_uid ON points_ledger (uid);

CREATE TABLE IF NOT EXISTS audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    detail TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS idx_audit_at ON audit_log (at_ms);
