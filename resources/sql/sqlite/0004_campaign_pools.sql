-- Sub-pools (issue 10): a campaign's envelopes may be dealt into K pools whose Redis keys land on
-- different masters of a Redis Cluster. The pools' names are chosen at launch and kept in Redis;
-- SQL keeps how many were asked for.
ALTER TABLE campaign ADD COLUMN pools INTEGER NOT NULL DEFAULT 1;
