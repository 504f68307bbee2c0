-- "Completed deposits per card" counted COMPLETED deposits only. A 3-D Secure deposit waiting
-- for its challenge (PENDING, its card already screened and accepted) and an authorized
-- pre-auth waiting for its capture were not counted, so a customer could start several 3DS
-- deposits of one card, each passing the screen while none had completed, and complete them
-- all past the limit. The count now takes the states it counts (PENDING, AUTHORIZED and
-- COMPLETED for that rule), read in the same single scan of payments_card_state (V20_1): one
-- range of the index per state, stopping at the limit. It leaves out the payment being
-- screened, which the checkout page's steps have already made PENDING in their transaction.
DROP FUNCTION card_deposits(bigint, text, text, timestamptz, integer);

CREATE FUNCTION card_deposits(p_shop bigint, p_token text, p_states text[], p_except char(32),
    p_since timestamptz, p_at_most integer)
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
          AND card->>'cardToken' = p_token AND state = ANY (p_states) AND updated >= p_since
          AND (p_except IS NULL OR id <> p_except)
        LIMIT p_at_most) c);
END
$$;
