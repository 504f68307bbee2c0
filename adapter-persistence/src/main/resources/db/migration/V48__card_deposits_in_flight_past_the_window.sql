-- A card's deposit still on its way (PENDING: waiting for its 3-D Secure challenge or for its
-- terminal; AUTHORIZED: a pre-auth waiting for its capture) was counted only while its last
-- change was inside the rule's window. A challenge shown stays unchanged until it is answered,
-- and may be answered up to the shop's checkout timeout (30 minutes unless set, up to a day)
-- after it was shown; a pre-auth may be captured until its hold lapses at the card scheme. A
-- rule with a shorter window stopped counting such a deposit while it could still complete, and
-- a deposit of the card started then passed the screen: a customer could complete both past
-- "completed deposits per card", or reach the acquirer past "declined deposits per card". A
-- deposit in one of these states now counts when it last changed within the window or the 30
-- days before it: a hold lapses within days, 30 at most, a challenge is answered or timed out
-- within a day, and a deposit waiting for its terminal is asked about again by a background
-- job. Tollgate never expires a pre-auth itself: one neither captured nor voided would
-- otherwise block its card at the shop for good, and every screen of the card would read its
-- whole history of pre-auths. The states already decided (COMPLETED, DECLINED) count within the
-- window, as before. Each part reads its own ranges of payments_card_state (V35), whose
-- condition both name word for word, each range bounded in time on the index's last column
-- (updated), and the count still stops at its limit. The plan is the generic one from the first call: planned
-- for one call's states, a part given none (a count of DECLINED alone) read
-- payments_open_checkouts (V10) instead, whose condition an empty list of states implies, entry
-- by entry; PENDING alone implies it as well.
CREATE OR REPLACE FUNCTION card_deposits(p_shop bigint, p_token text, p_states text[], p_except char(32),
    p_since timestamptz, p_at_most integer, p_verifications boolean)
RETURNS integer
LANGUAGE plpgsql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    in_flight_states text[] := ARRAY(SELECT s FROM unnest(p_states) s WHERE s IN ('PENDING', 'AUTHORIZED'));
    decided_states text[] := ARRAY(SELECT s FROM unnest(p_states) s WHERE s NOT IN ('PENDING', 'AUTHORIZED'));
BEGIN
    RETURN (SELECT count(*) FROM (
        SELECT 1 FROM payments
        WHERE shop_id = p_shop AND payment_type = 'DEPOSIT' AND card IS NOT NULL
          AND coalesce(error_code, '') NOT LIKE '6.%'
          AND coalesce(error_code, '') NOT LIKE '1.%'
          AND card->>'cardToken' = p_token AND state = ANY (decided_states) AND updated >= p_since
          AND (p_except IS NULL OR id <> p_except) AND (p_verifications OR amount > 0)
        UNION ALL
        SELECT 1 FROM payments
        WHERE shop_id = p_shop AND payment_type = 'DEPOSIT' AND card IS NOT NULL
          AND coalesce(error_code, '') NOT LIKE '6.%'
          AND coalesce(error_code, '') NOT LIKE '1.%'
          AND card->>'cardToken' = p_token AND state = ANY (in_flight_states)
          AND updated >= p_since - interval '30 days'
          AND (p_except IS NULL OR id <> p_except) AND (p_verifications OR amount > 0)
        LIMIT p_at_most) c);
END
$$;
