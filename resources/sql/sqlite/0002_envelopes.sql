-- Red-envelope campaigns. Idempotency comes from business keys: (campaign, seq) for envelopes and
-- grabs, (campaign, uid) so a user holds at most one, and the payout's idempotency key.
CREATE TABLE IF NOT EXISTS campaign (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    total_cents INTEGER NOT NULL,
    count INTEGER NOT NULL,
    min_cents INTEGER NOT NULL,
    algorithm TEXT NOT NULL,
    seed TEXT NOT NULL,
    max_attempts INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'live', 'paused', 'closed')),
    refunded_cents INTEGER NOT NULL DEFAULT 0,
    created_at_ms INTEGER NOT NULL,
    CHECK (count >= 1 AND min_cents >= 1 AND total_cents >= count * min_cents)
);

CREATE TABLE IF NOT EXISTS envelope (
    campaign_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    amount_cents INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, seq)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS grab (
    campaign_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    uid INTEGER NOT NULL,
    amount_cents INTEGER NOT NULL,
    grabbed_at_ms INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, seq),
    UNIQUE (campaign_id, uid)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS payout (
    idempotency_key TEXT NOT NULL PRIMARY KEY,
    campaign_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    uid INTEGER NOT NULL,
    amount_cents INTEGER NOT NULL,
    status TEXT NOT NULL,
    provider_ref TEXT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    updated_at_ms INTEGER NOT NULL,
    UNIQUE (campaign_id, seq)
) WITHOUT ROWID;
