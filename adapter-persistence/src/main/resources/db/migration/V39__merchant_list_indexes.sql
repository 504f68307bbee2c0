-- The merchant API's lists at volume (a review over a million payments and 2.6 million
-- operations of one merchant). Building these indexes, and dropping the two they replace, locks
-- the two tables against reads and writes until the migration ends (seconds a million rows),
-- during the start and before the new version serves, with the older version stopped, as
-- upgrades are.

-- The operations list filtered by kind or payment state read every operation of the merchant in
-- the time asked for when the kind or state was rare or absent (a chargeback, a void, an
-- authorisation): 0.2-0.45 s, and growing with the operations. Each index below holds only the
-- operations of the rarer kinds or states. The four kinds and three states a card deposit paid
-- without 3-D Secure writes are left out (created, screened, sent, paid: CHECKOUT, PENDING,
-- COMPLETED): the list finds them at once in its time order wherever card deposits are taken,
-- and they are most of what is written. Every other operation (a 3-D Secure confirmation, a
-- cascade, a capture, a cancel, a decline, a refund, a payout) has an entry in one index or both.
CREATE INDEX payment_operations_merchant_rare_operation
    ON payment_operations (merchant_id, operation, completed, id)
    WHERE operation NOT IN ('CREATE_PAYMENT', 'DETECT_FRAUD', 'CHECKOUT', 'DEPOSIT');
CREATE INDEX payment_operations_merchant_rare_state
    ON payment_operations (merchant_id, payment_state, completed, id)
    WHERE payment_state NOT IN ('CHECKOUT', 'PENDING', 'COMPLETED');

-- A list kept to a shop group (a user scoped to one, or shopGroupId.eq) read each row of the
-- table to learn its shop, so a deep page of a small group read most of the merchant's rows:
-- 0.35 s at offset 9,900 of a 10,000-payment group. The shop is now in the index beside the
-- order, and the page is read from the index alone (0.12 s).
--
-- The lists' indexes are now in ascending time order, read backwards for the newest first (as
-- the two above are). New rows go to the end of their merchant's or shop's range, and a full
-- page there splits leaving the old page full; in descending order they went to the start of the
-- range, and each split left two pages half empty: the merchant's payments index of a million
-- rows was 131 MB, against 73 MB built afresh, and every payment's write touched the larger one.
CREATE INDEX payments_merchant_created_shop ON payments (merchant_id, created, id) INCLUDE (shop_id);
DROP INDEX payments_merchant_created;
ALTER INDEX payments_merchant_created_shop RENAME TO payments_merchant_created;
CREATE INDEX payment_operations_merchant_completed_shop
    ON payment_operations (merchant_id, completed, id) INCLUDE (shop_id);
DROP INDEX payment_operations_merchant_completed;
ALTER INDEX payment_operations_merchant_completed_shop RENAME TO payment_operations_merchant_completed;
CREATE INDEX payments_shop_created_ascending ON payments (shop_id, created, id);
DROP INDEX payments_shop_created;
ALTER INDEX payments_shop_created_ascending RENAME TO payments_shop_created;
CREATE INDEX payments_shop_updated_ascending ON payments (shop_id, updated, id);
DROP INDEX payments_shop_updated;
ALTER INDEX payments_shop_updated_ascending RENAME TO payments_shop_updated;
