-- Money after Redis lost state (issue 15). A grab Redis handed out that the ledger refused:
-- the user already held another envelope in SQL ('user_holds'), or the envelope was already
-- another user's ('taken'). Such a grab gets no payout; its envelope goes back to the pool.
CREATE TABLE IF NOT EXISTS grab_refused (
    campaign_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    uid INTEGER NOT NULL,
    amount_cents INTEGER NOT NULL,
    reason TEXT NOT NULL CHECK (reason IN ('user_holds', 'taken')),
    refused_at_ms INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, seq, uid)
) WITHOUT ROWID;

-- One payout per user and campaign, whatever the code above it does. A database that already
-- holds a second payout for a user stops here with a duplicate-entry error (docs/decisions.md).
CREATE UNIQUE INDEX IF NOT EXISTS uq_payout_user ON payout (campaign_id, uid);
