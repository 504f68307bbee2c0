package io.tollgate.application.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.util.function.Function;

/**
 * The name of a shop as its payments show it ({@code shopName}), read again at most every ten
 * seconds: every payment the gateway answers with, and every webhook, carries it, and a round
 * trip more on each for a name that rarely changes would cost the hottest reads. A renamed shop
 * shows its new name within ten seconds; a webhook keeps the name it was written with.
 */
public final class ShopNames implements Function<ShopId, String> {

  private final ShopRepository shops;
  private final Cache<ShopId, String> names =
      Caffeine.newBuilder().expireAfterWrite(Duration.ofSeconds(10)).maximumSize(100_000).build();

  public ShopNames(ShopRepository shops) {
    this.shops = shops;
  }

  /** The shop's name, or null for a shop that does not exist. */
  @Override
  public String apply(ShopId shop) {
    String name = names.getIfPresent(shop);
    if (name != null) {
      return name;
    }
    name = shops.find(shop).map(Shop::name).orElse(null);
    if (name != null) {
      names.put(shop, name);
    }
    return name;
  }
}
