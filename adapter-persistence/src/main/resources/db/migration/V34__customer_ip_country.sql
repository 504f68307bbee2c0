-- The country the merchant placed the customer's address in (the host-to-host PATCH's
-- ipCountryCode), beside customer_ip, which the same execution writes: the merchant API shows
-- it as customerIpCountryCode. Null for every payment executed before (the PATCH's value was
-- checked and then dropped), and for one whose merchant did not say.
ALTER TABLE payments ADD COLUMN customer_ip_country text;
