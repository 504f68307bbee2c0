package io.tollgate.persistence;

import io.tollgate.domain.shop.MerchantId;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.time.Instant;

final class TestShops {
  private TestShops() {}

  static ShopId create(PersistenceAdapters adapters, String name) {
    MerchantId m = adapters.shops().createMerchant("Merchant " + name, Instant.now());
    return adapters.shops().createShop(new Shop(new ShopId(Long.MAX_VALUE), m, "Shop " + name, null, null,
        null, false, false, "EUR"), Instant.now());
  }
}
