-- The jobs for awaited bank transfers and for card deposits whose terminal has not answered
-- both look for PENDING deposits of one method. Keyed on type and state alone, each read every
-- PENDING deposit older than its bound, of either method, from the table every half second:
-- all the bank transfers still awaited for the card job, every 3-D Secure challenge still open
-- for the transfer job. With the method in the key each reads only its own. The rows indexed
-- are the same as before, so a payment's write maintains no more than it did.
CREATE INDEX payments_due_by_method ON payments (payment_type, state, payment_method, updated)
    WHERE state IN ('PENDING', 'CHECKOUT');
DROP INDEX payments_due;
