-- The merchant list's payments for S3: :rows deposits of the demo shop, one a second back from
-- now, or one per :spacing when given. Used by bench/run.sh and bench/ab.sh
-- (psql -v rows=N [-v spacing="'1 millisecond'"] -f bench/seed-list.sql).
\if :{?spacing}
\else
\set spacing '\'1 second\''
\endif
INSERT INTO payments (id, shop_id, payment_type, state, payment_method, amount, currency, pre_auth, created, updated, version)
SELECT md5('seed' || i), 1, 'DEPOSIT', (ARRAY['COMPLETED','DECLINED','CANCELLED'])[1 + i % 3], 'BASIC_CARD',
       1 + i % 1000, 'EUR', false, now() - i * interval :spacing, now() - i * interval :spacing, 1
FROM generate_series(1, :rows) i;
-- What autovacuum would have done by the time a table is this big: the visibility map lets
-- the list's index-only scan skip the heap.
VACUUM ANALYZE payments;
-- And the pages the seeding dirtied are written out now, not by a checkpoint in the middle of
-- the measurement.
CHECKPOINT;
