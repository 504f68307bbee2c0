-- The merchant API lists a merchant's payments and operations across its shops, newest first;
-- a merchant column (kept by trigger from the shop) lets one index serve those pages.
ALTER TABLE payments ADD COLUMN merchant_id bigint;
UPDATE payments p SET merchant_id = s.merchant_id FROM shops s WHERE s.id = p.shop_id;
ALTER TABLE payments ALTER COLUMN merchant_id SET NOT NULL;
CREATE INDEX payments_merchant_created ON payments (merchant_id, created DESC, id DESC);

ALTER TABLE payment_operations ADD COLUMN merchant_id bigint;
UPDATE payment_operations o SET merchant_id = s.merchant_id FROM shops s WHERE s.id = o.shop_id;
ALTER TABLE payment_operations ALTER COLUMN merchant_id SET NOT NULL;
CREATE INDEX payment_operations_merchant_completed ON payment_operations (merchant_id, completed DESC, id DESC);

CREATE FUNCTION set_merchant_from_shop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT merchant_id INTO NEW.merchant_id FROM shops WHERE id = NEW.shop_id;
    RETURN NEW;
END $$;
CREATE TRIGGER payments_merchant BEFORE INSERT ON payments
    FOR EACH ROW EXECUTE FUNCTION set_merchant_from_shop();
CREATE TRIGGER payment_operations_merchant BEFORE INSERT ON payment_operations
    FOR EACH ROW EXECUTE FUNCTION set_merchant_from_shop();

-- Customers, known by the merchant's referenceId per shop, from the payments that name them.
CREATE TABLE customers (
    id             bigserial   PRIMARY KEY,
    merchant_id    bigint      NOT NULL REFERENCES merchants (id),
    shop_id        bigint      NOT NULL REFERENCES shops (id),
    reference_id   text        NOT NULL,
    first_name     text,
    last_name      text,
    email          text,
    phone          text,
    date_of_birth  text,
    created        timestamptz NOT NULL,
    updated        timestamptz NOT NULL,
    UNIQUE (shop_id, reference_id)
);
CREATE INDEX customers_merchant ON customers (merchant_id, id);

-- Reference data: BINs, currency rates, bank codes and their mappings.
CREATE TABLE bins (
    bin                   text PRIMARY KEY CHECK (bin ~ '^[0-9]{6,8}$'),
    card_brand            text,
    card_type             text,
    issuing_country       text,
    issuing_organization  text
);

CREATE TABLE currency_rates (
    base_currency   text            NOT NULL,
    quote_currency  text            NOT NULL,
    rate            numeric(38, 18) NOT NULL CHECK (rate > 0),
    last_update     timestamptz     NOT NULL,
    PRIMARY KEY (base_currency, quote_currency)
);

CREATE TABLE bank_codes (
    country_code  text NOT NULL,
    bank_code     text NOT NULL,
    bank_name     text NOT NULL,
    PRIMARY KEY (country_code, bank_code)
);

CREATE TABLE bank_code_mappings (
    id             bigserial PRIMARY KEY,
    country_code   text NOT NULL,
    bank_code      text NOT NULL,
    api_code       text NOT NULL,
    api_bank_code  text NOT NULL,
    UNIQUE (country_code, bank_code, api_code)
);

-- A merchant's counterparties, terminals (accounts at acquirers) and the connectors that route
-- a shop's payments to them.
CREATE TABLE counterparties (
    id                 bigserial   PRIMARY KEY,
    merchant_id        bigint      NOT NULL REFERENCES merchants (id),
    name               text        NOT NULL,
    affiliate_id       text,
    affiliate_name     text,
    unique_code        text,
    registration_date  date,
    types              text[]      NOT NULL DEFAULT '{}',
    created            timestamptz NOT NULL
);
CREATE INDEX counterparties_merchant ON counterparties (merchant_id, id);

CREATE TABLE terminals (
    id             bigserial   PRIMARY KEY,
    merchant_id    bigint      NOT NULL REFERENCES merchants (id),
    name           text        NOT NULL,
    state          text        NOT NULL DEFAULT 'ACTIVE' CHECK (state IN ('ACTIVE', 'APPROVING', 'DISABLED')),
    provider_name  text        NOT NULL,
    api_code       text        NOT NULL,
    api_name       text        NOT NULL,
    api_types      text[]      NOT NULL DEFAULT '{}',
    created        timestamptz NOT NULL
);
CREATE INDEX terminals_merchant ON terminals (merchant_id, id);

CREATE TABLE connectors (
    id                          bigserial   PRIMARY KEY,
    shop_id                     bigint      NOT NULL REFERENCES shops (id),
    terminal_id                 bigint      NOT NULL REFERENCES terminals (id),
    state                       text        NOT NULL DEFAULT 'ACTIVE' CHECK (state IN ('ACTIVE', 'INACTIVE')),
    payment_method              text        NOT NULL,
    terminal_currency           text        NOT NULL,
    priority                    integer     NOT NULL DEFAULT 0,
    weight                      integer     NOT NULL DEFAULT 100 CHECK (weight >= 0),
    min_amount                  numeric(38, 18),
    max_amount                  numeric(38, 18),
    cascading_whitelist_group_id bigint     REFERENCES entry_groups (id),
    cascading_blacklist_group_id bigint     REFERENCES entry_groups (id),
    created                     timestamptz NOT NULL
);
CREATE INDEX connectors_shop ON connectors (shop_id, priority, id);

-- Anti-fraud profiles: rules that reference the merchant's groups, attached to shops.
CREATE TABLE antifraud_profiles (
    id           bigserial   PRIMARY KEY,
    merchant_id  bigint      NOT NULL REFERENCES merchants (id),
    name         text        NOT NULL,
    time_zone    text        NOT NULL DEFAULT 'UTC',
    created      timestamptz NOT NULL
);
CREATE INDEX antifraud_profiles_merchant ON antifraud_profiles (merchant_id, id);

CREATE TABLE antifraud_rules (
    id          bigserial PRIMARY KEY,
    profile_id  bigint    NOT NULL REFERENCES antifraud_profiles (id) ON DELETE CASCADE,
    rule        text      NOT NULL,
    group_id    bigint    REFERENCES entry_groups (id),
    threshold   integer,
    window_minutes integer
);
CREATE INDEX antifraud_rules_profile ON antifraud_rules (profile_id, id);

ALTER TABLE shops ADD COLUMN antifraud_profile_id bigint REFERENCES antifraud_profiles (id);

-- Shop groups scope reporting: named sets of a merchant's shops.
CREATE TABLE shop_groups (
    id           bigserial   PRIMARY KEY,
    merchant_id  bigint      NOT NULL REFERENCES merchants (id),
    name         text        NOT NULL,
    created      timestamptz NOT NULL,
    UNIQUE (merchant_id, name)
);
CREATE TABLE shop_group_members (
    group_id  bigint NOT NULL REFERENCES shop_groups (id) ON DELETE CASCADE,
    shop_id   bigint NOT NULL REFERENCES shops (id),
    PRIMARY KEY (group_id, shop_id)
);
