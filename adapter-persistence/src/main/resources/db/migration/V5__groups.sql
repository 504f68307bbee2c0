-- A merchant's entry groups (BIN, e-mail, card, country, error code) and their entries.
CREATE TABLE entry_groups (
    id           bigserial   PRIMARY KEY,
    merchant_id  bigint      NOT NULL REFERENCES merchants (id),
    kind         text        NOT NULL CHECK (kind IN ('BIN', 'EMAIL', 'CARD', 'COUNTRY', 'ERROR_CODE')),
    name         text        NOT NULL,
    -- card groups: true holds masked numbers, false holds full PANs as keyed fingerprints
    masked       boolean     NOT NULL DEFAULT false,
    created      timestamptz NOT NULL,
    UNIQUE (merchant_id, kind, name)
);
CREATE INDEX entry_groups_list ON entry_groups (merchant_id, kind, id);

-- value: what matching compares (a PAN's keyed fingerprint for plain card groups);
-- display: what the merchant API shows (never a PAN in clear).
CREATE TABLE group_entries (
    group_id  bigint      NOT NULL REFERENCES entry_groups (id) ON DELETE CASCADE,
    value     text        NOT NULL,
    display   text        NOT NULL,
    added     timestamptz NOT NULL,
    PRIMARY KEY (group_id, value)
);
CREATE INDEX group_entries_page ON group_entries (group_id, display, value);
