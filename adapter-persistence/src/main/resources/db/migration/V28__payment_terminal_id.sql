-- A payment, and each of its operations, keep the id of the terminal they were sent to next to
-- its name. A payout taken up again after a cascade, and the rule that it is never sent again
-- to a terminal that answered it, went by the name alone; so did a refund's return to its
-- deposit's terminal. NULL for the processor's default terminal (a shop without connectors)
-- and for rows stored before this column, which the application tells apart by name, unique
-- per merchant since V27. No foreign key: terminals are never deleted, and a key would add a
-- lookup of the terminal to every write of a payment.
ALTER TABLE payments ADD COLUMN terminal_id bigint;
ALTER TABLE payment_operations ADD COLUMN terminal_id bigint;
