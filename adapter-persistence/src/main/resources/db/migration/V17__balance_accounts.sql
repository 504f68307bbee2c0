-- A shop's balance accounts: per currency, what it may pay out (AVAILABLE) and what pending
-- withdrawals and refunds hold back (WITHDRAWAL). Their ids are the Balance ids of both APIs,
-- which were positions in a list until now: "balance 1" named EUR, and BTC once the shop had a
-- BTC payment. An id is given once, to one account, and never names another later.
CREATE TABLE balance_accounts (
    id            bigserial PRIMARY KEY,
    shop_id       bigint    NOT NULL REFERENCES shops (id),
    currency      text      NOT NULL,
    account_type  text      NOT NULL CHECK (account_type IN ('AVAILABLE', 'WITHDRAWAL')),
    UNIQUE (shop_id, currency, account_type)
);

-- The balances held so far, numbered in the order the lists showed them (by shop, then currency).
INSERT INTO balance_accounts (shop_id, currency, account_type)
SELECT b.shop_id, b.currency, t.account_type
  FROM (SELECT DISTINCT shop_id, currency FROM balances) AS b
 CROSS JOIN (VALUES (1, 'AVAILABLE'), (2, 'WITHDRAWAL')) AS t (n, account_type)
 ORDER BY b.shop_id, b.currency, t.n;

-- The first balance row of a shop and currency opens its two accounts, in the same transaction.
-- Only an inserted row fires this (a slot row is added at most 32 times per shop and currency,
-- V8), never the update of a row that exists, so the write of a completed deposit costs what it
-- did; when the accounts exist it takes no number from the sequence.
CREATE FUNCTION open_balance_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO balance_accounts (shop_id, currency, account_type)
    SELECT NEW.shop_id, NEW.currency, t.account_type
      FROM (VALUES (1, 'AVAILABLE'), (2, 'WITHDRAWAL')) AS t (n, account_type)
     WHERE NOT EXISTS (SELECT 1 FROM balance_accounts a WHERE a.shop_id = NEW.shop_id AND a.currency = NEW.currency)
     ORDER BY t.n
    ON CONFLICT (shop_id, currency, account_type) DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER balances_open_accounts AFTER INSERT ON balances
    FOR EACH ROW EXECUTE FUNCTION open_balance_accounts();
