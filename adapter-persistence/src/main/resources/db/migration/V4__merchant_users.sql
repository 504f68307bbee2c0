-- Merchant staff who sign in to the merchant API with HTTP Basic.
CREATE TABLE merchant_users (
    id             bigserial   PRIMARY KEY,
    merchant_id    bigint      NOT NULL REFERENCES merchants (id),
    email          text        NOT NULL UNIQUE CHECK (email = lower(email)),
    password_hash  text        NOT NULL,
    permissions    text[]      NOT NULL DEFAULT '{}',
    created        timestamptz NOT NULL
);
CREATE INDEX merchant_users_merchant ON merchant_users (merchant_id);
