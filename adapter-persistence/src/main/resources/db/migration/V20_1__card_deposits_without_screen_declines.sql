-- The velocity rules counted every declined deposit of a card, the anti-fraud screen's own
-- declines (6.xx) too: a card taken off a blacklist stayed blocked by "declined deposits per
-- card", and every blocked retry, the rule's own 6.23 included, kept the block alive. The count
-- now leaves out declines with a 6.xx code. So does the index it reads (V9), so the count still
-- reads only the entries it counts and stops at its limit; the function (V12) names the
-- index's condition word for word, which is what lets PostgreSQL use the index for it.
DROP INDEX payments_card_state;
CREATE INDEX payments_card_state ON payments (shop_id, (card->>'cardToken'), state, updated)
    WHERE payment_type = 'DEPOSIT' AND card IS NOT NULL AND coalesce(error_code, '') NOT LIKE '6.%';

CREATE OR REPLACE FUNCTION card_deposits(p_shop bigint, p_token text, p_state text, p_since timestamptz,
    p_at_most integer)
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
          AND card->>'cardToken' = p_token AND state = p_state AND updated >= p_since
        LIMIT p_at_most) c);
END
$$;
