-- Whether a request with the key changed its payment, written in the transaction of the change:
-- a keyed action that failed or was cut short is answered on its retry with the payment only
-- then. Judged by the payment's time of change, another request's change made meanwhile (a void
-- without a key while a capture with one was cut short) was replayed as the key's own.
ALTER TABLE idempotency_keys ADD COLUMN acted boolean NOT NULL DEFAULT false;

-- The key of the request that asked the capture or void (V44), if it had one: the terminal's
-- answer, stored later by the job or by a request asking the same step again, is that request's
-- change.
ALTER TABLE payments ADD COLUMN asked_key text;
