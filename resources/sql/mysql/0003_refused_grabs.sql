-- Money after Redis lost state (issue 15). A grab Redis handed out that the ledger refused:
-- the user already held another envelope in SQL ('user_holds'), or the envelope was already
-- another user's ('taken'). Such a grab gets no payout; its envelope goes back to the pool.
CREATE TABLE IF NOT EXISTS grab_refused (
    campaign_id BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    uid BIGINT NOT NULL,
    amount_cents BIGINT NOT NULL,
    reason VARCHAR(16) NOT NULL,
    refused_at_ms BIGINT NOT NULL,
    PRIMARY KEY (campaign_id, seq, uid),
    CONSTRAINT chk_grab_refused_reason CHECK (reason IN ('user_holds', 'taken'))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- One payout per user and campaign, whatever the code above it does. A database that already
-- holds a second payout for a user stops here with a duplicate-entry error (docs/decisions.md).
-- Plain ADD UNIQUE KEY, which MySQL 8 takes as well as MariaDB: the migrator skips it when the
-- index exists (a rerun after a crash before this version was recorded).
ALTER TABLE payout ADD UNIQUE KEY uq_payout_user (campaign_id, uid);
