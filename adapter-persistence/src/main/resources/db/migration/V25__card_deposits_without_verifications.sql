-- Since V23 "completed deposits per card" counts authorized deposits too, and so counted a card
-- verification (a pre-auth of 0, AUTHORIZED until voided) as one of its card's completed deposits:
-- a shop that verifies a card before charging it had the charge declined 6.22 at a limit of one.
-- A verification moves no money and can never complete a deposit of any (a capture takes at most
-- what was authorized), so a count may now leave deposits of 0 out (p_verifications false, the
-- completed-deposits rule); a declined verification is still a declined attempt with the card.
DROP FUNCTION card_deposits(bigint, text, text[], char(32), timestamptz, integer);

CREATE FUNCTION card_deposits(p_shop bigint, p_token text, p_states text[], p_except char(32),
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
          AND card->>'cardToken' = p_token AND state = ANY (p_states) AND updated >= p_since
          AND (p_except IS NULL OR id <> p_except) AND (p_verifications OR amount > 0)
        LIMIT p_at_most) c);
END
$$;
