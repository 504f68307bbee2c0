-- A resend asked while its event is claimed is made again after that delivery only when the
-- delivery began before it was asked. A claimed event may wait in its dispatcher for a slot of
-- its shop, and the delivery that starts after the ask answers it: V36's flag sent the event a
-- second time straight after. When the resend was asked and when the event was claimed, both by
-- the database's clock; the dispatcher reports how long after its claim a delivery began.
-- resend_asked stays, unused, for an older jar run on this schema. Metadata only: columns
-- without a default rewrite no row.
ALTER TABLE webhook_events ADD COLUMN resend_asked_at timestamptz, ADD COLUMN leased_at timestamptz;
