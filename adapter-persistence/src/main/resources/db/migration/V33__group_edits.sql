-- Who changed which group, when, and how: the entry groups are the anti-fraud rules' lists
-- (a card let through a blacklist, an e-mail taken off it), and shop groups scope the merchant
-- users who report on them, so every change that took effect is kept, with the user who made
-- it. An edit that changed nothing (an entry already there, or not there to remove) leaves no
-- row. Entries are kept as the merchant API shows them: a card number masked, never in clear.
-- Rows are only ever added.
CREATE TABLE group_edits (
    id           bigserial   PRIMARY KEY,
    merchant_id  bigint      NOT NULL REFERENCES merchants (id),
    -- an entry group's kind, or SHOP for a shop group (whose ids are counted apart)
    group_kind   text        NOT NULL CHECK (group_kind IN ('BIN', 'EMAIL', 'CARD', 'COUNTRY', 'ERROR_CODE', 'SHOP')),
    group_id     bigint      NOT NULL,
    action       text        NOT NULL CHECK (action IN ('ADD', 'REMOVE')),
    entries      text[]      NOT NULL,
    edited_by    text        NOT NULL,
    edited       timestamptz NOT NULL
);
CREATE INDEX group_edits_merchant ON group_edits (merchant_id, id);
