-- V43 masked again, as such a card is now shown, the masks kept of cards shorter than 15 digits,
-- but not the copies kept of them as structured values: the entries an edit of a plain card
-- group added or removed, which `group history` prints, and a payment's card in the answer kept
-- for its Idempotency-Key, which a retry is answered with. They are made again by V43's rule,
-- entry by entry in place; a masked group's entries are the merchant's own masks and stay, as
-- its entries did. Only rows holding a mask of the old form are written.
UPDATE group_edits e
   SET entries = ARRAY(
         SELECT CASE WHEN x.entry ~ '^[0-9]{6}\*{2,4}[0-9]{4}$'
                     THEN left(x.entry, length(x.entry) - 9) || '*****' || right(x.entry, 4)
                     ELSE x.entry END
           FROM unnest(e.entries) WITH ORDINALITY AS x (entry, n)
          ORDER BY x.n)
  FROM entry_groups g
 WHERE e.group_kind = 'CARD' AND g.id = e.group_id AND g.kind = 'CARD' AND NOT g.masked
   AND EXISTS (SELECT 1 FROM unnest(e.entries) AS x (entry) WHERE x.entry ~ '^[0-9]{6}\*{2,4}[0-9]{4}$');

UPDATE idempotency_keys
   SET answer = jsonb_set(answer, '{card,maskedNumber}', to_jsonb(left(answer #>> '{card,maskedNumber}',
       length(answer #>> '{card,maskedNumber}') - 9) || '*****' || right(answer #>> '{card,maskedNumber}', 4)))
 WHERE answer #>> '{card,maskedNumber}' ~ '^[0-9]{6}\*{2,4}[0-9]{4}$';
