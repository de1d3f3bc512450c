-- Check-in log and points ledger. Idempotency comes from business keys (DESIGN §3).
CREATE TABLE IF NOT EXISTS checkin_log (
    uid BIGINT NOT NULL,
    day DATE NOT NULL,
    kind VARCHAR(8) NOT NULL,
    points INT NOT NULL DEFAULT 0,
    operator VARCHAR(64) NULL,
    reason VARCHAR(255) NULL,
    signed_at BIGINT NOT NULL,
    persisted_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (uid, day),
    KEY idx_checkin_day (day),
    CONSTRAINT chk_checkin_kind CHECK (kind IN ('normal', 'makeup'))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS points_ledger (
    ref VARCHAR(96) NOT NULL,
    uid BIGINT NOT NULL,
    delta BIGINT NOT NULL,
    source VARCHAR(16) NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (ref),
    KEY idx_ledger_uid (uid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS audit_log (
    id BIGINT NOT NULL AUTO_INCREMENT,
    at_ms BIGINT NOT NULL,
    actor VARCHAR(64) NOT NULL,
    action VARCHAR(32) NOT NULL,
    target VARCHAR(128) NOT NULL,
    detail TEXT NOT NULL,
    PRIMARY KEY (id),
    KEY idx_audit_at (at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
