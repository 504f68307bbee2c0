-- Velocity rules count a card's recent deposits in a shop.
CREATE INDEX payments_card_token ON payments (shop_id, (card->>'cardToken'), updated)
    WHERE payment_type = 'DEPOSIT' AND card IS NOT NULL;
