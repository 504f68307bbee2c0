-- The customer's IP address, as the payment's customer.ip answers it: the one given at creation,
-- replaced by the one the host-to-host PATCH gives. Until now the PATCH's address was only
-- written into its operation's details, so a merchant could not read it back.
ALTER TABLE payments ADD COLUMN customer_ip text;
-- Deposits executed host-to-host before: the address their DEPOSIT operation recorded
-- ("host-to-host from <address>", validated as an IPv4 or IPv6 literal when it was written).
-- Rows whose customer document names an ip and were not executed so keep reading it from there.
UPDATE payments p
   SET customer_ip = substring(o.details FROM '^host-to-host from ([0-9A-Fa-f:.]+)')
  FROM payment_operations o
 WHERE o.payment_id = p.id AND o.operation = 'DEPOSIT' AND o.details LIKE 'host-to-host from %';
