-- A BIN blacklist's decline wrote the BIN it matched in clear into the DETECT_FRAUD operation's
-- details: an 8-digit BIN of a 13-digit card beside the payment's masked last 4 was 12 of its 13
-- digits, and the Luhn check gave the last. The details now name the card as the payment shows
-- it (V43 made that hide 5 digits of any card). A card list's decline written before V43 quotes
-- a short card's first 6 and last 4: it gets the payment's mask too. Other text of the details,
-- and every other operation, stay. One pass over the operations, which no index narrows.
UPDATE payment_operations o
   SET details = regexp_replace(regexp_replace(o.details,
           'rule BIN_BLACKLIST: BIN [0-9]{6,8} is in group',
           'rule BIN_BLACKLIST: BIN of card ' || coalesce(p.card ->> 'maskedNumber', 'on file') || ' is in group'),
           'rule (CARD_BLACKLIST|CARD_WHITELIST): card [0-9]{6}\*{2,4}[0-9]{4} is',
           'rule \1: card ' || coalesce(p.card ->> 'maskedNumber', 'on file') || ' is')
  FROM payments p
 WHERE p.id = o.payment_id AND o.operation = 'DETECT_FRAUD'
   AND o.details ~ 'rule (BIN_BLACKLIST: BIN [0-9]{6,8}|CARD_(BLACK|WHITE)LIST: card [0-9]{6}\*{2,4}[0-9]{4}) is';
