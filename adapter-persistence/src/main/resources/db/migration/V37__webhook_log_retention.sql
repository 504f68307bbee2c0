-- The webhook delivery log is kept for a set time (TOLLGATE_WEBHOOK_LOG_RETENTION), not for ever:
-- its attempts, and the settled events a newer event of the same payment has replaced. Each
-- payment's newest event stays, so that it can still be sent again.

-- How far the pruning has looked through the events (by seq), so that it never reads again the
-- ones it kept.
CREATE TABLE maintenance_positions (
    job      text   PRIMARY KEY,
    position bigint NOT NULL
);

-- Deleting an event checks that no attempt refers to it: without this index each check reads
-- the whole attempts table. On a large delivery log it takes a while to build, during the
-- start and before the new version serves (with the older version stopped, as upgrades are).
CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id);
