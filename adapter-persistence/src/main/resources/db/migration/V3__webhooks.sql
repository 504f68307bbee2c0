-- The transactional outbox: one event per state change the merchant is told about, written in
-- the transaction of that change, and delivered by any number of dispatchers.
CREATE TABLE webhook_events (
    id               uuid        PRIMARY KEY,
    seq              bigserial   NOT NULL UNIQUE,
    payment_id       char(32)    NOT NULL REFERENCES payments (id),
    shop_id          bigint      NOT NULL REFERENCES shops (id),
    payment_state    text        NOT NULL,
    target_url       text,
    body             bytea       NOT NULL,
    status           text        NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
    attempts         integer     NOT NULL DEFAULT 0,
    failures_in_row  integer     NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL,
    lease_token      text,
    lease_until      timestamptz,
    created          timestamptz NOT NULL,
    finished         timestamptz
);
-- Dispatchers look for due pending events, oldest first ...
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at, seq) WHERE status = 'PENDING';
-- ... and keep each payment's events in order.
CREATE INDEX webhook_events_payment ON webhook_events (payment_id, seq);

CREATE TABLE webhook_attempts (
    id             bigserial   PRIMARY KEY,
    event_id       uuid        NOT NULL REFERENCES webhook_events (id),
    payment_id     char(32)    NOT NULL,
    payment_state  text        NOT NULL,
    attempt        integer     NOT NULL,
    url            text,
    started        timestamptz NOT NULL,
    duration_ms    bigint      NOT NULL,
    status_code    integer,
    error          text,
    event_status   text        NOT NULL
);
CREATE INDEX webhook_attempts_payment ON webhook_attempts (payment_id, id DESC);
