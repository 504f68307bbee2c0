-- A card number shorter than 15 digits was shown with its first 6 and its last 4 digits: a
-- 12-digit card kept 10 of its 12 digits in view, and the Luhn check left 10 numbers to try.
-- It is now shown with its last 4 and as many of its first as leave 5 hidden. The masks kept
-- as a card's own (a payment's card, a plain card group's entry) are made again so, from the
-- mask itself, whose shown digits hold the new ones. Free text that quotes a mask (an
-- operation's details, a webhook already sent) is left as it was written.
UPDATE payments
   SET card = jsonb_set(card, '{maskedNumber}', to_jsonb(left(card ->> 'maskedNumber',
       length(card ->> 'maskedNumber') - 9) || '*****' || right(card ->> 'maskedNumber', 4)))
 WHERE card ->> 'maskedNumber' ~ '^[0-9]{6}\*{2,4}[0-9]{4}$';

-- A masked group's entries are the merchant's own masks, to match with: only plain groups'.
UPDATE group_entries e
   SET display = left(e.display, length(e.display) - 9) || '*****' || right(e.display, 4)
  FROM entry_groups g
 WHERE g.id = e.group_id AND g.kind = 'CARD' AND NOT g.masked
   AND e.display ~ '^[0-9]{6}\*{2,4}[0-9]{4}$';
