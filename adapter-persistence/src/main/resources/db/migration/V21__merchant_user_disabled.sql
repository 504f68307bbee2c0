-- An operator can disable a merchant user (tollgate user disable): the row and its e-mail
-- address stay, but the merchant API refuses its credentials until it is enabled again.
ALTER TABLE merchant_users ADD COLUMN disabled boolean NOT NULL DEFAULT false;
