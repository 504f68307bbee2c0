-- Card numbers are kept for as long as they are used, not for ever (TOLLGATE_CARD_RETENTION):
-- each card remembers when a payment last used it, and a background job forgets the cards no
-- payment has used for the retention, unless a payment in flight still needs its card.

-- The default is for a version from before this one, which stores cards without the column: a
-- card it stores counts as used then.
ALTER TABLE card_vault ADD COLUMN last_used timestamptz NOT NULL DEFAULT now();

-- Until now a card was last used by the last payment that names its token, or stored unused.
UPDATE card_vault SET last_used = created;
UPDATE card_vault v SET last_used = greatest(v.created, used.at)
FROM (SELECT shop_id, card->>'cardToken' AS token, max(updated) AS at
        FROM payments WHERE card->>'cardToken' IS NOT NULL
       GROUP BY shop_id, card->>'cardToken') used
WHERE used.shop_id = v.shop_id AND used.token = v.token;

-- The job reads the cards unused the longest first.
CREATE INDEX card_vault_last_used ON card_vault (last_used);

-- It keeps the card of a payout waiting for the merchant's approval, however long that takes: the
-- few payouts in that state, found by shop.
CREATE INDEX payments_awaiting_approval ON payments (shop_id) WHERE state = 'AWAITING_APPROVAL';
