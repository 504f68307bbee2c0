-- A masked card-group entry was stored as its first 6 digits, one '*' per hidden digit and its
-- last 4, and matched by equality with the card's mask of the same form: an entry matched only
-- cards of its own length (411111***1111 never matched 4111111111111111), and an entry with 8
-- leading digits lost 2 of them (an entry stored so cannot get them back). An entry is now keyed by all its leading digits, one '*' and
-- its last 4 (411111*1111), which the anti-fraud screen compares with the keys a card can match.
-- What the merchant API lists (display) is kept. Of entries that become the same key, the first
-- added stays.
DELETE FROM group_entries e
 USING entry_groups g
 WHERE g.id = e.group_id AND g.masked
   AND EXISTS (SELECT 1 FROM group_entries o
                WHERE o.group_id = e.group_id
                  AND substring(o.value FROM '^[0-9]+') = substring(e.value FROM '^[0-9]+')
                  AND right(o.value, 4) = right(e.value, 4)
                  AND (o.added, o.value COLLATE "C") < (e.added, e.value COLLATE "C"));

UPDATE group_entries e
   SET value = substring(e.value FROM '^[0-9]+') || '*' || right(e.value, 4)
  FROM entry_groups g
 WHERE g.id = e.group_id AND g.masked;
