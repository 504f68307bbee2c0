-- Merchants, shops and their keys.
CREATE TABLE merchants (
    id          bigserial PRIMARY KEY,
    name        text        NOT NULL,
    created     timestamptz NOT NULL
);

CREATE TABLE shops (
    id                        bigserial PRIMARY KEY,
    merchant_id               bigint      NOT NULL REFERENCES merchants (id),
    name                      text        NOT NULL,
    webhook_url               text,
    return_url                text,
    checkout_timeout_seconds  integer     NOT NULL DEFAULT 1800 CHECK (checkout_timeout_seconds > 0),
    check_withdrawal_balance  boolean     NOT NULL DEFAULT false,
    requires_approval         boolean     NOT NULL DEFAULT false,
    base_currency             text,
    created                   timestamptz NOT NULL
);
CREATE INDEX shops_merchant ON shops (merchant_id);

CREATE TABLE shop_keys (
    id                      bigserial PRIMARY KEY,
    shop_id                 bigint      NOT NULL REFERENCES shops (id),
    environment             text        NOT NULL CHECK (environment IN ('SANDBOX', 'PRODUCTION')),
    api_key_hash            text        NOT NULL UNIQUE,
    api_key_prefix          text        NOT NULL,
    signing_key_ciphertext  bytea       NOT NULL,
    created                 timestamptz NOT NULL,
    revoked                 timestamptz
);
CREATE UNIQUE INDEX shop_keys_one_active ON shop_keys (shop_id, environment) WHERE revoked IS NULL;

-- Payments and the operations that moved them.
CREATE TABLE payments (
    id                     char(32)       PRIMARY KEY,
    shop_id                bigint         NOT NULL REFERENCES shops (id),
    payment_type           text           NOT NULL,
    state                  text           NOT NULL,
    payment_method         text           NOT NULL,
    amount                 numeric(38, 18) NOT NULL,
    currency               text           NOT NULL,
    customer_amount        numeric(38, 18),
    customer_currency      text,
    reference_id           text,
    description            text,
    parent_payment_id      char(32)       REFERENCES payments (id),
    pre_auth               boolean        NOT NULL,
    card                   jsonb,
    customer               jsonb,
    billing_address        jsonb,
    return_url             text,
    webhook_url            text,
    additional_parameters  jsonb          NOT NULL DEFAULT '{}',
    error_code             text,
    error_message          text,
    external_id            text,
    external_result_code   text,
    external_refs          jsonb          NOT NULL DEFAULT '{}',
    terminal_name          text,
    created                timestamptz    NOT NULL,
    updated                timestamptz    NOT NULL,
    version                bigint         NOT NULL
);
CREATE INDEX payments_shop_created ON payments (shop_id, created DESC, id DESC);
CREATE INDEX payments_shop_updated ON payments (shop_id, updated DESC, id DESC);
CREATE INDEX payments_shop_reference ON payments (shop_id, reference_id);
CREATE INDEX payments_parent ON payments (parent_payment_id) WHERE parent_payment_id IS NOT NULL;
CREATE INDEX payments_state_updated ON payments (state, updated);

CREATE TABLE payment_operations (
    id             bigserial   PRIMARY KEY,
    payment_id     char(32)    NOT NULL REFERENCES payments (id),
    shop_id        bigint      NOT NULL,
    operation      text        NOT NULL,
    started        timestamptz NOT NULL,
    completed      timestamptz NOT NULL,
    payment_state  text        NOT NULL,
    error_code     text,
    details        text
);
CREATE INDEX payment_operations_payment ON payment_operations (payment_id, id DESC);
CREATE INDEX payment_operations_shop_completed ON payment_operations (shop_id, completed DESC, id DESC);

-- Which request an Idempotency-Key was first used for (fingerprint is a keyed digest).
CREATE TABLE idempotency_keys (
    shop_id          bigint      NOT NULL,
    idempotency_key  text        NOT NULL,
    fingerprint      text        NOT NULL,
    payment_id       char(32),
    created          timestamptz NOT NULL,
    PRIMARY KEY (shop_id, idempotency_key)
);

-- Card numbers, encrypted with the master key, behind per-shop tokens.
CREATE TABLE card_vault (
    shop_id         bigint      NOT NULL,
    token           char(32)    NOT NULL,
    fingerprint     text        NOT NULL,
    pan_ciphertext  bytea       NOT NULL,
    created         timestamptz NOT NULL,
    PRIMARY KEY (shop_id, token),
    UNIQUE (shop_id, fingerprint)
);
