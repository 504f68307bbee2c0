-- S4's offered load: pgbench runs this at a fixed rate (-R), each run writing one outbox event
-- as a payment's completion would, a copy of one of S1's real events under a new id, so the
-- dispatcher signs and delivers it like any other. :sources is the number of rows in
-- bench_s4_sources (made by run.sh from S1's events).
\set n random(1, :sources)
INSERT INTO webhook_events (id, payment_id, shop_id, payment_state, target_url, body, next_attempt_at, created)
SELECT gen_random_uuid(), payment_id, shop_id, payment_state, target_url, body, clock_timestamp(), clock_timestamp()
FROM bench_s4_sources WHERE n = :n;
