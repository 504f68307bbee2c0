-- Which master key this database's secrets (signing keys, card numbers) are sealed with: a keyed
-- digest of a constant under it, never the key. A process that starts with another key (a CLI run
-- from another directory, a second instance with its own data directory, a mistyped
-- TOLLGATE_MASTER_KEY) is refused before it seals anything the others cannot open.
CREATE TABLE master_key_check (
    only_row  boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    digest    text        NOT NULL,
    created   timestamptz NOT NULL
);
