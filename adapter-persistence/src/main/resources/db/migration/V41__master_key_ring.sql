-- The master keys that open this database's secrets. The secrets (signing keys, card numbers and
-- the keyed digests that find them) are sealed under a data key; each row holds that data key
-- sealed under one master key, named by a keyed digest of it (never the key). Rotating the master
-- key adds a row for the new key, and retiring the old one deletes its row, so that the old key
-- no longer opens anything. A database that kept secrets before this table has its first master
-- key as its data key (first_master_key_id names it): rotating would not stop that key, so it is
-- refused there. A database created from here on has a random data key of its own.
CREATE TABLE master_key_ring (
    key_id    text        PRIMARY KEY,
    wrapped   bytea       NOT NULL,
    added     timestamptz NOT NULL,
    -- the order the keys were added in: retiring keeps a key and the ones added after it
    position  bigint      GENERATED ALWAYS AS IDENTITY UNIQUE
);

ALTER TABLE master_key_check ADD COLUMN first_master_key_id text;
