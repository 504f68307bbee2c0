-- Routing now sends a payment only to terminals whose api_types name its type (DEPOSIT,
-- WITHDRAWAL); before, it ignored api_types and sent every type to every terminal. Terminals
-- that exist keep taking every payment type, so an upgrade routes nothing differently; BALANCE
-- is left as it was. A terminal written without api_types takes every payment type, as one
-- created by the command line without --api-types does.
UPDATE terminals
   SET api_types = api_types || ARRAY(
       SELECT t FROM unnest(ARRAY['DEPOSIT', 'WITHDRAWAL', 'REFUND']) AS t WHERE NOT t = ANY (api_types))
 WHERE NOT api_types @> ARRAY['DEPOSIT', 'WITHDRAWAL', 'REFUND'];

ALTER TABLE terminals ALTER COLUMN api_types SET DEFAULT ARRAY['DEPOSIT', 'WITHDRAWAL', 'REFUND'];
