-- An Idempotency-Key is remembered for 24 hours (PaymentService.IDEMPOTENCY_WINDOW); its row
-- was kept for good, the digest of its first request with it. Rows past that are now deleted
-- by the background jobs, in creation order, through this index; those already past it go now,
-- among them digests made before the card's security code was left out of them.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created);

DELETE FROM idempotency_keys WHERE created < now() - interval '24 hours';
