-- A capture or a void is committed as asked before its terminal is asked, and stays asked until
-- the terminal's answer is stored: a request cut short after the terminal captured (the service
-- stopped, the database went away before the answer's commit) left the payment AUTHORIZED with
-- nothing to tell that its money had been taken, and a void after it released nothing. What was
-- asked (the amount to capture, in the payment's currency and, for a payment asked in another,
-- in that one) and when is what the job for unanswered captures and voids asks the terminal
-- again, once its answer is overdue.
ALTER TABLE payments
  ADD COLUMN asked_operation text CHECK (asked_operation IN ('CAPTURE', 'VOID')),
  ADD COLUMN asked_amount numeric,
  ADD COLUMN asked_customer_amount numeric,
  ADD COLUMN asked_at timestamptz,
  ADD CONSTRAINT payments_asked_when CHECK ((asked_operation IS NULL) = (asked_at IS NULL));

-- A step its terminal first left unanswered stays with the payment it completed or cancelled, so
-- that the request made again, as its merchant was told to, is answered that payment: the few
-- still AUTHORIZED are the ones the job and the gauge of unanswered payments look for.
CREATE INDEX payments_asked ON payments (asked_at) WHERE asked_operation IS NOT NULL AND state = 'AUTHORIZED';
