-- Every movement of a shop's money, and the running balance per shop and currency.
CREATE TABLE ledger_entries (
    id          bigserial       PRIMARY KEY,
    shop_id     bigint          NOT NULL REFERENCES shops (id),
    currency    text            NOT NULL,
    available   numeric(38, 18) NOT NULL,
    reserved    numeric(38, 18) NOT NULL,
    payment_id  char(32)        REFERENCES payments (id),
    reason      text            NOT NULL,
    created     timestamptz     NOT NULL
);
CREATE INDEX ledger_entries_shop ON ledger_entries (shop_id, currency, id);
CREATE INDEX ledger_entries_payment ON ledger_entries (payment_id);

CREATE TABLE balances (
    shop_id    bigint          NOT NULL REFERENCES shops (id),
    currency   text            NOT NULL,
    available  numeric(38, 18) NOT NULL DEFAULT 0,
    reserved   numeric(38, 18) NOT NULL DEFAULT 0,
    updated    timestamptz     NOT NULL,
    PRIMARY KEY (shop_id, currency)
);

-- The background jobs look for pending payouts and waiting deposits by type and state.
CREATE INDEX payments_due ON payments (payment_type, state, updated) WHERE state IN ('PENDING', 'CHECKOUT');
