SET client_min_messages = warning;
DROP SCHEMA IF EXISTS bench_ceiling CASCADE;
CREATE SCHEMA bench_ceiling;
CREATE TABLE bench_ceiling.payments (
    id char(32) PRIMARY KEY, shop_id bigint NOT NULL, payment_type text NOT NULL, state text NOT NULL,
    payment_method text NOT NULL, amount numeric(38, 18) NOT NULL, currency text NOT NULL, reference_id text,
    description text, pre_auth boolean NOT NULL, card jsonb, customer jsonb, return_url text, webhook_url text,
    terminal_name text, created timestamptz NOT NULL, updated timestamptz NOT NULL);
CREATE INDEX ON bench_ceiling.payments (shop_id, created DESC, id DESC);
CREATE TABLE bench_ceiling.operations (
    id bigserial PRIMARY KEY, payment_id char(32) NOT NULL REFERENCES bench_ceiling.payments (id), shop_id bigint NOT NULL,
    operation text NOT NULL, started timestamptz NOT NULL, completed timestamptz NOT NULL, payment_state text NOT NULL);
CREATE INDEX ON bench_ceiling.operations (payment_id, id DESC);
CREATE TABLE bench_ceiling.outbox (
    id uuid PRIMARY KEY, seq bigserial, payment_id char(32) NOT NULL, shop_id bigint NOT NULL, payment_state text NOT NULL,
    body bytea NOT NULL, status text NOT NULL DEFAULT 'PENDING', next_attempt_at timestamptz NOT NULL,
    created timestamptz NOT NULL);
CREATE INDEX ON bench_ceiling.outbox (next_attempt_at, seq) WHERE status = 'PENDING';
CREATE TABLE bench_ceiling.balances (shop_id bigint PRIMARY KEY, available numeric(38, 18) NOT NULL DEFAULT 0);
INSERT INTO bench_ceiling.balances (shop_id) SELECT generate_series(1, 10);
