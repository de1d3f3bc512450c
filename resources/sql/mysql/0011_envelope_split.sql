-- A campaign's split as its launch wrote it (issue 26): how many envelopes, what they sum to,
-- the smallest, the first and last seq, and the envelope watch (0008) as it stood. The launch
-- writes it in the transaction that inserts the envelope rows (CampaignStore), so a console
-- opening a campaign of a million envelopes judges DESIGN §4's rule 1 from one row and three
-- index look-ups instead of a pass over the rows: it trusts the row only while no envelope was
-- updated or deleted since (the watch unchanged) and the seqs run without a gap from its first
-- to its last (an envelope inserted later moves one of them). `lanternd verify` still reads
-- every envelope row and reports a recorded split that differs from them.
CREATE TABLE IF NOT EXISTS envelope_split (
    campaign_id BIGINT NOT NULL,
    envelopes BIGINT NOT NULL,
    envelope_cents BIGINT NOT NULL,
    smallest_cents BIGINT NOT NULL,
    first_seq BIGINT NOT NULL,
    last_seq BIGINT NOT NULL,
    watch_changes BIGINT NOT NULL,
    PRIMARY KEY (campaign_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
-- An upgraded database: the splits it holds, read once (IGNORE: a rerun after a crash before
-- this version was recorded finds them written).
INSERT IGNORE INTO envelope_split (campaign_id, envelopes, envelope_cents, smallest_cents, first_seq, last_seq, watch_changes)
SELECT campaign_id, COUNT(*), SUM(amount_cents), MIN(amount_cents), MIN(seq), MAX(seq),
       (SELECT changes FROM ledger_watch WHERE name = 'envelope')
FROM envelope GROUP BY campaign_id;
