-- A balance's lockers serialise on its slot 0, the first row each locks (V8): the check of a
-- new withdrawal adds slot 0 and locks every slot in slot order, a payout's check locks the
-- slots there are, and its transfer writes slot 0. A completed deposit only writes slots above
-- 0, so a shop whose money in a currency came only from deposits had no slot 0 there: a
-- payout's check then summed the slots without the slot 0 a withdrawal's check had just added
-- and reserved in (two withdrawals passing on the same money), or locked slot 1 first and then
-- waited on that new slot 0 for its transfer (a deadlock). Slot 0 is now written with the first
-- slot row of every shop and currency, in the same transaction, so whoever sees a slot sees slot
-- 0 and locks it first. Only an inserted slot row above 0 fires this (at most 31 per shop and
-- currency), never the update a completed deposit makes of a row that exists.
CREATE FUNCTION add_balance_slot_zero() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO balances (shop_id, currency, slot, updated)
    VALUES (NEW.shop_id, NEW.currency, 0, NEW.updated)
    ON CONFLICT (shop_id, currency, slot) DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER balances_add_slot_zero AFTER INSERT ON balances
    FOR EACH ROW WHEN (NEW.slot > 0) EXECUTE FUNCTION add_balance_slot_zero();

-- The balances held so far only in slots above 0 get their slot 0, holding nothing, so no sum
-- changes.
INSERT INTO balances (shop_id, currency, slot, updated)
SELECT shop_id, currency, 0, now()
  FROM balances
 GROUP BY shop_id, currency
HAVING min(slot) > 0
 ORDER BY shop_id, currency;
