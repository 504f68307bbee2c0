-- When a background job last looked at a payment and left it as it was: a bank transfer the bank
-- still awaits, or a step that failed. The jobs take their due payments oldest first; without
-- this, fifty transfers that are never paid, or fifty payouts whose step keeps failing, were
-- the oldest on every run and kept every later one (a transfer that was paid, a payout) from
-- being looked at. NULL for a payment no job has left as it was. Not indexed: the jobs read the
-- few payments still pending through payments_due.
ALTER TABLE payments ADD COLUMN checked timestamptz;
