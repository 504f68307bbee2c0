-- A merchant user may be scoped to one shop group of its own merchant: it then sees only the
-- records of the shops in that group at the time of each request. Null (every existing user):
-- every shop of the merchant, as before. The composite key keeps the group the user's
-- merchant's; a group cannot be deleted while a user is scoped to it (the user would otherwise
-- silently see every shop).
ALTER TABLE shop_groups ADD CONSTRAINT shop_groups_id_merchant UNIQUE (id, merchant_id);
ALTER TABLE merchant_users ADD COLUMN shop_group_id bigint;
ALTER TABLE merchant_users ADD CONSTRAINT merchant_users_shop_group
    FOREIGN KEY (shop_group_id, merchant_id) REFERENCES shop_groups (id, merchant_id);
