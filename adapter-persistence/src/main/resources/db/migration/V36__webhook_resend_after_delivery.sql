-- A resend asked for while the event is being delivered: made once that delivery has ended, so
-- that the merchant's request is neither lost (the delivery in flight settled the event as
-- DELIVERED over it) nor refused. Cleared by the delivery it asks for. Metadata only: adding a
-- column with a constant default rewrites no row.
ALTER TABLE webhook_events ADD COLUMN resend_asked boolean NOT NULL DEFAULT false;
