-- What the first request with a key was answered: the payment's row as it stood then, so that a
-- replay answers the same (a retry after a lost response gets the deposit's redirectUrl back,
-- though the payment has moved on). NULL for keys completed before this column existed.
ALTER TABLE idempotency_keys ADD COLUMN answer jsonb;
