-- Sub-pools (issue 10): a campaign's envelopes may be dealt into K pools whose Redis keys land on
-- different masters of a Redis Cluster. The pools' names are chosen at the first launch and kept
-- in Redis (the first pool's meta) and here, so a repair from the ledger finds them even when
-- Redis lost them. One column per statement, no IF NOT EXISTS (MySQL 8 has none): the migrator
-- skips a column that exists.
ALTER TABLE campaign ADD COLUMN pools INT NOT NULL DEFAULT 1;
ALTER TABLE campaign ADD COLUMN pool_names VARCHAR(1400) NOT NULL DEFAULT '';
