-- The decimals a start last gave each crypto symbol in use (TOLLGATE_CRYPTO_CURRENCIES): a start
-- that gives one fewer reads the amounts kept in it once, and refuses to start if one has more
-- decimals than that, instead of failing to read them. Unknown (null) until a start records it.
ALTER TABLE currencies_in_use ADD COLUMN decimals integer CHECK (decimals BETWEEN 0 AND 18);
