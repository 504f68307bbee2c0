-- A withdrawal routed to a terminal in another currency is paid out of the balance in that
-- currency from this version on, as a converted deposit is credited to it: the step that routes
-- it there gives back what it held in the currency it was asked in and holds its converted
-- amount instead. Until now it held, and was paid out of, the currency it was asked in.
-- The converted withdrawals still pending are moved here as the routing step now moves them,
-- so that each is paid out, or released, in the currency it holds. Those that ended before
-- stay as they were booked.
WITH moved AS (
    SELECT id, shop_id, customer_currency, customer_amount, currency, amount
      FROM payments
     WHERE payment_type = 'WITHDRAWAL' AND state = 'PENDING'
       AND customer_currency IS NOT NULL AND customer_currency <> currency
),
entries AS (
    INSERT INTO ledger_entries (shop_id, currency, available, reserved, payment_id, reason, created)
    SELECT shop_id, currency, available, reserved, id, reason, now()
      FROM (SELECT id, 1 AS step, shop_id, customer_currency AS currency, customer_amount AS available,
                   -customer_amount AS reserved,
                   'released: withdrawal routed to a terminal in ' || currency || ' (V42)' AS reason
              FROM moved
            UNION ALL
            SELECT id, 2, shop_id, currency, -amount, amount,
                   'reserved: withdrawal routed to a terminal in ' || currency || ' (V42)'
              FROM moved) AS e
     ORDER BY id, step
    RETURNING shop_id, currency, available, reserved
)
INSERT INTO balances (shop_id, currency, slot, available, reserved, updated)
SELECT shop_id, currency, 0, sum(available), sum(reserved), now()
  FROM entries
 GROUP BY shop_id, currency
 ORDER BY shop_id, currency
ON CONFLICT (shop_id, currency, slot) DO UPDATE
    SET available = balances.available + excluded.available,
        reserved = balances.reserved + excluded.reserved,
        updated = excluded.updated;
