package io.tollgate.application.service;

import io.tollgate.application.port.out.ShopRepository;
import io.tollgate.domain.shop.Shop;
import io.tollgate.domain.shop.ShopId;
import java.time.Duration;
import java.util.Optional;

/**
 * The settings of a shop that the hottest paths read: its name, which every payment the gateway
 * answers with and every webhook carries ({@code shopName}), and its checkout timeout, which
 * every host-to-host completion and checkout page checks. They are read from the shop
 * repository each time, which keeps the rows it read a few seconds (the database's keeps them
 * ten): a cache of its own here would add its time to the repository's, so that an edited
 * timeout took up to twice as long to reach these paths as to reach the job that cancels timed
 * out deposits, which reads it afresh. A webhook keeps the name it was written with.
 */
public final class RecentShops {

  private final ShopRepository shops;

  public RecentShops(ShopRepository shops) {
    this.shops = shops;
  }

  /** The shop as the repository last read it; empty for a shop that does not exist. */
  public Optional<Shop> find(ShopId id) {
    return shops.find(id);
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
