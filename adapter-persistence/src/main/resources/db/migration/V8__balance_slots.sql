-- A shop's balance in a currency is the sum of a few slot rows. Completed deposits, the hot
-- path, add to a random slot, so they no longer queue on one row lock; everything that takes
-- money away (reservations, releases, pay-outs) uses slot 0, and a withdrawal's balance check
-- locks every slot of the currency in slot order, so nothing can overdraw and nothing deadlocks.
ALTER TABLE balances ADD COLUMN slot smallint NOT NULL DEFAULT 0 CHECK (slot >= 0);
ALTER TABLE balances DROP CONSTRAINT balances_pkey;
ALTER TABLE balances ADD PRIMARY KEY (shop_id, currency, slot);
