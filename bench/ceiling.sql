-- S5: the database's own ceiling for what one completed payment writes: one payment row
-- (17 columns, two JSON), two operation rows, one outbox event and one balance update.
\set shop random(1, 10)
\set n random(1, 1000000000000)
BEGIN;
INSERT INTO bench_ceiling.payments (id, shop_id, payment_type, state, payment_method, amount, currency,
    reference_id, description, pre_auth, card, customer, return_url, webhook_url, terminal_name, created, updated)
VALUES (md5(:client_id || '-' || :n), :shop, 'DEPOSIT', 'COMPLETED', 'BASIC_CARD', 12.34, 'EUR',
    'bench-ref', 'bench payment', false,
    '{"maskedNumber":"400000******0408","cardToken":"0123456789abcdef0123456789abcdef","brand":"VISA"}',
    '{"referenceId":"c-1","email":"bench@example.com"}', NULL, 'http://127.0.0.1:9/hook', 'Sandbox', now(), now());
INSERT INTO bench_ceiling.operations (payment_id, shop_id, operation, started, completed, payment_state)
VALUES (md5(:client_id || '-' || :n), :shop, 'CREATE_PAYMENT', now(), now(), 'CHECKOUT');
INSERT INTO bench_ceiling.operations (payment_id, shop_id, operation, started, completed, payment_state)
VALUES (md5(:client_id || '-' || :n), :shop, 'DEPOSIT', now(), now(), 'COMPLETED');
INSERT INTO bench_ceiling.outbox (id, payment_id, shop_id, payment_state, body, next_attempt_at, created)
VALUES (gen_random_uuid(), md5(:client_id || '-' || :n), :shop, 'COMPLETED', '\x7b7d', now(), now());
UPDATE bench_ceiling.balances SET available = available + 12.34 WHERE shop_id = :shop;
END;
