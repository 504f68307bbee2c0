-- The currency codes payments are kept in (charged in, or asked in), recorded as they are first
-- written: a start checks that it knows each of them by reading this table, instead of every
-- payment (a quarter of a second a million payments, at every start and every CLI command).
CREATE TABLE currencies_in_use (
  code text PRIMARY KEY
);

INSERT INTO currencies_in_use (code)
SELECT DISTINCT code FROM payments, LATERAL (VALUES (currency), (customer_currency)) kept(code)
WHERE code IS NOT NULL;
