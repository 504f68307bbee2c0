-- A counterparty is known to its merchant by its unique code, or, without one, by its name:
-- importing the same file twice listed each counterparty twice. An empty code is no code (a
-- JSON export's "uniqueCode": ""), so counterparties that share only that stay apart. Of the
-- copies such imports made, the first stays, with its creation time and what the latest copy
-- says of it (the latest import's corrections), and the others go: nothing refers to a
-- counterparty. An import now updates the counterparty it names.
UPDATE counterparties SET unique_code = NULLIF(regexp_replace(unique_code, '^\s+|\s+$', '', 'g'), '')
WHERE unique_code IS DISTINCT FROM NULLIF(regexp_replace(unique_code, '^\s+|\s+$', '', 'g'), '');

UPDATE counterparties first
SET name = latest.name, affiliate_id = latest.affiliate_id, affiliate_name = latest.affiliate_name,
    registration_date = latest.registration_date, types = latest.types
FROM (SELECT DISTINCT ON (merchant_id, unique_code) * FROM counterparties WHERE unique_code IS NOT NULL
      ORDER BY merchant_id, unique_code, id DESC) latest
WHERE first.merchant_id = latest.merchant_id AND first.unique_code = latest.unique_code AND first.id < latest.id;
UPDATE counterparties first
SET affiliate_id = latest.affiliate_id, affiliate_name = latest.affiliate_name,
    registration_date = latest.registration_date, types = latest.types
FROM (SELECT DISTINCT ON (merchant_id, name) * FROM counterparties WHERE unique_code IS NULL
      ORDER BY merchant_id, name, id DESC) latest
WHERE first.merchant_id = latest.merchant_id AND first.unique_code IS NULL AND first.name = latest.name
  AND first.id < latest.id;

DELETE FROM counterparties c USING counterparties first
WHERE c.merchant_id = first.merchant_id AND c.unique_code = first.unique_code AND c.id > first.id;
DELETE FROM counterparties c USING counterparties first
WHERE c.merchant_id = first.merchant_id AND c.unique_code IS NULL AND first.unique_code IS NULL
  AND c.name = first.name AND c.id > first.id;
CREATE UNIQUE INDEX counterparties_by_code ON counterparties (merchant_id, unique_code) WHERE unique_code IS NOT NULL;
CREATE UNIQUE INDEX counterparties_by_name ON counterparties (merchant_id, name) WHERE unique_code IS NULL;
