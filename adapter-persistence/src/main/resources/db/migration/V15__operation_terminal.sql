-- Each operation keeps the terminal it ran on and the processor's answer to it. The merchant's
-- operations list showed the payment's latest instead for every step: a deposit declined 4.02 on
-- terminal A and approved on B listed the decline as B's, with B's result code.
ALTER TABLE payment_operations
    ADD COLUMN terminal_name text,
    ADD COLUMN external_id text,
    ADD COLUMN external_result_code text;
-- Operations stored before keep what the list showed for them until now: the payment's.
UPDATE payment_operations o
   SET terminal_name = p.terminal_name, external_id = p.external_id, external_result_code = p.external_result_code
  FROM payments p
 WHERE p.id = o.payment_id;
