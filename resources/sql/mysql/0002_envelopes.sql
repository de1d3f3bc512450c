-- Red-envelope campaigns. Idempotency comes from business keys: (campaign, seq) for envelopes and
-- grabs, (campaign, uid) so a user holds at most one, and the payout's idempotency key.
CREATE TABLE IF NOT EXISTS campaign (
    id BIGINT NOT NULL AUTO_INCREMENT,
    name VARCHAR(128) NOT NULL,
    total_cents BIGINT NOT NULL,
    count BIGINT NOT NULL,
    min_cents BIGINT NOT NULL,
    algorithm VARCHAR(16) NOT NULL,
    seed BIGINT UNSIGNED NOT NULL,
    max_attempts INT NOT NULL,
    status VARCHAR(8) NOT NULL,
    refunded_cents BIGINT NOT NULL DEFAULT 0,
    created_at_ms BIGINT NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT chk_campaign_status CHECK (status IN ('draft', 'live', 'paused', 'closed')),
    CONSTRAINT chk_campaign_amounts CHECK (count >= 1 AND min_cents >= 1 AND total_cents >= count * min_cents)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS envelope (
    campaign_id BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    amount_cents BIGINT NOT NULL,
    PRIMARY KEY (campaign_id, seq)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS grab (
    campaign_id BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    uid BIGINT NOT NULL,
    amount_cents BIGINT NOT NULL,
    grabbed_at_ms BIGINT NOT NULL,
    PRIMARY KEY (campaign_id, seq),
    UNIQUE KEY uq_grab_user (campaign_id, uid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS payout (
    idempotency_key VARCHAR(96) NOT NULL,
    campaign_id BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    uid BIGINT NOT NULL,
    amount_cents BIGINT NOT NULL,
    status VARCHAR(8) NOT NULL,
    provider_ref VARCHAR(128) NULL,
    attempts INT NOT NULL DEFAULT 0,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (idempotency_key),
    UNIQUE KEY uq_payout_envelope (campaign_id, seq)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
