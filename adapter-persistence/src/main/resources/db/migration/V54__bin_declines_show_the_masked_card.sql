-- A BIN blacklist's decline wrote the BIN it matched in clear into the DETECT_FRAUD operation's
-- details: an 8-digit BIN of a 13-digit card beside the payment's masked last 4 was 12 of its 13
-- digits, and the Luhn check gave the last. The details now name the card as the payment shows
-- it, and how many leading digits matched; those written before are rewritten so, from the
-- payment's own mask (V43 made it hide 5 digits of any card). Other text of the details stays.
UPDATE payment_operations o
   SET details = regexp_replace(o.details, 'BIN ([0-9]{6,8}) is in group',
       'BIN of card ' || coalesce(p.card ->> 'maskedNumber', 'on file')
       || ' (its first ' || length(substring(o.details FROM 'BIN ([0-9]{6,8}) is in group')) || ' digits) is in group')
  FROM payments p
 WHERE p.id = o.payment_id AND o.operation = 'DETECT_FRAUD'
   AND o.details ~ 'rule BIN_BLACKLIST: BIN [0-9]{6,8} is in group';

-- A card blacklist's or whitelist's decline quotes the card's mask, and one written before V43
-- showed a short card's first 6 and last 4: it is the payment's mask now too.
UPDATE payment_operations o
   SET details = regexp_replace(o.details, 'card [0-9]{6}\*{2,4}[0-9]{4} is',
       'card ' || (p.card ->> 'maskedNumber') || ' is')
  FROM payments p
 WHERE p.id = o.payment_id AND o.operation = 'DETECT_FRAUD' AND p.card ->> 'maskedNumber' IS NOT NULL
   AND o.details ~ 'rule CARD_(BLACK|WHITE)LIST: card [0-9]{6}\*{2,4}[0-9]{4} is';
