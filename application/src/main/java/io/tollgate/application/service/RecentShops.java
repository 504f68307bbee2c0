package io.tollgate.application.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.util.Optional;

/**
 * The settings of a shop that the hottest paths read, read again at most every ten seconds:
 * its name, which every payment the gateway answers with and every webhook carries
 * ({@code shopName}), and its checkout timeout, which every host-to-host completion and
 * checkout page checks. A round trip more on each for settings that rarely change would cost
 * the hottest requests; one cache for both means an edited shop is seen the same way by both
 * within ten seconds. A webhook keeps the name it was written with.
 */
public final class RecentShops {

  /** How long an edited shop may still be seen as it was. */
  public static final Duration STALENESS = Duration.ofSeconds(10);

  private final ShopRepository shops;
  private final Cache<ShopId, Shop> recent =
      Caffeine.newBuilder().expireAfterWrite(STALENESS).maximumSize(100_000).build();

  public RecentShops(ShopRepository shops) {
    this.shops = shops;
  }

  /** The shop as it was at most {@link #STALENESS} ago; empty for a shop that does not exist. */
  public Optional<Shop> find(ShopId id) {
    Shop shop = recent.getIfPresent(id);
    if (shop != null) {
      return Optional.of(shop);
    }
    Optional<Shop> found = shops.find(id);
    found.ifPresent(s -> recent.put(id, s));
    return found;
  }

  /** The shop's name, or null for a shop that does not exist. */
  public String name(ShopId shop) {
    return find(shop).map(Shop::name).orElse(null);
  }

  /** The shop's checkout timeout; the default for a shop that does not exist. */
  public Duration checkoutTimeout(ShopId shop) {
    return find(shop).map(Shop::checkoutTimeout).orElse(Shop.DEFAULT_CHECKOUT_TIMEOUT);
  }
}
