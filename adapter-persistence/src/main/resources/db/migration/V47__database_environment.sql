-- The environment this database serves, sandbox or production, recorded by the first server that
-- starts on it (on a database from before this table, the first that starts after the upgrade).
-- Payments, balances, the webhook outbox and the background jobs' queues keep no environment of
-- their own: a sandbox server started on a production database read its payments with sandbox
-- keys, paid its withdrawals and refunds through the sandbox acquirer (no money moved) and sent
-- its webhooks under the sandbox's permissive address policy. A server of the other environment
-- now refuses to start, and the command line refuses to act in it. The command line records
-- nothing: an operator may provision a new database before its first server starts.
CREATE TABLE database_environment (
    only_row     boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    environment  text        NOT NULL CHECK (environment IN ('SANDBOX', 'PRODUCTION')),
    recorded     timestamptz NOT NULL
);
