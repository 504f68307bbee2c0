-- A merchant's terminal names are unique, whatever their case: "Acquirer A" and "acquirer a"
-- are one name. A payment and each of its operations name the terminal they went to, the
-- processor port dispatches a charge on the terminal's name, and a payout's cascade remembered
-- the terminals it was sent to by name; two terminals of one merchant with one name were told
-- apart by none of them. The case is ignored because the name is read by people (operators,
-- the merchant's staff), for whom two terminals differing only in case are one.
--
-- Duplicates already stored must not stop the upgrade. In each set of terminals of one
-- merchant whose names are equal ignoring case, the oldest (lowest id) keeps its name, and
-- every later one is renamed deterministically by appending " #<its id>" ("Acquirer A" of
-- terminal 7 becomes "Acquirer A #7"); should that name be taken too, " #<its id>" is appended
-- again until it is free. Each rename is reported as a NOTICE. Payments and operations stored
-- before keep the name they were stored with: the one the terminal had then.
DO $$
DECLARE
  t record;
  renamed text;
BEGIN
  FOR t IN
    SELECT id, merchant_id, name
      FROM (SELECT id, merchant_id, name,
                   row_number() OVER (PARTITION BY merchant_id, lower(name) ORDER BY id) AS nth
              FROM terminals) named
     WHERE nth > 1
     ORDER BY id
  LOOP
    renamed := t.name || ' #' || t.id;
    WHILE EXISTS (SELECT 1 FROM terminals
                   WHERE merchant_id = t.merchant_id AND lower(name) = lower(renamed) AND id <> t.id) LOOP
      renamed := renamed || ' #' || t.id;
    END LOOP;
    UPDATE terminals SET name = renamed WHERE id = t.id;
    RAISE NOTICE 'terminal % of merchant % renamed from "%" to "%": an older terminal of the merchant has that name',
      t.id, t.merchant_id, t.name, renamed;
  END LOOP;
END
$$;

CREATE UNIQUE INDEX terminals_merchant_name ON terminals (merchant_id, lower(name));
