-- A counterparty is known to its merchant by its unique code, or, without one, by its name:
-- importing the same file twice listed each counterparty twice. The copies such imports made
-- go (the first of each stays; nothing refers to a counterparty), and an import now updates
-- the counterparty it names.
DELETE FROM counterparties c USING counterparties first
WHERE c.merchant_id = first.merchant_id AND c.unique_code = first.unique_code AND c.id > first.id;
DELETE FROM counterparties c USING counterparties first
WHERE c.merchant_id = first.merchant_id AND c.unique_code IS NULL AND first.unique_code IS NULL
  AND c.name = first.name AND c.id > first.id;
CREATE UNIQUE INDEX counterparties_by_code ON counterparties (merchant_id, unique_code) WHERE unique_code IS NOT NULL;
CREATE UNIQUE INDEX counterparties_by_name ON counterparties (merchant_id, name) WHERE unique_code IS NULL;
