-- What a deposit's COMPLETED refunds paid back, kept on the deposit's own row (null: nothing):
-- the merchant list showed it by summing each listed deposit's refunds, a subquery that
-- PostgreSQL planned on every page (a page is planned anew for its limit) and then a second
-- statement per page, which together cost the first page about a fifth of its rate
-- (BENCHMARKS.md, fourteenth round). A refund completes once (COMPLETED is final), so the
-- trigger adds its amount to its parent in the transaction that completes it, under the parent
-- row's lock: refunds completing at once are added one after the other. The parent's `updated`
-- and `version` stay as they are: a refund is not a change of the deposit's state.
ALTER TABLE payments ADD COLUMN refunded_amount numeric;

UPDATE payments d SET refunded_amount = r.total
  FROM (SELECT parent_payment_id, sum(amount) AS total FROM payments
         WHERE payment_type = 'REFUND' AND state = 'COMPLETED' GROUP BY parent_payment_id) r
 WHERE d.id = r.parent_payment_id;

CREATE FUNCTION add_completed_refund() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE payments SET refunded_amount = coalesce(refunded_amount, 0) + NEW.amount
   WHERE id = NEW.parent_payment_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER payments_refund_completed AFTER UPDATE OF state ON payments
  FOR EACH ROW WHEN (NEW.payment_type = 'REFUND' AND NEW.state = 'COMPLETED' AND OLD.state <> 'COMPLETED')
  EXECUTE FUNCTION add_completed_refund();
