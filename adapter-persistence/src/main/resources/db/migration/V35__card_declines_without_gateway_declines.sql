-- "Declined deposits per card" (6.23) counted the gateway's own declines too: a deposit that no
-- connector could take (1.05 no connector, 1.08 an amount no terminal takes, 1.09 no rate to the
-- terminal's currency) never reached a terminal, and says nothing about its card, yet five of
-- them locked the card out for the rule's window. Codes 1.xx are the gateway's own, as 6.xx are
-- the screen's; neither is counted now. The index the count reads (V20_1) leaves them out too, so
-- that the count still reads only the entries it counts however many such declines a card has;
-- the function, and the read of a card's last expiry, name its condition word for word, which is
-- what lets PostgreSQL use it. Rebuilding it holds writes to payments for as long as it takes
-- (seconds for a million payments), as V20_1 did.
DROP INDEX payments_card_state;
CREATE INDEX payments_card_state ON payments (shop_id, (card->>'cardToken'), state, updated)
    WHERE payment_type = 'DEPOSIT' AND card IS NOT NULL AND coalesce(error_code, '') NOT LIKE '6.%'
      AND coalesce(error_code, '') NOT LIKE '1.%';

CREATE OR REPLACE FUNCTION card_deposits(p_shop bigint, p_token text, p_states text[], p_except char(32),
    p_since timestamptz, p_at_most integer, p_verifications boolean)
RETURNS integer
LANGUAGE plpgsql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
BEGIN
    RETURN (SELECT count(*) FROM (
        SELECT 1 FROM payments
        WHERE shop_id = p_shop AND payment_type = 'DEPOSIT' AND card IS NOT NULL
          AND coalesce(error_code, '') NOT LIKE '6.%'
          AND coalesce(error_code, '') NOT LIKE '1.%'
          AND card->>'cardToken' = p_token AND state = ANY (p_states) AND updated >= p_since
          AND (p_except IS NULL OR id <> p_except) AND (p_verifications OR amount > 0)
        LIMIT p_at_most) c);
END
$$;
